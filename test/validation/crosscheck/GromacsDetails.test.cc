//! \file test/validation/crosscheck/GromacsDetails.test.cc
//! Molecule shifts by graph colouring, single-sum versus pairwise virial, and
//! the table-driven inverse square root.
#include <cfloat>
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "CrosscheckSystems.hh"

#include "validation/crosscheck/md/InvSqrtScan.hh"
#include "validation/crosscheck/md/MolShift.hh"
#include "validation/crosscheck/md/Virial.hh"

namespace mcdose::crosscheck::test
{
TEST(MolShift, GraphColouringMakesSplitMoleculesWhole)
{
    auto const& sys = ci_chains();
    auto const shift = make_molecule_shifts(sys);
    ASSERT_EQ(shift.size(), sys.size());
    double const box = sys.box_length;
    size_type split_molecules = 0;
    for (std::int32_t mol = 0; mol <= sys.molecule.back(); ++mol)
    {
        std::set<std::array<int, 3>> stored_images, offsets;
        for (size_type i = 0; i < sys.size(); ++i)
        {
            if (sys.molecule[i] != mol)
                continue;
            stored_images.insert(sys.image[i]);
            // whole = wrapped + shift L and unwrapped = wrapped + image L must
            // differ by one whole-box translation for the whole molecule.
            offsets.insert({shift[i][0] - sys.image[i][0], shift[i][1] - sys.image[i][1],
                            shift[i][2] - sys.image[i][2]});
        }
        EXPECT_EQ(offsets.size(), 1u) << "molecule " << mol;
        split_molecules += stored_images.size() > 1;
    }
    // The test is only meaningful if the box actually splits molecules.
    EXPECT_GT(split_molecules, 5u);
    for (auto const& b : sys.bonds)
    {
        double r2 = 0;
        for (int d = 0; d < 3; ++d)
        {
            double const xa = (d == 0   ? sys.x
                               : d == 1 ? sys.y
                                        : sys.z)[b[0]] +
                              shift[b[0]][d] * box;
            double const xb = (d == 0   ? sys.x
                               : d == 1 ? sys.y
                                        : sys.z)[b[1]] +
                              shift[b[1]][d] * box;
            r2 += (xa - xb) * (xa - xb);
        }
        EXPECT_NEAR(std::sqrt(r2), 0.5, 1e-5);
    }
}

TEST(Virial, SingleSumEqualsPairwiseSumToRoundoff)
{
    auto const& sys = ci_chains();
    auto const cmp = compare_virials(sys, make_molecule_shifts(sys));
    EXPECT_GT(cmp.shifted_pairs, 0u);
    double scale = 0, max_diff = 0, shift_term = 0;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
        {
            scale = std::max(scale, std::abs(cmp.pair_sum[r][c]));
            max_diff = std::max(max_diff, std::abs(cmp.single_sum[r][c] - cmp.pair_sum[r][c]));
            shift_term = std::max(shift_term, std::abs(cmp.nonbonded_shift_term[r][c]));
            EXPECT_NEAR(cmp.single_sum[r][c], cmp.pair_sum[r][c], cmp.rounding_bound)
                << "entry " << r << c;
        }
    std::cout << "virial scale " << scale << ", max |single - pair| " << max_diff
              << ", rounding bound " << cmp.rounding_bound << ", shift term " << shift_term << '\n';
    // Counting the shift term twice (not halving) is far beyond round-off.
    EXPECT_GT(shift_term, 100 * cmp.rounding_bound);
}

TEST(InvSqrtTable, MeetsClaimOverTwoFullBinadesAndSampledRange)
{
    // Exhaustive over [1, 4): the method is exactly scale invariant under
    // x -> 4x (y -> y/2, every float operation exact in the exponent), so two
    // binades with both exponent parities cover every mantissa path.
    auto const two_binades = scan_inv_sqrt_host(float_to_bits(1.0f), float_to_bits(4.0f) - 1, 1);
    EXPECT_EQ(two_binades.inputs, std::uint64_t(1) << 24);
    EXPECT_LE(two_binades.max_table, inv_sqrt_table_claimed_rel_error);
    // Seed bound 2^-13 (1 + 2^-12) from the minimax table construction, plus
    // the rounding of the table entry to 23 fraction bits.
    EXPECT_LE(two_binades.max_seed, std::ldexp(1.0, -13) * (1 + std::ldexp(1.0, -12)) + 0x1.0p-23);
    EXPECT_GT(two_binades.max_seed, std::ldexp(1.0, -14)); // the table alone is coarse
    // 1/sqrtf: two correctly rounded operations, |e| <= u + u + u^2 (u = 2^-24).
    EXPECT_LE(two_binades.max_division, 2 * 0x1.0p-24 + 0x1.0p-48);

    // Sampled over every normal float (stride 4099 keeps it fast; the full
    // scan is `mcdose crosscheck md --rsqrt-scan`).
    auto const sampled = scan_inv_sqrt_host(first_normal_float_bits, last_normal_float_bits, 4099);
    EXPECT_LE(sampled.max_table, inv_sqrt_table_claimed_rel_error);
    EXPECT_LE(sampled.max_division, 2 * 0x1.0p-24 + 0x1.0p-48);
    std::cout << "table max rel error " << two_binades.max_table << " (claim "
              << inv_sqrt_table_claimed_rel_error << "), seed " << two_binades.max_seed
              << ", 1/sqrtf " << two_binades.max_division << '\n';
}
} // namespace mcdose::crosscheck::test
