//! Source particles sampled ahead of their transport (transport/engine/SourceParticles.hh):
//! a history started from a particle sampled ahead gets the particle and the random words
//! it gets when it samples the particle itself, for every kind of sampled source and a
//! mixture; histories outside the sampled range sample their own; only an engine keyed by
//! history resumes.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/JsonInput.hh"
#include "sources/SourceJson.hh"
#include "sources/SourceParams.hh"
#include "transport/engine/SourceParticles.hh"

namespace mcdose::test
{
namespace
{
GridGeometry cube()
{
    return make_axis_aligned_geometry({{20, 20, 20}}, {{1, 1, 1}}, {{0.5, 0.5, 0.5}});
}

SourceInput parse(nlohmann::json const& j)
{
    return parse_source(JsonNode(j, "study.json", "/sources/0"));
}

nlohmann::json const spectrum = nlohmann::json::parse(
    R"({"edges_MeV": [0.5, 1, 3], "weights": [2, 1], "lines_MeV": [1.17, 1.33],
        "line_weights": [1, 1]})");

//! The sources the transport samples: a beam with a spectrum, a point source, a
//! parallel circle, an isotropic point and a mono-energetic pencil.
std::vector<SourceInput> sampled_sources()
{
    return {
        parse({{"type", "beam"},
               {"particle", "photon"},
               {"isocentre_cm", {10, 10, 10}},
               {"gantry_deg", 30},
               {"collimator_deg", 10},
               {"jaws_cm", {{"x1", -4}, {"x2", 3}, {"y1", -2}, {"y2", 5}}},
               {"spectrum", spectrum}}),
        parse({{"type", "point"},
               {"particle", "electron"},
               {"energy_MeV", 6},
               {"position_cm", {10, 10, -90}},
               {"direction", {0, 0, 1}},
               {"field", {{"shape", "rectangle"}, {"size_cm", {5, 8}}, {"distance_cm", 100}}}}),
        parse({{"type", "parallel"},
               {"particle", "photon"},
               {"energy_MeV", 2},
               {"position_cm", {10, 10, -1}},
               {"direction", {0, 0, 1}},
               {"field", {{"shape", "circle"}, {"diameter_cm", 6}}}}),
        parse({{"type", "isotropic"},
               {"particle", "photon"},
               {"energy_MeV", 0.662},
               {"position_cm", {10, 10, 10}}}),
        parse({{"type", "pencil"},
               {"particle", "photon"},
               {"energy_MeV", 1.25},
               {"position_cm", {10, 10, -1}},
               {"direction", {0, 0, 1}}}),
    };
}

template <class Real>
bool same_particle(Particle<Real> const& a, Particle<Real> const& b)
{
    return a.type == b.type && a.energy_MeV == b.energy_MeV && a.weight == b.weight &&
           std::memcmp(&a.position_cm, &b.position_cm, sizeof(a.position_cm)) == 0 &&
           std::memcmp(&a.direction, &b.direction, sizeof(a.direction)) == 0;
}

//! For histories [first, first + n) of `mix`: the particles sampled ahead, then each
//! history started from them and started by sampling, compared with the next words.
template <class Real>
void expect_ahead_equals_inline(SourceMixView<Real> const& mix, std::uint64_t first, size_type n,
                                bool expect_draws)
{
    PhiloxRngParams params;
    params.seed = 0x5eed;
    params.stream = 3;
    std::vector<PhiloxState> states = make_initial_states(params, 2);
    PhiloxView const view = make_view(params, make_span(states));
    std::vector<Particle<Real>> particles(n);
    std::vector<std::uint32_t> draws(n);
    for (size_type i = 0; i < n; ++i)
        sample_source_particle_at(mix, view, first, make_span(particles), make_span(draws), i);
    SourceParticlesView<Real> const ahead{first, make_span(std::as_const(particles)),
                                          make_span(std::as_const(draws))};
    std::uint32_t most = 0;
    for (std::uint64_t h = first - 2; h < first + n + 2; ++h)
    {
        EXPECT_EQ(h >= first && h < first + n, ahead.holds(h)) << h;
        PhiloxEngine resumed(view, 0);
        PhiloxEngine sampled(view, 1);
        Particle<Real> const a = start_source_particle(ahead, mix, resumed, h);
        Particle<Real> const b =
            start_source_particle(SourceParticlesView<Real>{}, mix, sampled, h);
        EXPECT_TRUE(same_particle(a, b)) << "history " << h;
        EXPECT_EQ(resumed.draws(), sampled.draws()) << "history " << h;
        EXPECT_EQ(0u, sampled.draws() % 4) << "history " << h; // ends on a block boundary
        for (int k = 0; k < 9; ++k)
            EXPECT_EQ(sampled(), resumed()) << "history " << h << ", word " << k;
        if (ahead.holds(h))
            most = std::max(most, draws[h - first]);
    }
    EXPECT_EQ(expect_draws, most > 0);
}
} // namespace

TEST(SourceParticles, AheadGivesTheParticlesAndWordsOfSamplingInPlace)
{
    GridGeometry const grid = cube();
    for (SourceInput const& in : sampled_sources())
    {
        SCOPED_TRACE(to_cstring(in.kind));
        bool const draws = !(in.kind == SourceKind::pencil && in.energy_MeV);
        SourceMixParams<double> const d({in}, grid);
        expect_ahead_equals_inline(d.host_view(), 1000, 40, draws);
        SourceMixParams<float> const f({in}, grid);
        expect_ahead_equals_inline(f.host_view(), 7, 40, draws);
    }
    // A mixture draws its source too.
    std::vector<SourceInput> mixed = sampled_sources();
    for (std::size_t k = 0; k < mixed.size(); ++k)
        mixed[k].weight = double(k + 1);
    SourceMixParams<float> const mix(mixed, grid);
    expect_ahead_equals_inline(mix.host_view(), 123456789, 200, true);
}

TEST(SourceParticles, OnlyAnEngineKeyedByHistorySamplesAhead)
{
    EXPECT_TRUE(samples_sources_ahead_v<PhiloxEngine>);
    EXPECT_FALSE(samples_sources_ahead_v<HybridTausEngine>);
    EXPECT_FALSE(samples_sources_ahead_v<LaggedFibonacciEngine>);
}
} // namespace mcdose::test
