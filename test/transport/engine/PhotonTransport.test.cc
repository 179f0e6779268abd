//! Photon transport engine on the CPU: energy bookkeeping, uncollided
//! transmission, and agreement of tracking methods and backends' building blocks.
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

#include "EngineTestSources.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "rng/Rng.hh"
#include "tally/AtomicPolicies.hh"
#include "tally/DoseTally.hh"
#include "transport/engine/HistoryTransport.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose::test
{
namespace
{
//! A slab phantom: nz voxels of `thickness_cm` / nz along z, 1 x 1 laterally
//! of `width_cm`, all of one material at its nominal density.
VoxelGridParams slab_grid(int nxy, int nz, double width_cm, double thickness_cm, float density)
{
    GridGeometry g;
    g.dims = {{nxy, nxy, nz}};
    g.spacing_cm = {{width_cm / nxy, width_cm / nxy, thickness_cm / nz}};
    size_type const n = size_type(nxy) * nxy * nz;
    return VoxelGridParams(g, std::vector<MaterialIndex>(n, 0), std::vector<float>(n, density), 1);
}

TransportOptions table_options(double emax_MeV, PhotonTracking tracking)
{
    TransportOptions o;
    o.emax_MeV = emax_MeV;
    o.points_per_decade = 100; // coarser than the default: tests only need speed
    o.tracking = tracking;
    return o;
}
} // namespace

// Narrow-beam transmission: the fraction of photons crossing the slab with no
// interaction is exp(-mu x), mu from the same tables (binomial 4-sigma bound).
TEST(PhotonTransportTest, UncollidedTransmissionMatchesAttenuation)
{
    struct Case
    {
        char const* material;
        double energy_MeV;
        double thickness_cm;
    };
    for (Case c : {Case{"water", 1.25, 10.0}, Case{"water", 0.1, 5.0}, Case{"lead", 6.0, 1.0},
                   Case{"lead", 0.5, 0.2}})
    {
        Material const& mat = find_material(c.material);
        auto grid = slab_grid(3, 7, 30.0, c.thickness_cm, float(mat.density_g_cm3));
        TransportParams params({mat}, grid, table_options(10, PhotonTracking::siddon));
        auto const view = params.view<double>(MemSpace::host);

        // mu at the beam energy from the tables (log-grid interpolation).
        unsigned i;
        double f;
        view.grid.find(c.energy_MeV, i, f);
        double const mu = lerp_table(view.mu_rho.data(), i, f) * mat.density_g_cm3;
        double const expected = std::exp(-mu * c.thickness_cm);

        DoseTally tally({TallyMethod::hb, grid.num_voxels(), 1e9, Backend::cpu});
        auto tv = tally.view<HbPolicy>();
        auto store =
            make_rng_store<PhiloxEngine>(RngOptions{RngKind::philox, 2024}, 1, MemSpace::host);
        auto rng_view = store.view();
        PhiloxEngine rng(rng_view, 0);
        TestPencil<double> src;
        src.energy_MeV = c.energy_MeV;
        src.position_cm = {{15.0, 15.0, -1.0}};
        int const n = 20000;
        int uncollided = 0;
        for (int h = 0; h < n; ++h)
        {
            rng.begin_history(h);
            EnergyBalance bal;
            HistoryTransport<double, PhiloxEngine, HbPolicy>(view, tv, rng, bal)(src(rng));
            uncollided += bal.interactions == 0;
        }
        double const p = double(uncollided) / n;
        double const sigma = std::sqrt(expected * (1 - expected) / n);
        EXPECT_NEAR(expected, p, 4 * sigma)
            << c.material << " " << c.energy_MeV << " MeV, " << c.thickness_cm << " cm";
    }
}

// Energy bookkeeping closes to 1e-9 relative in double precision, for both
// tracking methods, in a two-material phantom with pair production.
TEST(PhotonTransportTest, EnergyBalanceClosesInDouble)
{
    auto const p = layered_phantom({{5, 5, 10}}, {{2, 2, 1}}, 4, 6, 11.35f);
    VoxelGridParams grid(p.geometry, p.material, p.density, 2);
    for (auto tracking : {PhotonTracking::siddon, PhotonTracking::woodcock})
    {
        TransportParams params({find_material("water"), find_material("lead")}, grid,
                               table_options(10, tracking));
        auto const source =
            pencil_source<double>(grid.geometry(), ParticleType::photon, 8.0, {{5.0, 5.0, -0.5}});
        auto const& src = source.host_view();
        TransportRunOptions opts;
        opts.backend = Backend::cpu;
        opts.cpu_threads = 2;
        opts.rng = RngOptions{RngKind::philox, 7};
        opts.histories = 4000;
        opts.batches = 4;
        opts.max_primary_energy_MeV = 8.0;
        auto const r = run_transport<double>({Precision::double_, RngKind::philox, TallyMethod::hb},
                                             params, src, grid.num_voxels(), opts);
        EXPECT_NEAR(opts.histories * 8.0, r.balance.emitted_MeV, 1e-9);
        EXPECT_LT(std::fabs(r.balance.relative_imbalance()), 1e-9)
            << "emitted " << r.balance.emitted_MeV << " deposited " << r.balance.deposited_MeV
            << " escaped " << r.balance.escaped_MeV << " rest " << r.balance.rest_mass_MeV;
        // Pair production happened (8 MeV on lead) and its rest mass was all released.
        EXPECT_GT(r.balance.interactions, 0u);
        EXPECT_NEAR(0.0, r.balance.rest_mass_MeV, 1e-9 * r.balance.emitted_MeV);
        // The tally holds exactly what the bookkeeping says was deposited.
        double const tallied =
            std::accumulate(r.dose.energy_MeV.begin(), r.dose.energy_MeV.end(), 0.0);
        EXPECT_NEAR(r.balance.deposited_MeV, tallied, 1e-9 * r.balance.deposited_MeV);
        EXPECT_EQ(opts.histories, r.histories);
        EXPECT_TRUE(r.complete);
    }
}

// Siddon and Woodcock tracking sample the same physics: their depth-dose
// curves agree within the combined batch uncertainty.
TEST(PhotonTransportTest, WoodcockAgreesWithSiddon)
{
    Material const& water = find_material("water");
    auto grid = slab_grid(1, 10, 20.0, 20.0, 1.0f);
    std::vector<DoseResult> results;
    for (auto tracking : {PhotonTracking::siddon, PhotonTracking::woodcock})
    {
        TransportParams params({water}, grid, table_options(5, tracking));
        auto const source = pencil_source<double>(grid.geometry(), ParticleType::photon, 1.25,
                                                  {{10.0, 10.0, -1.0}});
        auto const& src = source.host_view();
        TransportRunOptions opts;
        opts.backend = Backend::cpu;
        opts.cpu_threads = 2;
        opts.rng = RngOptions{RngKind::philox, tracking == PhotonTracking::siddon ? 11u : 12u};
        opts.histories = 20000;
        opts.batches = 10;
        opts.max_primary_energy_MeV = 1.25;
        results.push_back(
            run_transport<double>({Precision::double_, RngKind::philox, TallyMethod::fx}, params,
                                  src, grid.num_voxels(), opts)
                .dose);
    }
    for (size_type z = 0; z < 10; ++z)
    {
        double const a = results[0].energy_MeV[z], b = results[1].energy_MeV[z];
        double const s = std::hypot(results[0].energy_sigma_MeV[z], results[1].energy_sigma_MeV[z]);
        EXPECT_NEAR(a, b, 4 * s) << "slab " << z;
    }
}
} // namespace mcdose::test
