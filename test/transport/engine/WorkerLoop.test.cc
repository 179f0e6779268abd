//! The transport worker's loop (TransportThread.hh): the warp's step-kind
//! rule, and that interleaving steps under it leaves each history unchanged.
#include <gtest/gtest.h>

#include "EngineTestSources.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "rng/Rng.hh"
#include "tally/AtomicPolicies.hh"
#include "tally/DoseTally.hh"
#include "transport/engine/HistoryTransport.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/engine/TransportRun.hh"
#include "transport/engine/TransportThread.hh"

namespace mcdose::test
{
// The kind with more than `ratio` (4) times the other's lanes runs; a kind
// nobody wants never runs; in between the two alternate.
TEST(WorkerLoopTest, StepKindRule)
{
    static_assert(StepKindVote::ratio == 4, "the cases below are for ratio 4");
    struct Case
    {
        int a_lanes, b_lanes;
        bool a_was_last, expected;
    };
    Case const cases[] = {
        {0, 0, false, false},  {0, 0, true, false},   // nothing to step
        {0, 32, true, false},  {1, 31, false, false}, // 4 * 1 < 31: B
        {1, 31, true, false},  {7, 25, false, true},  // 4 * 7 >= 25, 4 * 25 >= 7: alternate
        {7, 25, true, false},  {8, 24, false, true},  {8, 24, true, false},
        {16, 16, false, true}, {16, 16, true, false}, {25, 7, false, true},
        {25, 7, true, false},  {25, 6, false, true}, // 4 * 6 < 25: A
        {25, 6, true, true},   {31, 1, false, true},  {3, 0, false, true},
        {1, 0, true, true}};
    for (Case const& c : cases)
    {
        EXPECT_EQ(c.expected, StepKindVote::takes_turn(c.a_lanes, c.b_lanes, c.a_was_last))
            << c.a_lanes << " lanes want A, " << c.b_lanes << " want B, last "
            << (c.a_was_last ? "A" : "B");
    }
    // On the host a thread is a block of one lane: it always takes its own step.
    StepKindVote vote;
    EXPECT_EQ(StepKind::photon, vote.turn(true, false, false));
    EXPECT_EQ(StepKind::charged, vote.turn(false, true, false));
    EXPECT_EQ(StepKind::hard, vote.turn(false, false, true));
    EXPECT_EQ(StepKind::charged, vote.turn(false, true, false));
    EXPECT_EQ(StepKind::photon, vote.turn(true, false, false));
    EXPECT_FALSE(vote.idle());
    vote.turn(false, false, false);
    EXPECT_TRUE(vote.idle()); // no particle in flight: the worker checks for more work
}

// One worker (a CPU thread) running 10 MeV electrons through water and lead
// (delta rays, bremsstrahlung photons and the electrons they set moving):
// the dose grid and every entry of the energy balance are bitwise those of
// transporting the same histories one at a time with HistoryTransport (the HB
// tally adds in deposit order, so this also checks the order of the deposits).
TEST(WorkerLoopTest, WorkerEqualsOneHistoryAtATime)
{
    auto const p = layered_phantom({{5, 5, 12}}, {{2, 2, 1}}, 4, 6, 11.35f);
    VoxelGridParams grid(p.geometry, p.material, p.density, 2);
    TransportOptions o;
    o.emax_MeV = 12;
    o.points_per_decade = 100;
    TransportParams params({find_material("water"), find_material("lead")}, grid, o);
    auto const source =
        pencil_source<double>(grid.geometry(), ParticleType::electron, 10.0, {{5.0, 5.0, -0.5}});
    auto const& src = source.host_view();
    std::uint64_t const histories = 300;

    TransportRunOptions opts;
    opts.backend = Backend::cpu;
    opts.cpu_threads = 1;
    opts.rng = RngOptions{RngKind::philox, 99};
    opts.histories = histories;
    opts.batches = 1;
    opts.max_primary_energy_MeV = 10.0;
    auto const run = run_transport<double>({Precision::double_, RngKind::philox, TallyMethod::hb},
                                           params, src, grid.num_voxels(), opts);

    DoseTally tally({TallyMethod::hb, grid.num_voxels(), histories * 10.0, Backend::cpu});
    auto const tv = tally.view<HbPolicy>();
    auto const view = params.view<double>(MemSpace::host);
    auto store = make_rng_store<PhiloxEngine>(opts.rng, 1, MemSpace::host);
    auto rng_view = store.view();
    PhiloxEngine rng(rng_view, 0);
    EnergyBalance balance;
    for (std::uint64_t h = 0; h < histories; ++h)
    {
        rng.begin_history(h);
        HistoryTransport<double, PhiloxEngine, HbPolicy>(view, tv, rng, balance)(src(rng));
    }
    tally.end_batch(histories);
    auto const one_at_a_time = tally.result();

    ASSERT_EQ(one_at_a_time.energy_MeV.size(), run.dose.energy_MeV.size());
    EXPECT_EQ(one_at_a_time.energy_MeV, run.dose.energy_MeV);
    EXPECT_GT(balance.interactions, 0u); // photons were transported
    EXPECT_EQ(balance.emitted_MeV, run.balance.emitted_MeV);
    EXPECT_EQ(balance.deposited_MeV, run.balance.deposited_MeV);
    EXPECT_EQ(balance.escaped_MeV, run.balance.escaped_MeV);
    EXPECT_EQ(balance.below_cutoff_MeV, run.balance.below_cutoff_MeV);
    EXPECT_EQ(balance.overflow_MeV, run.balance.overflow_MeV);
    EXPECT_EQ(balance.rest_mass_MeV, run.balance.rest_mass_MeV);
    EXPECT_EQ(balance.interactions, run.balance.interactions);
}
} // namespace mcdose::test
