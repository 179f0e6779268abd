//! \file core/Macros.hh
//! The one portability header: host/device annotations and compile-mode tests.
//! No other file may use raw `__CUDA_ARCH__` or `__host__ __device__`.
//! (Design follows celeritas `src/corecel/Macros.hh`.)
#pragma once

#include "core/Config.hh"

#if defined(__CUDACC__)
//! Compiled by nvcc (host or device pass).
#    define MCDOSE_CUDA_COMPILER 1
#    define MCDOSE_FUNCTION __host__ __device__
#    define MCDOSE_FORCEINLINE __forceinline__
#    define MCDOSE_DEVICE_FUNCTION __device__
#    define MCDOSE_KERNEL __global__
#    define MCDOSE_NOINLINE __noinline__
#    define MCDOSE_NO_UNROLL _Pragma("unroll 1")
#    define MCDOSE_GRID_CONSTANT __grid_constant__
#else
#    define MCDOSE_CUDA_COMPILER 0
#    define MCDOSE_FUNCTION
#    define MCDOSE_FORCEINLINE inline __attribute__((always_inline))
#    define MCDOSE_DEVICE_FUNCTION
#    define MCDOSE_KERNEL
#    define MCDOSE_NOINLINE __attribute__((noinline))
#    define MCDOSE_NO_UNROLL
#    define MCDOSE_GRID_CONSTANT
#endif

//! `MCDOSE_NOINLINE`: keep a function out of line (a call instead of a copy
//! at every call site), for code that is large and called from many places in
//! a kernel whose size is limited by the instruction cache. `MCDOSE_NO_UNROLL`
//! before a loop: keep one copy of its body in device code.
//! `MCDOSE_GRID_CONSTANT` on a kernel's `const` parameter: code that takes its
//! address (a reference to it) reads it where the launch put it, in the
//! constant bank, instead of from a per-thread copy in local memory.

//! Inline function callable from host and device, forced inline.
#define MCDOSE_FORCEINLINE_FUNCTION MCDOSE_FUNCTION MCDOSE_FORCEINLINE

//! True only in the device pass of nvcc.
#if defined(__CUDA_ARCH__)
#    define MCDOSE_DEVICE_COMPILE 1
#else
#    define MCDOSE_DEVICE_COMPILE 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#    define MCDOSE_UNLIKELY(COND) __builtin_expect(!!(COND), 0)
#    define MCDOSE_LIKELY(COND) __builtin_expect(!!(COND), 1)
#else
#    define MCDOSE_UNLIKELY(COND) (COND)
#    define MCDOSE_LIKELY(COND) (COND)
#endif

//! Mark a deliberately unused variable.
#define MCDOSE_DISCARD(VAR) (void)(VAR)
