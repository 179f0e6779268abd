//! The driver's per-piece hooks (TransportGroupInputs::before_batch /
//! after_batch): batch boundaries on whole granules, and a piece refused by
//! after_batch run again with nothing of the refused run kept.
#include <atomic>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "EngineTestSources.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "rng/Rng.hh"
#include "tally/AtomicPolicies.hh"
#include "transport/engine/Checkpoint.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose::test
{
// A checkpoint names its uncertainty method, so a run that would continue it with the other
// one (e.g. the same study on the other backend under "auto") is refused, naming the line.
TEST(CheckpointFingerprintTest, NamesTheUncertaintyMethod)
{
    TransportRunOptions options;
    options.histories = 1000;
    options.batches = 10;
    TransportChoice const choice{Precision::single_, RngKind::philox, TallyMethod::fx};
    std::string const batch = run_fingerprint(options, choice, 64, -30);
    options.history_uncertainty = true;
    std::string const history = run_fingerprint(options, choice, 64, -30);
    EXPECT_NE(std::string::npos, batch.find("\nuncertainty=batch\n")) << batch;
    EXPECT_NE(std::string::npos, history.find("\nuncertainty=history\n")) << history;
    TransportCheckpoint ck;
    ck.fingerprint = history;
    try
    {
        check_checkpoint_fingerprint(ck, batch, "run.ckpt");
        ADD_FAILURE() << "a history-by-history checkpoint accepted for the batch method";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("'uncertainty=history'"))
            << e.what();
    }
    EXPECT_NO_THROW(check_checkpoint_fingerprint(ck, history, "run.ckpt"));
}

// Fixed mode: 10 batches of 999 histories in granules of 3 start on multiples of 3
// and cover every history once; without a granule the rule is batch_history_range's.
TEST(BatchHooksTest, BatchesHoldWholeGranules)
{
    TransportRunOptions o;
    o.histories = 999;
    o.batches = 10;
    o.history_granule = 3;
    std::uint64_t next = 0;
    for (std::uint64_t b = 0; b < 10; ++b)
    {
        HistoryRange const r = run_batch_range(o, b);
        EXPECT_EQ(next, r.begin);
        EXPECT_EQ(0u, r.begin % 3);
        EXPECT_EQ(0u, r.end % 3);
        EXPECT_GE(r.end - r.begin, 99u);
        next = r.end;
    }
    EXPECT_EQ(999u, next);
    o.history_granule = 1;
    for (std::uint64_t b = 0; b < 10; ++b)
    {
        EXPECT_EQ(batch_history_range(999, 10, b).begin, run_batch_range(o, b).begin);
        EXPECT_EQ(batch_history_range(999, 10, b).end, run_batch_range(o, b).end);
    }
    o.histories = 1000; // not whole granules
    o.history_granule = 3;
    EXPECT_THROW(run_transport({}, TransportInputs{}, 64, o), RuntimeError);
}

// Every piece is run twice (after_batch refuses the first run of each): the dose and
// the energy balance are bitwise those of a run without hooks (Philox: a piece run
// again repeats its histories), and before_batch sees each piece of each batch.
TEST(BatchHooksTest, RefusedPieceRunsAgainWithNothingKept)
{
    auto const p = layered_phantom({{5, 5, 12}}, {{2, 2, 1}}, 4, 6, 11.35f);
    VoxelGridParams grid(p.geometry, p.material, p.density, 2);
    TransportOptions topt;
    topt.emax_MeV = 7;
    topt.points_per_decade = 50;
    TransportParams params({find_material("water"), find_material("lead")}, grid, topt);
    auto source =
        pencil_source<double>(grid.geometry(), ParticleType::photon, 6.0, {{5.0, 5.0, -0.5}});
    TransportRunOptions opts;
    opts.backend = Backend::cpu;
    opts.cpu_threads = 2;
    opts.cpu_groups = 2;
    opts.rng = RngOptions{RngKind::philox, 21};
    opts.histories = 600;
    opts.batches = 3;
    opts.max_primary_energy_MeV = 6.0;
    using Src = SourceMixView<double>;
    using Inputs = TransportGroupInputs<double>;
    auto run = [&](bool hooks, std::atomic<int>* before, std::atomic<int>* refused)
    {
        TransportInputsFor<double> inputs = [&](int, size_type)
        {
            Inputs in;
            in.physics = params.view<double>(MemSpace::host);
            in.source = source.host_view();
            if (hooks)
            {
                in.before_batch = [before](HistoryRange const&, TransportView<double>&, Src&)
                { ++*before; };
                auto done = std::make_shared<std::set<std::uint64_t>>();
                in.after_batch = [refused, done](HistoryRange const& piece)
                {
                    if (done->insert(piece.begin).second)
                    {
                        ++*refused;
                        return false;
                    }
                    return true;
                };
            }
            return in;
        };
        return run_transport({Precision::double_, RngKind::philox, TallyMethod::fx},
                             TransportInputs(std::move(inputs)), grid.num_voxels(), opts);
    };
    std::atomic<int> before{0}, refused{0};
    auto const plain = run(false, nullptr, nullptr);
    auto const twice = run(true, &before, &refused);
    EXPECT_EQ(6, refused.load()); // 3 batches x 2 groups
    EXPECT_EQ(12, before.load());
    EXPECT_EQ(plain.dose.energy_MeV, twice.dose.energy_MeV);
    EXPECT_EQ(plain.dose.energy_sigma_MeV, twice.dose.energy_sigma_MeV);
    EXPECT_EQ(plain.balance.emitted_MeV, twice.balance.emitted_MeV);
    EXPECT_EQ(plain.balance.deposited_MeV, twice.balance.deposited_MeV);
    EXPECT_EQ(plain.balance.escaped_MeV, twice.balance.escaped_MeV);
    EXPECT_EQ(plain.balance.interactions, twice.balance.interactions);
    EXPECT_GT(plain.balance.deposited_MeV, 0);
}
} // namespace mcdose::test
