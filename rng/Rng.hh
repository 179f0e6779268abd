//! \file rng/Rng.hh
//! The one header to include for random numbers: engines, run-time selection,
//! distributions. See docs/rng.md.
//!
//! How to use an engine in a kernel (the same code runs on the host):
//! \code
//!   // Physics: a header-only functor templated on the engine.
//!   template<class Engine>
//!   MCDOSE_FUNCTION double sample_path_cm(Engine& rng, double mfp_cm)
//!   {
//!       return sample_exponential<double>(rng, mfp_cm);  // one generate_canonical
//!   }
//!
//!   // Kernel: build the engine from (view, thread); it writes its state back
//!   // when it goes out of scope. Engines are not copyable: pass by reference.
//!   template<class Engine>
//!   MCDOSE_KERNEL void transport_kernel(typename Engine::View rng_view, ...)
//!   {
//!       size_type const tid = blockIdx.x * blockDim.x + threadIdx.x;
//!       Engine rng(rng_view, tid);
//!       while (grab history id)
//!       {
//!           rng.begin_history(id);  // Philox: counter = (history, draw 0); others: no-op
//!           ... sample_path_cm(rng, mfp) ...
//!       }
//!   }
//!
//!   // Host: select by name, build the store (params + states) on the device,
//!   // and call each batch between begin_batch() / end_batch() (the lagged
//!   // Fibonacci refills its shared ring there; others do nothing).
//!   RngOptions opts;  opts.kind = to_rng_kind("philox");  opts.seed = 12345;
//!   visit_rng(opts.kind, [&](auto tag) {
//!       using Engine = typename decltype(tag)::type;
//!       auto store = make_rng_store<Engine>(opts, num_threads, MemSpace::device);
//!       for (each batch)
//!       {
//!           auto view = store.begin_batch();
//!           launch transport_kernel<Engine><<<...>>>(view, ...);
//!           store.end_batch();
//!       }
//!   });
//! \endcode
#pragma once

#include "rng/Distributions.hh"
#include "rng/HybridTaus.hh"
#include "rng/LaggedFibonacci.hh"
#include "rng/Lcg.hh"
#include "rng/PerThreadRngStore.hh"
#include "rng/Philox.hh"
#include "rng/Ran2.hh"
#include "rng/RngKind.hh"
