//! \file core/Types.hh
//! Basic types and the precision switch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/Macros.hh"

namespace mcdose
{
using size_type = std::size_t;
using history_id_type = std::uint64_t;

//! Where data lives: host or device memory (e.g. per-thread RNG states).
enum class MemSpace
{
    host,
    device
};

//! Floating-point precision of the transport: a template parameter, not a copy of the code.
enum class Precision
{
    single_, //!< float
    double_  //!< double
};

template <Precision P>
struct RealOf;
template <>
struct RealOf<Precision::single_>
{
    using type = float;
};
template <>
struct RealOf<Precision::double_>
{
    using type = double;
};
//! `Real<P>` is float or double.
template <Precision P>
using Real = typename RealOf<P>::type;

//! Parse "float"/"single" or "double" (throws RuntimeError on anything else).
Precision to_precision(std::string const& name);
char const* to_cstring(Precision p);

//! Which machine runs the transport.
enum class Backend
{
    automatic, //!< GPU if one is present, else CPU
    gpu,
    cpu
};
Backend to_backend(std::string const& name);
char const* to_cstring(Backend b);

//! Call f(std::integral_constant<Precision, P>{}) for the runtime precision.
template <class F>
decltype(auto) dispatch_precision(Precision p, F&& f)
{
    if (p == Precision::single_)
        return f(std::integral_constant<Precision, Precision::single_>{});
    return f(std::integral_constant<Precision, Precision::double_>{});
}

} // namespace mcdose
