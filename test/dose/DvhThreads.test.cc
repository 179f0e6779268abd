//! The dose report on any number of host threads: every figure of the region
//! summary and of the DVHs of a few structures bit for bit the same on 1, 2, 5
//! and 16 threads (fixed blocks of voxels, added in block order), also where most
//! voxels have no energy and where the mask of those with energy skips them, and the sums within
//! their rounding bound of an independent sum in long double.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "dose/DoseData.hh"
#include "dose/Dvh.hh"

namespace mcdose
{
namespace
{
//! A 96 x 96 x 40 grid (or `dims`; 368,640 voxels: several blocks of every block sum) with a
//! smooth peak, noisy 1-21 % sigmas, a slab of air and a corner of zero dose.
struct ThreadsCase
{
    GridGeometry g;
    std::vector<double> edep, sigma;
    std::vector<float> rho;
    std::vector<MaterialIndex> mat;
    StructureMask body, sphere, small;

    explicit ThreadsCase(Int3 dims = {{96, 96, 40}})
    {
        g.dims = dims;
        g.spacing_cm = {{0.2, 0.2, 0.25}};
        size_type const n = g.num_voxels();
        edep.resize(n);
        sigma.resize(n);
        rho.assign(n, 1.0f);
        mat.assign(n, 0);
        std::uint64_t h = 12345;
        auto noise = [&h]
        {
            h = h * 6364136223846793005ULL + 1442695040888963407ULL;
            return double(h >> 11) / double(std::uint64_t(1) << 53);
        };
        for (size_type v = 0; v < n; ++v)
        {
            Int3 const ijk = g.ijk(v);
            int const i = ijk[0], j = ijk[1], k = ijk[2];
            double const r2 =
                (i - 48.0) * (i - 48.0) + (j - 40.0) * (j - 40.0) + (k - 20.0) * (k - 20.0) * 2;
            bool const cold = i < 8 && j < 8;
            edep[v] = cold ? 0.0 : std::exp(-r2 / 900.0) * (1 + 0.05 * noise()) + 1e-3;
            sigma[v] = edep[v] * (0.01 + 0.2 * noise());
            rho[v] = k < 3 ? 0.0012f : 1.0f;
        }
        body = whole_grid(g);
        sphere.name = "sphere";
        small.name = "small";
        for (size_type v = 0; v < n; ++v)
        {
            Int3 const ijk = g.ijk(v);
            int const i = ijk[0], j = ijk[1], k = ijk[2];
            double const r = std::sqrt((i - 50.0) * (i - 50.0) + (j - 45.0) * (j - 45.0) +
                                       (k - 22.0) * (k - 22.0));
            if (r < 30)
            {
                sphere.voxels.push_back(v);
                sphere.fraction.push_back(r < 29 ? 1.0f : float(30 - r));
            }
            if (r < 3)
            {
                small.voxels.push_back(v);
                small.fraction.push_back(0.5f);
            }
        }
    }

    DoseGridData data() const
    {
        return dose_grid_view(g, make_span(std::as_const(edep)), make_span(std::as_const(sigma)),
                              make_span(std::as_const(rho)), make_span(std::as_const(mat)));
    }

    //! With `mask`, the data carry the mask of the voxels with energy (as a run's do); with
    //! `table` too, the table of those voxels' doses, which must then be made.
    DoseReport report(int threads, bool mask = false, bool table = false) const
    {
        DoseGridData d = data();
        std::vector<std::uint64_t> const has_energy =
            mask ? energy_mask(d.edep_MeV) : std::vector<std::uint64_t>{};
        d.has_energy = make_span(has_energy);
        EnergyVoxelTable const voxels = table ? energy_voxel_table(d, threads) : EnergyVoxelTable{};
        if (table)
        {
            EXPECT_EQ(has_energy.size(), voxels.before.size()); // made
            d.energy_table = &voxels;
        }
        DoseReport r;
        r.summary = summarize_region(d, body, 0.05, 0.5, threads);
        double const peak = voxel_dose_gy_per_particle(d, g.linear_index({{48, 40, 20}}));
        std::vector<double> const at{0.1 * peak, 0.5 * peak, 0.9 * peak};
        for (StructureMask const* s : {&body, &sphere, &small})
            r.dvhs.push_back(structure_dvh(*s, d, 1e10, at, threads));
        return r;
    }
};

//! Every number of a report, each as the bits of its double ("name=hex;").
std::string bits(DoseReport const& r)
{
    std::ostringstream os;
    auto put = [&os](char const* what, double x)
    {
        std::uint64_t b;
        std::memcpy(&b, &x, sizeof b);
        os << what << '=' << std::hex << b << std::dec << ';';
    };
    RegionSummary const& s = *r.summary;
    put("near_max", s.near_max);
    put("mean_relative", s.mean_relative.value_or(-1));
    os << "counted=" << s.voxels_counted << ";low=" << s.low_density_voxels << ';';
    put("low_max", s.low_density_max);
    put("outside_max", s.outside_max);
    for (DvhFigures const& f : r.dvhs)
    {
        os << '\n' << f.name << ": voxels=" << f.voxels << ';';
        put("volume", f.volume_cm3);
        char const* names[] = {"Dmean", "Dmin", "D0.03cc", "D98", "D95", "D50", "D2"};
        FigureWithSigma const* figures[] = {&f.d_mean, &f.d_min, &f.d_003cc, &f.d98,
                                            &f.d95,    &f.d50,   &f.d2};
        for (int k = 0; k < 7; ++k)
        {
            put(names[k], figures[k]->value);
            put("sigma", figures[k]->sigma);
        }
        for (VolumeAtDose const& v : f.v_at)
        {
            put("V", v.volume_cm3.value);
            put("sigma", v.volume_cm3.sigma);
            put("%", v.volume_percent.value);
            put("sigma", v.volume_percent.sigma);
        }
        for (std::size_t b = 0; b < f.curve_volume_cm3.size(); ++b)
        {
            put("d", f.curve_dose[b]);
            put("v", f.curve_volume_cm3[b]);
        }
    }
    return os.str();
}

TEST(DvhThreadsTest, ReportIsTheSameOnAnyNumberOfThreads)
{
    ThreadsCase const c;
    DoseReport const one = c.report(1);
    // The case reaches both uncertainty methods and every figure is a number.
    ASSERT_EQ(3u, one.dvhs.size());
    DvhFigures const& body = one.dvhs[0];
    EXPECT_GT(body.d50.sigma, 0.0);
    EXPECT_GT(one.dvhs[1].d_min.sigma, 0.0);
    EXPECT_GT(one.dvhs[2].d2.sigma, 0.0);
    EXPECT_GT(*one.summary->mean_relative, 0.0);
    std::string const reference = bits(one);
    for (int threads : {2, 5, 16})
        EXPECT_EQ(reference, bits(c.report(threads))) << threads << " threads";
}

TEST(DvhThreadsTest, MostlyEmptyGridIsTheSameOnAnyNumberOfThreads)
{
    // A third of the voxels without energy: the top quarter of the grid (whole blocks of
    // them, added by their number and volume) and every seventh voxel below it (listed
    // among the others where a figure's draws can reach their dose, 0).
    ThreadsCase c;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        if (c.g.ijk(v)[2] >= 30 || v % 7 == 0)
            c.edep[v] = c.sigma[v] = 0;
    }
    DoseReport const one = c.report(1);
    for (DvhFigures const& f : one.dvhs)
    {
        SCOPED_TRACE(f.name);
        EXPECT_EQ(0.0, f.d95.value); // more than 5 % of each structure is empty
        EXPECT_GT(f.d50.value, 0.0);
        EXPECT_GT(f.d50.sigma, 0.0); // the delta method (body, sphere) and replicas (small)
    }
    // Every voxel counts by its volume: the body's is the grid's to rounding.
    double const grid_cm3 = double(c.g.num_voxels()) * c.g.voxel_volume_cm3();
    EXPECT_NEAR(grid_cm3, one.dvhs[0].volume_cm3, 1e-12 * grid_cm3);
    std::string const reference = bits(one);
    for (int threads : {2, 5, 16})
        EXPECT_EQ(reference, bits(c.report(threads))) << threads << " threads";
}

TEST(DvhThreadsTest, EnergyMaskGivesTheSameFigures)
{
    // The passes that skip the voxels without energy by the mask of those with energy
    // give the figures of the passes that read each voxel's energy, bit for bit: the
    // body (the whole grid, visited by the mask) and the listed structures. A grid of
    // 377,815 voxels: its mask's last word is a part of one.
    ThreadsCase c(Int3{{97, 95, 41}});
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        int const k = c.g.ijk(v)[2];
        if (k >= 30 || v % 7 == 0 || (v / 64) % 5 == 0)
            c.edep[v] = c.sigma[v] = 0;
        // Low-density voxels among those without energy, after the hottest are found: all
        // of some runs of 64, a third of others.
        if (k == 35 || (k == 36 && v % 3 == 0))
            c.rho[v] = 0.0012f;
    }
    std::vector<std::uint64_t> const mask = energy_mask(make_span(std::as_const(c.edep)));
    ASSERT_EQ(mask_words(c.g.num_voxels()), mask.size());
    size_type wrong = 0;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
        wrong += (c.edep[v] != 0) != (((mask[v / 64] >> (v % 64)) & 1) != 0) ? 1 : 0;
    EXPECT_EQ(0u, wrong);
    for (int threads : {1, 5})
        EXPECT_EQ(bits(c.report(threads)), bits(c.report(threads, true))) << threads << " threads";
    // Few voxels without energy (a cold corner): the body's passes list them among the
    // others (its least dose's voxels), visiting them by the mask too.
    ThreadsCase const few(Int3{{97, 95, 41}});
    EXPECT_EQ(bits(few.report(2)), bits(few.report(2, true)));
}

TEST(DvhThreadsTest, VoxelTableGivesTheSameFigures)
{
    // The report read through the table of the voxels with energy gives the figures of the
    // grids, bit for bit: a ball of dose around the peak and every 53rd voxel elsewhere (3 %
    // of the grid), low-density voxels among those without energy (whole mask words and a
    // third of others: the region summary counts them word by word).
    ThreadsCase c(Int3{{97, 95, 41}});
    size_type with_energy = 0;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        Int3 const ijk = c.g.ijk(v);
        double const di = ijk[0] - 48.0, dj = ijk[1] - 40.0, dk = ijk[2] - 20.0;
        if (di * di + dj * dj + dk * dk > 64 && v % 53 != 0)
            c.edep[v] = c.sigma[v] = 0;
        with_energy += c.edep[v] != 0 ? 1 : 0;
        if (ijk[2] == 35 || (ijk[2] == 36 && v % 3 == 0))
            c.rho[v] = 0.0012f;
    }
    ASSERT_LT(16 * with_energy, c.g.num_voxels()); // the table is made
    for (int threads : {1, 5})
    {
        std::string const grids = bits(c.report(threads, true));
        EXPECT_EQ(grids, bits(c.report(threads, true, true))) << threads << " threads";
        EXPECT_EQ(bits(c.report(threads)), grids) << threads << " threads";
    }
}

TEST(DvhThreadsTest, LowDensityIsTheDensityBelowTheThresholdAsADouble)
{
    // The region summary counts a voxel as of low density where its density (a float) is
    // below the threshold (a double): at 0.7 g/cm3, whose nearest float is below 0.7, that
    // float is of low density and the next float up is not. Whole mask words of each (read
    // word by word where they have no energy), some voxels of them with energy, and a word
    // of both: the count is the direct count, with and without the mask, on 1 and 5 threads.
    ThreadsCase c(Int3{{97, 95, 41}});
    float const below = 0.7f; // 0.699999988...
    float const above = std::nextafter(below, 1.0f);
    ASSERT_LT(double(below), 0.7);
    ASSERT_GT(double(above), 0.7);
    size_type expected = 0, low_with_energy = 0;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        Int3 const ijk = c.g.ijk(v);
        if (ijk[2] >= 30 && v % 53 != 0)
            c.edep[v] = c.sigma[v] = 0;
        if (ijk[2] >= 32)
            c.rho[v] = (v / 64) % 3 == 0   ? below
                       : (v / 64) % 3 == 1 ? above
                       : v % 2 == 0        ? below
                                           : above;
        bool const low = double(c.rho[v]) < 0.7;
        expected += low ? 1 : 0;
        low_with_energy += low && c.edep[v] != 0 ? 1 : 0;
    }
    ASSERT_GT(low_with_energy, 0u);
    for (int threads : {1, 5})
    {
        for (bool mask : {false, true})
        {
            DoseGridData d = c.data();
            std::vector<std::uint64_t> const has_energy =
                mask ? energy_mask(d.edep_MeV) : std::vector<std::uint64_t>{};
            d.has_energy = make_span(has_energy);
            RegionSummary const r = summarize_region(d, c.body, 0.7, 0.5, threads);
            EXPECT_EQ(expected, r.low_density_voxels)
                << threads << " threads, " << (mask ? "by the mask" : "voxel by voxel");
        }
    }
}

TEST(DvhThreadsTest, VoxelTableHoldsEachVoxelsDoseOrIsNotMade)
{
    ThreadsCase c;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        if (v % 20 != 3)
            c.edep[v] = c.sigma[v] = 0;
        else if (c.edep[v] == 0) // the cold corner
            c.edep[v] = 1e-4, c.sigma[v] = 1e-5;
    }
    DoseGridData d = c.data();
    EXPECT_EQ(nullptr, energy_voxel_table(d).if_made()); // no mask
    std::vector<std::uint64_t> const mask = energy_mask(d.edep_MeV);
    d.has_energy = make_span(mask);
    EnergyVoxelTable const table = energy_voxel_table(d, 3);
    ASSERT_EQ(mask.size(), table.before.size());
    ASSERT_EQ((c.g.num_voxels() + 16) / 20, table.dose.size());
    size_type checked = 0;
    for (size_type v = 0; v < c.g.num_voxels(); ++v)
    {
        size_type const k = table.index(mask.data(), v);
        if (v % 20 != 3)
        {
            EXPECT_EQ(EnergyVoxelTable::none, k) << v;
            continue;
        }
        ASSERT_EQ(v / 20, k);
        EXPECT_EQ(voxel_dose_gy_per_particle(d, v), table.dose[k]);
        EXPECT_EQ(voxel_relative_uncertainty(d, v), table.relative_sigma[k]);
        ++checked;
    }
    EXPECT_EQ(table.dose.size(), checked);
    // Read through the table, the data give the same doses and maximum.
    DoseGridData through = d;
    through.energy_table = &table;
    EXPECT_EQ(max_dose_gy_per_particle(d), max_dose_gy_per_particle(through));
    EXPECT_GT(max_dose_gy_per_particle(through), 0.0);
    for (size_type v : {size_type(3), size_type(4), size_type(20 * 1000 + 3)})
    {
        EXPECT_EQ(voxel_dose_gy_per_particle(d, v), voxel_dose_gy_per_particle(through, v));
        EXPECT_EQ(voxel_relative_uncertainty(d, v), voxel_relative_uncertainty(through, v));
    }
    // Not made where more than 1/16 of the voxels have energy, or one has a negative energy.
    for (size_type v = 0; v < c.g.num_voxels() / 8; ++v)
        c.edep[v] = c.edep[v] != 0 ? c.edep[v] : 1e-6;
    std::vector<std::uint64_t> const dense = energy_mask(d.edep_MeV);
    d.has_energy = make_span(dense);
    EXPECT_EQ(nullptr, energy_voxel_table(d).if_made());
    for (size_type v = 0; v < c.g.num_voxels() / 8; ++v)
        c.edep[v] = v % 20 == 3 ? c.edep[v] : 0.0;
    c.edep[23] = -1e-3;
    std::vector<std::uint64_t> const negative = energy_mask(d.edep_MeV);
    d.has_energy = make_span(negative);
    EXPECT_EQ(nullptr, energy_voxel_table(d).if_made());
}

TEST(DvhThreadsTest, SumsWithinTheirRoundingBound)
{
    // A sum of n terms in blocks of B added in order rounds each term at most
    // B - 1 + n / B times: |error| <= gamma_m sum |x|, m = n - 1 >= that, gamma_m =
    // m u / (1 - m u), u = 2^-53 (Higham, Accuracy and Stability of Numerical
    // Algorithms, 2002, 4.2). The reference, in long double, is far closer.
    ThreadsCase const c;
    DoseGridData const d = c.data();
    DvhFigures const f = c.report(5).dvhs[1]; // the sphere, doses x 1e10
    double const voxel_cm3 = c.g.voxel_volume_cm3();
    long double volume = 0, weighted = 0, weighted_abs = 0;
    std::size_t const n = c.sphere.size();
    for (std::size_t i = 0; i < n; ++i)
    {
        double const w = voxel_cm3 * c.sphere.fraction_at(i);
        double const dose = voxel_dose_gy_per_particle(d, c.sphere.voxel(i)) * 1e10;
        volume += w;
        weighted += (long double)(dose * w);
        weighted_abs += std::fabs(dose * w);
    }
    double const m = double(n - 1) * 0x1p-53;
    double const gamma = m / (1 - m);
    EXPECT_NEAR(double(volume), f.volume_cm3, gamma * double(volume));
    // Dmean = (sum w d) / (sum w): both sums' bounds and the division's rounding.
    double const mean = double(weighted / volume);
    double const mean_bound = (2 * gamma + 0x1p-52) * double(weighted_abs / volume);
    EXPECT_NEAR(mean, f.d_mean.value, mean_bound);
    EXPECT_NE(0.0, f.d_mean.value);
}
} // namespace
} // namespace mcdose
