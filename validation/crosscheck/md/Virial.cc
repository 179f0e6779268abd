//! \file validation/crosscheck/md/Virial.cc
#include "Virial.hh"

#include <algorithm>
#include <cmath>
#include <map>

#include "PairForce.hh"
#include "core/Assert.hh"

namespace mcdose::crosscheck
{
namespace
{
using Vec = std::array<double, 3>;

void add_outer(Tensor3& t, Vec const& a, Vec const& b, double& abs_sum)
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
        {
            t[r][c] += a[r] * b[c];
            abs_sum += std::abs(a[r] * b[c]);
        }
}

void scale(Tensor3& t, double s)
{
    for (auto& row : t)
        for (auto& v : row)
            v *= s;
}

//! Sums that both evaluations share: total forces, shift forces binned by
//! shift, and the |terms| of the rounding bound.
struct VirialSums
{
    using ShiftBins = std::map<std::array<int, 3>, Vec>;

    std::vector<Vec> force;      // F_i, non-bonded + bonded
    ShiftBins shift_force_nb;    // F_s of the non-bonded loop, by image shift (counted twice)
    ShiftBins shift_force_graph; // bond forces, by the atom's graph shift
    double abs_terms{0};         // sum of |products| entering the tensors
    double abs_force_terms{0};   // sum of |f| |x| over the terms of the force sums
};

Vec position(LJSystem const& sys, size_type i)
{
    return Vec{sys.x[i], sys.y[i], sys.z[i]};
}

//! Non-bonded: full loop over ordered pairs, as the force kernel does.
void add_nonbonded(LJSystem const& sys, VirialSums& sums, VirialComparison& out)
{
    size_type const n = sys.size();
    double const box = sys.box_length;
    for (size_type i = 0; i < n; ++i)
    {
        Vec const xi = position(sys, i);
        auto const* ex_begin = sys.excl_index.data() + sys.excl_offset[i];
        auto const* ex_end = sys.excl_index.data() + sys.excl_offset[i + 1];
        for (size_type j = 0; j < n; ++j)
        {
            if (j == i || std::find(ex_begin, ex_end, j) != ex_end)
                continue;
            Vec const xj = position(sys, j);
            std::array<int, 3> s;
            Vec t, r;
            for (int d = 0; d < 3; ++d)
            {
                s[d] = -int(std::rint((xi[d] - xj[d]) / box));
                t[d] = s[d] * box;
                r[d] = xi[d] - xj[d] + t[d];
            }
            int const pair = sys.type[i] * sys.num_types + sys.type[j];
            auto const f = lj_force<double>(r[0], r[1], r[2], sys.sigma2[pair], sys.eps24[pair]);
            Vec const fv{f.x, f.y, f.z};
            double const fabs_sum = std::abs(f.x) + std::abs(f.y) + std::abs(f.z);
            sums.abs_force_terms +=
                fabs_sum * (std::abs(xi[0]) + std::abs(xi[1]) + std::abs(xi[2]) + std::abs(t[0]) +
                            std::abs(t[1]) + std::abs(t[2]));
            auto& fs = sums.shift_force_nb[s];
            for (int d = 0; d < 3; ++d)
            {
                sums.force[i][d] += fv[d];
                fs[d] += fv[d];
            }
            if (s != std::array<int, 3>{0, 0, 0})
                ++out.shifted_pairs;
            if (i < j)
                add_outer(out.pair_sum, r, fv, sums.abs_terms);
        }
    }
}

//! Bonds on the molecules made whole by the graph shifts.
void add_bonds(LJSystem const& sys, std::vector<std::array<int, 3>> const& mol_shift,
               HarmonicBond const& bond, VirialSums& sums, VirialComparison& out)
{
    size_type const n = sys.size();
    double const box = sys.box_length;
    auto whole = [&](size_type i)
    {
        Vec w = position(sys, i);
        for (int d = 0; d < 3; ++d)
            w[d] += mol_shift[i][d] * box;
        return w;
    };
    std::vector<Vec> bond_force(n, Vec{0, 0, 0});
    for (auto const& b : sys.bonds)
    {
        Vec const wi = whole(b[0]), wj = whole(b[1]);
        Vec r;
        for (int d = 0; d < 3; ++d)
            r[d] = wi[d] - wj[d];
        double const len = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        double const p = -bond.k * (len - bond.r0) / len;
        Vec const fv{p * r[0], p * r[1], p * r[2]};
        for (int d = 0; d < 3; ++d)
        {
            bond_force[b[0]][d] += fv[d];
            bond_force[b[1]][d] -= fv[d];
        }
        for (auto a : b)
        {
            Vec const w = whole(a);
            sums.abs_force_terms += (std::abs(fv[0]) + std::abs(fv[1]) + std::abs(fv[2])) *
                                    (std::abs(w[0]) + std::abs(w[1]) + std::abs(w[2]));
        }
        add_outer(out.pair_sum, r, fv, sums.abs_terms);
    }
    for (size_type i = 0; i < n; ++i)
    {
        auto& fs = sums.shift_force_graph[mol_shift[i]];
        for (int d = 0; d < 3; ++d)
        {
            sums.force[i][d] += bond_force[i][d];
            fs[d] += bond_force[i][d];
        }
    }
}

//! Single sum: positions times total forces plus shift vectors times shift
//! forces (the non-bonded ones halved: each pair was visited twice).
void add_single_sum(LJSystem const& sys, VirialSums& sums, VirialComparison& out)
{
    double const box = sys.box_length;
    for (size_type i = 0; i < sys.size(); ++i)
        add_outer(out.single_sum, position(sys, i), sums.force[i], sums.abs_terms);
    auto add_shift_term = [&](Tensor3& target, VirialSums::ShiftBins const& bins, double weight)
    {
        for (auto const& [s, fs] : bins)
        {
            Vec const t{s[0] * box, s[1] * box, s[2] * box};
            Vec const wf{weight * fs[0], weight * fs[1], weight * fs[2]};
            add_outer(target, t, wf, sums.abs_terms);
        }
    };
    add_shift_term(out.single_sum, sums.shift_force_nb, 0.5); // each pair was visited twice
    add_shift_term(out.single_sum, sums.shift_force_graph, 1.0);
    double unused_abs = 0;
    for (auto const& [s, fs] : sums.shift_force_nb)
        add_outer(out.nonbonded_shift_term, Vec{s[0] * box, s[1] * box, s[2] * box},
                  Vec{0.5 * fs[0], 0.5 * fs[1], 0.5 * fs[2]}, unused_abs);
}
} // namespace

VirialComparison compare_virials(LJSystem const& sys,
                                 std::vector<std::array<int, 3>> const& mol_shift,
                                 HarmonicBond const& bond)
{
    MCDOSE_VALIDATE(sys.periodic() && !sys.excl_offset.empty(),
                    << "the virial comparison needs the bonded periodic system");
    MCDOSE_VALIDATE(mol_shift.size() == sys.size(), << "molecule shift list has "
                                                    << mol_shift.size() << " entries for "
                                                    << sys.size() << " atoms");
    size_type const n = sys.size();

    VirialComparison out;
    VirialSums sums;
    sums.force.assign(n, Vec{0, 0, 0});
    add_nonbonded(sys, sums, out);
    add_bonds(sys, mol_shift, bond, sums, out);
    add_single_sum(sys, sums, out);
    scale(out.pair_sum, -0.5);
    scale(out.single_sum, -0.5);
    scale(out.nonbonded_shift_term, -0.5);

    // Rounding: every entry of both tensors is a sum of products whose factors
    // F_i and F_s are themselves sums of at most N^2 terms; by Higham (4.4) the
    // difference is bounded by gamma_{N^2} times the sum of |position| |term|
    // over every term that enters either evaluation (abs_terms plus
    // abs_force_terms).
    double const u = 0x1.0p-53;
    double const nn = double(n) * double(n);
    out.rounding_bound = nn * u / (1 - nn * u) * (sums.abs_terms + sums.abs_force_terms);
    return out;
}
} // namespace mcdose::crosscheck
