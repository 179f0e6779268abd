//! The transport's run-time interface (TransportRun.hh): the choice made at input time, the
//! one factory's dispatch to every typed group, and its refusals.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "EngineTestSources.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose::test
{
// The baseline generators are refused when the choice is made, naming the field.
TEST(TransportFactoryTest, BaselineGeneratorsAreRefusedAtTheChoice)
{
    for (RngKind kind : {RngKind::lcg, RngKind::ran2})
    {
        try
        {
            make_transport_choice(Precision::double_, kind, TallyMethod::fx);
            ADD_FAILURE() << to_cstring(kind) << " accepted for transport";
        }
        catch (RuntimeError const& e)
        {
            std::string const what = e.what();
            EXPECT_NE(std::string::npos, what.find("rng.generator")) << what;
            EXPECT_NE(std::string::npos, what.find("baseline")) << what;
        }
    }
    for (RngKind kind : {RngKind::philox, RngKind::hybrid_taus, RngKind::lagged_fibonacci})
    {
        TransportChoice const c = make_transport_choice(Precision::single_, kind, TallyMethod::hb);
        EXPECT_EQ(kind, c.generator);
        EXPECT_EQ(Precision::single_, c.precision);
        EXPECT_EQ(TallyMethod::hb, c.method);
    }
}

class TransportFactoryRunTest : public ::testing::Test
{
  protected:
    LayeredPhantom phantom_ = layered_phantom({{4, 4, 8}}, {{1, 1, 1}}, 3, 5, 1.85f);
    VoxelGridParams grid_{phantom_.geometry, phantom_.material, phantom_.density, 2};
    TransportParams params_{{find_material("water"), find_material("bone_cortical_icrp")},
                            grid_,
                            []
                            {
                                TransportOptions o;
                                o.emax_MeV = 3;
                                o.points_per_decade = 50;
                                return o;
                            }()};

    TransportRunOptions options(RngKind kind) const
    {
        TransportRunOptions o;
        o.backend = Backend::cpu;
        o.cpu_threads = 2;
        o.rng = RngOptions{kind, 5};
        o.histories = 400;
        o.batches = 4;
        o.max_primary_energy_MeV = 2.0;
        return o;
    }
};

// Every tally method and generator, in both precisions, is built by the factory and runs: the
// energy emitted is the source's, the balance closes, and energy is deposited. FX and HB in
// double with Philox differ only by the tally's rounding.
TEST_F(TransportFactoryRunTest, EveryChoiceRuns)
{
    auto const source_d =
        pencil_source<double>(grid_.geometry(), ParticleType::electron, 2.0, {{2.0, 2.0, -0.5}});
    auto const source_f =
        pencil_source<float>(grid_.geometry(), ParticleType::electron, 2.0, {{2.0, 2.0, -0.5}});
    size_type const voxels = grid_.num_voxels();
    for (Precision precision : {Precision::single_, Precision::double_})
    {
        for (RngKind kind : {RngKind::philox, RngKind::hybrid_taus, RngKind::lagged_fibonacci})
        {
            for (TallyMethod method : all_tally_methods())
            {
                TransportChoice const choice = make_transport_choice(precision, kind, method);
                TransportRunResult const r =
                    precision == Precision::single_
                        ? run_transport<float>(choice, params_, source_f.host_view(), voxels,
                                               options(kind))
                        : run_transport<double>(choice, params_, source_d.host_view(), voxels,
                                                options(kind));
                std::string const what = std::string(to_cstring(precision)) + " " +
                                         to_cstring(kind) + " " + to_cstring(method);
                EXPECT_EQ(400u, r.histories) << what;
                EXPECT_NEAR(400 * 2.0, r.balance.emitted_MeV, 1e-9) << what;
                EXPECT_LT(std::fabs(r.balance.relative_imbalance()), 1e-6) << what;
                EXPECT_GT(r.balance.deposited_MeV, 0.0) << what;
            }
        }
    }
    TransportChoice const fx{Precision::double_, RngKind::philox, TallyMethod::fx};
    TransportChoice const hb{Precision::double_, RngKind::philox, TallyMethod::hb};
    auto const a =
        run_transport<double>(fx, params_, source_d.host_view(), voxels, options(RngKind::philox));
    auto const b =
        run_transport<double>(hb, params_, source_d.host_view(), voxels, options(RngKind::philox));
    for (size_type v = 0; v < voxels; ++v)
        EXPECT_NEAR(b.dose.energy_MeV[v], a.dose.energy_MeV[v], 1e-9 * (1 + b.dose.energy_MeV[v]));
}

// Inputs in the other precision than the choice's are refused before any history runs.
TEST_F(TransportFactoryRunTest, InputsOfTheOtherPrecisionAreRefused)
{
    auto const source =
        pencil_source<float>(grid_.geometry(), ParticleType::electron, 2.0, {{2.0, 2.0, -0.5}});
    TransportInputsFor<float> inputs = [&](int, size_type)
    {
        TransportGroupInputs<float> in;
        in.physics = params_.view<float>(MemSpace::host);
        in.source = source.host_view();
        return in;
    };
    TransportChoice const choice{Precision::double_, RngKind::philox, TallyMethod::fx};
    try
    {
        run_transport(choice, TransportInputs(inputs), grid_.num_voxels(),
                      options(RngKind::philox));
        ADD_FAILURE() << "float inputs accepted by a double transport";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string::npos, std::string(e.what()).find("precision")) << e.what();
    }
}
} // namespace mcdose::test
