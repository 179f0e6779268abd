//! \file rng/LaggedFibonacci.cc
#include "rng/LaggedFibonacci.hh"

#include <algorithm>

#include "rng/SplitMix64.hh"

namespace mcdose
{
namespace
{
//! Domain separator so the fallback Philox key differs from PhiloxEngine's.
constexpr std::uint64_t fallback_domain = 0x4c46472d66616c6cull; // "LFG-fall"

size_type largest_window()
{
    auto const& last = brent_lag_table[std::size(brent_lag_table) - 1];
    return std::min<size_type>(last.short_lag, last.long_lag - last.short_lag);
}
} // namespace

void validate_lag_conditions(LagPair lags, size_type num_threads, size_type rns)
{
    MCDOSE_VALIDATE(num_threads > 0 && rns > 0, << "lagged-fibonacci needs at least one thread and "
                                                   "one number per round (got N="
                                                << num_threads << ", RNS=" << rns << ")");
    MCDOSE_VALIDATE(lags.short_lag > 0 && lags.short_lag < lags.long_lag,
                    << "lagged-fibonacci lags (sl=" << lags.short_lag << ", ll=" << lags.long_lag
                    << ") must satisfy 0 < sl < ll; pick a pair from the Brent table");
    size_type const window = num_threads * rns;
    MCDOSE_VALIDATE(lags.short_lag > window && lags.long_lag - lags.short_lag > window,
                    << "lagged-fibonacci is not race-free: a round writes RNS*N = " << rns << "*"
                    << num_threads << " = " << window << " words but needs sl > RNS*N and ll-sl > "
                    << "RNS*N (sl=" << lags.short_lag
                    << ", ll-sl=" << lags.long_lag - lags.short_lag
                    << "); reduce numbers per round or threads, or use larger lags");
}

size_type max_numbers_per_round(size_type num_threads)
{
    MCDOSE_VALIDATE(num_threads > 0, << "lagged-fibonacci needs at least one thread");
    size_type const rns = (largest_window() - 1) / num_threads;
    MCDOSE_VALIDATE(rns > 0, << "lagged-fibonacci cannot serve " << num_threads
                             << " threads race-free: even one number per round needs sl and ll-sl "
                                "> N, and the largest Brent pair allows N <= "
                             << largest_window() - 1 << "; use fewer threads or another generator");
    return rns;
}

LagPair choose_lags(size_type num_threads, size_type rns)
{
    size_type const window = num_threads * rns;
    for (auto const& lags : brent_lag_table)
    {
        if (lags.short_lag > window && lags.long_lag - lags.short_lag > window)
            return lags;
    }
    // No entry fits: report with the standard message for the largest pair.
    validate_lag_conditions(brent_lag_table[std::size(brent_lag_table) - 1], num_threads, rns);
    MCDOSE_ASSERT_UNREACHABLE();
    return {};
}

LaggedFibonacciRngStore::LaggedFibonacciRngStore(Params const& params, size_type num_threads,
                                                 MemSpace memspace)
    : memspace_(memspace), num_threads_(num_threads)
{
    rns_ = params.numbers_per_round ? params.numbers_per_round : max_numbers_per_round(num_threads);
    lags_ = params.lags.long_lag ? params.lags : choose_lags(num_threads, rns_);
    validate_lag_conditions(lags_, num_threads, rns_);

    // Initial ring x_{-ll}..x_{-1} from the seeding generator; at least one word
    // must be odd or the low bit (and with it every word's parity) stays 0.
    std::vector<std::uint32_t> ring(lags_.long_lag);
    SplitMix64 sm(params.seed, 0);
    for (auto& x : ring)
        x = sm.next_u32();
    if (std::none_of(ring.begin(), ring.end(), [](std::uint32_t x) { return x & 1u; }))
        ring[0] |= 1u;

    auto const fk = SplitMix64::mix(params.seed ^ fallback_domain);
    fallback_key_[0] = static_cast<std::uint32_t>(fk);
    fallback_key_[1] = static_cast<std::uint32_t>(fk >> 32);

    std::vector<std::uint32_t> used(num_threads, 0);
    std::vector<unsigned long long> overflow(1, 0);
    if (memspace_ == MemSpace::device)
    {
        d_ring_ = DeviceBuffer<std::uint32_t>(ring);
        d_used_ = DeviceBuffer<std::uint32_t>(used);
        d_overflow_ = DeviceBuffer<unsigned long long>(overflow);
    }
    else
    {
        ring_ = std::move(ring);
        used_ = std::move(used);
        overflow_ = std::move(overflow);
    }
}

size_type LaggedFibonacciRngStore::memory_bytes() const
{
    return lags_.long_lag * sizeof(std::uint32_t) + num_threads_ * sizeof(std::uint32_t) +
           sizeof(unsigned long long);
}

auto LaggedFibonacciRngStore::make_round_view(std::uint64_t round, std::uint32_t offset) -> View
{
    View v;
    bool const dev = memspace_ == MemSpace::device;
    v.ring = dev ? d_ring_.device_span() : make_span(ring_);
    v.used = dev ? d_used_.device_span() : make_span(used_);
    v.overflow_words = dev ? d_overflow_.data() : overflow_.data();
    v.short_lag = lags_.short_lag;
    v.long_lag = lags_.long_lag;
    v.numbers_per_round = static_cast<std::uint32_t>(rns_);
    v.num_threads = static_cast<std::uint32_t>(num_threads_);
    v.round_offset = offset;
    v.round = round;
    v.fallback_key[0] = fallback_key_[0];
    v.fallback_key[1] = fallback_key_[1];
    return v;
}

auto LaggedFibonacciRngStore::begin_batch() -> View
{
    current_ = this->make_round_view(next_round_, next_offset_);
    if (memspace_ == MemSpace::device)
    {
        lfg_generate_round_device(current_);
    }
    else
    {
        for (size_type j = 0; j < num_threads_; ++j)
            lfg_generate_round(current_, j);
    }
    ++next_round_;
    next_offset_ =
        static_cast<std::uint32_t>((next_offset_ + num_threads_ * rns_) % lags_.long_lag);
    return current_;
}

unsigned long long LaggedFibonacciRngStore::overflow_words() const
{
    return memspace_ == MemSpace::device ? d_overflow_.to_host()[0] : overflow_[0];
}

std::vector<std::uint32_t> LaggedFibonacciRngStore::ring_to_host() const
{
    return memspace_ == MemSpace::device ? d_ring_.to_host() : ring_;
}
} // namespace mcdose
