//! \file validation/crosscheck/md/Virial.hh
//! The virial of a periodic system two ways (GROMACS manual, "The virial";
//! Bekker, Berendsen et al. 1993, "Single-sum virial"):
//!  - pairwise double sum  Xi = -1/2 sum_{i<j} r_ij (x) f_ij  with minimum-image r_ij;
//!  - single sum  Xi = -1/2 [ sum_i x_i (x) F_i + sum_s t_s (x) F_s ]  with the
//!    stored (wrapped) positions x_i, total forces F_i, shift vectors t_s and
//!    shift forces F_s.
//! Derivation: r_ij = x_i - x_j + t_ij, so sum_{i<j} r_ij (x) f_ij =
//! sum_i x_i (x) F_i + sum_{i<j} t_ij (x) f_ij. The force loop visits every
//! pair twice (from i and from j) and t_ji (x) f_ji = t_ij (x) f_ij (Newton's
//! third law, t_ji = -t_ij), so the shift forces accumulated over the full loop
//! count the shift term twice and are halved. Bonds are evaluated on molecules
//! made whole by the graph shifts s_i (MolShift.hh); their contribution
//! sum_i (s_i L) (x) F_bond,i is binned by the atom's graph shift.
//! Everything is in double precision; LJ non-bonded with 1-2/1-3 exclusions
//! plus harmonic bonds.
#pragma once

#include <array>
#include <vector>

#include "LJSystem.hh"

namespace mcdose::crosscheck
{
using Tensor3 = std::array<std::array<double, 3>, 3>;

//! Harmonic bond U = k (r - r0)^2 / 2 [eps, sigma].
struct HarmonicBond
{
    double k{1000};  //!< [eps/sigma^2]
    double r0{0.45}; //!< [sigma]
};

struct VirialComparison
{
    Tensor3 pair_sum{};   //!< pairwise double sum [eps]
    Tensor3 single_sum{}; //!< single sum with shift vectors [eps]
    //! Forward rounding-error bound of the difference (per entry): gamma_{N^2}
    //! times the sum of |terms| of both evaluations (Higham 2002, eq. 4.4).
    double rounding_bound{0};
    //! -1/2 x the (halved) non-bonded shift term: what the single sum would be
    //! off by if the doubly counted shift forces were not halved [eps].
    Tensor3 nonbonded_shift_term{};
    size_type shifted_pairs{0}; //!< ordered pairs that needed a non-zero image shift
};

//! Both virials for the bonded periodic system; `mol_shift` from
//! make_molecule_shifts().
VirialComparison compare_virials(LJSystem const& sys,
                                 std::vector<std::array<int, 3>> const& mol_shift,
                                 HarmonicBond const& bond = {});
} // namespace mcdose::crosscheck
