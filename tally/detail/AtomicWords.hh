//! \file tally/detail/AtomicWords.hh
//! Atomic read-modify-write of 32- and 64-bit words with one interface on
//! host and device: CUDA atomics in the device pass, GCC `__atomic` builtins
//! (the operations std::atomic_ref performs) in the host pass, so that the
//! CPU backend's many std::threads can deposit into the same grid.
//! Relaxed ordering is enough: the grid is only read after the kernel ends or
//! the threads are joined, which synchronises.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/Macros.hh"

namespace mcdose::detail
{
using word32 = unsigned int;
using word64 = unsigned long long; // the type CUDA's 64-bit atomics take
static_assert(sizeof(word32) == 4 && sizeof(word64) == 8, "unexpected word sizes");

//! Bit casts (memcpy is the portable, optimised-away way in C++17).
MCDOSE_FORCEINLINE_FUNCTION word64 bits_of(double x)
{
#if MCDOSE_DEVICE_COMPILE
    return static_cast<word64>(__double_as_longlong(x));
#else
    word64 w;
    std::memcpy(&w, &x, sizeof w);
    return w;
#endif
}
MCDOSE_FORCEINLINE_FUNCTION double double_of(word64 w)
{
#if MCDOSE_DEVICE_COMPILE
    return __longlong_as_double(static_cast<long long>(w));
#else
    double x;
    std::memcpy(&x, &w, sizeof x);
    return x;
#endif
}
MCDOSE_FORCEINLINE_FUNCTION word32 bits_of(float x)
{
#if MCDOSE_DEVICE_COMPILE
    return static_cast<word32>(__float_as_uint(x));
#else
    word32 w;
    std::memcpy(&w, &x, sizeof w);
    return w;
#endif
}
MCDOSE_FORCEINLINE_FUNCTION float float_of(word32 w)
{
#if MCDOSE_DEVICE_COMPILE
    return __uint_as_float(w);
#else
    float x;
    std::memcpy(&x, &w, sizeof x);
    return x;
#endif
}

//! Plain (non-atomic) read of a word that other threads may be updating;
//! only used as the first guess of a CAS loop.
template <class W>
MCDOSE_FORCEINLINE_FUNCTION W relaxed_load(W const* addr)
{
#if MCDOSE_DEVICE_COMPILE
    return *static_cast<W const volatile*>(addr);
#else
    return __atomic_load_n(addr, __ATOMIC_RELAXED);
#endif
}

//! Compare-and-swap: returns the value found at addr (== expected on success).
template <class W>
MCDOSE_FORCEINLINE_FUNCTION W atomic_cas(W* addr, W expected, W desired)
{
#if MCDOSE_DEVICE_COMPILE
    return atomicCAS(addr, expected, desired);
#else
    __atomic_compare_exchange_n(addr, &expected, desired, /* weak = */ false, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED);
    return expected; // overwritten with the current value on failure
#endif
}

//! The CAS loop: atomically replace *addr by update(*addr) (update is pure).
template <class W, class F>
MCDOSE_FORCEINLINE_FUNCTION void atomic_update(W* addr, F&& update)
{
    W old = relaxed_load(addr);
    W assumed;
    do
    {
        assumed = old;
        old = atomic_cas(addr, assumed, update(assumed));
    } while (old != assumed);
}

//! Integer fetch-add (wraps modulo 2^64: two's complement for FX).
MCDOSE_FORCEINLINE_FUNCTION void atomic_add_word(word64* addr, word64 value)
{
#if MCDOSE_DEVICE_COMPILE
    atomicAdd(addr, value);
#else
    __atomic_fetch_add(addr, value, __ATOMIC_RELAXED);
#endif
}

//! Double add through the 64-bit CAS loop (the "CAS" method).
MCDOSE_FORCEINLINE_FUNCTION void atomic_add_double_cas(word64* addr, double value)
{
    atomic_update(addr, [value](word64 old) { return bits_of(double_of(old) + value); });
}
} // namespace mcdose::detail
