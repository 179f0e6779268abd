//! Known answers on the device: the same draw_interleaved path in a kernel
//! must give the recorded host words bit for bit, for every engine.
#include <gtest/gtest.h>

#include "KnownAnswers.hh"
#include "TestMacros.hh"
#include "rng/GenerateWords.hh"

namespace mcdose::test
{
namespace
{
template <class Engine, class Params>
void expect_device_equals(Params const& params, std::vector<std::uint32_t> const& expected)
{
    RngStore<Engine> store(params, kat_threads, MemSpace::device);
    EXPECT_EQ(expected, generate_words<Engine>(store, kat_words)) << Engine::name;
}
} // namespace

TEST(DeviceKatTest, RecordedWordsOnDevice)
{
    MCDOSE_SKIP_IF_NO_GPU();
    expect_device_equals<HybridTausEngine>(kat_hybrid_taus_params(), kat_hybrid_taus_words());
    expect_device_equals<PhiloxEngine>(kat_philox_params(), kat_philox_words());
    expect_device_equals<LcgEngine>(kat_lcg_params(), kat_lcg_words());
    expect_device_equals<Ran2Engine>(kat_ran2_params(), kat_ran2_words());
    expect_device_equals<LaggedFibonacciEngine>(kat_lfg_params(), kat_lfg_words());
}

TEST(DeviceKatTest, PhiloxPublishedVectorOnDevice)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto const& kat = philox_published_kats()[2];
    PerThreadRngStore<PhiloxEngine> store(philox_pi_params(), philox_pi_states(), MemSpace::device);
    auto const out = generate_words<PhiloxEngine>(store, 4);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(kat.expected[i], out[i]) << "word " << i;
}

TEST(DeviceKatTest, ManyThreadsAndRoundsMatchHost)
{
    MCDOSE_SKIP_IF_NO_GPU();
    RngOptions opts;
    opts.seed = 99;
    opts.lfg_numbers_per_round = 7;
    for (auto k : all_rng_kinds())
    {
        visit_rng(k,
                  [&](auto tag)
                  {
                      using Engine = typename decltype(tag)::type;
                      auto host = make_rng_store<Engine>(opts, 1000, MemSpace::host);
                      auto dev = make_rng_store<Engine>(opts, 1000, MemSpace::device);
                      EXPECT_EQ(generate_words<Engine>(host, 50), generate_words<Engine>(dev, 50))
                          << Engine::name;
                  });
    }
}
} // namespace mcdose::test
