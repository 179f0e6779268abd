//! \file rng/PerThreadRngStore.hh
//! Host owner of a per-thread engine's parameters and states (host or
//! device), handing out the kernel view. Used for every engine with one
//! independent generator per thread (Hybrid Taus, Philox, LCG, Ran2).
#pragma once

#include <limits>
#include <utility>
#include <vector>

#include "rng/PerThreadStates.hh"

namespace mcdose
{
//! Params + states of a per-thread `Engine`, with the batch protocol shared
//! with the lagged-Fibonacci store (begin_batch / end_batch are no-ops here).
template <class Engine>
class PerThreadRngStore
{
  public:
    using State = typename Engine::State;
    using Params = typename Engine::Params;
    using View = typename Engine::View;

    //! Seed `num_threads` states from the parameters.
    PerThreadRngStore(Params const& params, size_type num_threads, MemSpace memspace)
        : params_(params), states_(make_initial_states(params, num_threads), memspace)
    {
    }
    //! Start from explicit states (e.g. a checkpoint or a known-answer test); validated.
    PerThreadRngStore(Params const& params, std::vector<State> initial, MemSpace memspace)
        : params_(params)
    {
        for (size_type j = 0; j < initial.size(); ++j)
            validate_state(initial[j], j);
        states_ = PerThreadStates<State>(std::move(initial), memspace);
    }

    size_type num_threads() const { return states_.size(); }
    MemSpace memspace() const { return states_.memspace(); }
    Params const& params() const { return params_; }

    //! View for kernels (states stay where they are; engines write back).
    View view() { return make_view(params_, states_.span()); }

    //! Batch protocol: a per-thread engine can draw without limit in a batch.
    View begin_batch() { return this->view(); }
    void end_batch() {}
    static constexpr size_type words_per_batch() { return std::numeric_limits<size_type>::max(); }

    //! Words not drawn from the engine's own stream: none for per-thread
    //! engines (same query as LaggedFibonacciRngStore::overflow_words()).
    static constexpr unsigned long long overflow_words() { return 0; }

    std::vector<State> states_to_host() const { return states_.to_host(); }

  private:
    Params params_;
    PerThreadStates<State> states_;
};
} // namespace mcdose
