//! \file validation/crosscheck/md/AccumMethods.hh
//! The eight force-accumulation methods of the MD study (after Narumi et
//! al. 2008) as accumulator types with one interface:
//! `Acc(AccumConfig const&)`, `add(x)`, `value()` (double). They are thin
//! adapters over the project's compensated-sum primitives in tally/accum/.
#pragma once

#include <string>
#include <utility>

#include "core/Macros.hh"
#include "core/Types.hh"
#include "tally/accum/DoubleWord.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/accum/FloatOps.hh"
#include "tally/accum/NarumiSum.hh"

namespace mcdose::crosscheck
{
enum class AccumMethod
{
    A, //!< float force, float accumulation
    B, //!< float force, double accumulation
    C, //!< float force, Takahashi-Iitaka double-float accumulation
    D, //!< float force, Nitadori's 4-flop double-float accumulation
    E, //!< float force, modified Nitadori (LARGE offset)
    F, //!< float force, Narumi float + int32 (LOWER_SHIFT = 7)
    G, //!< double force, double accumulation (the reference)
    H  //!< float force, 64-bit fixed point (AMBER SPFP style)
};
inline constexpr int num_accum_methods = 8;

//! "A" ... "H".
char const* to_cstring(AccumMethod m);
//! One-line description, e.g. "float force + double accumulation".
char const* describe(AccumMethod m);
//! Parse "A".."H" (either case); throws RuntimeError naming the allowed values.
AccumMethod to_accum_method(std::string const& name);

//! Narumi et al.'s LOWER_SHIFT: carry from the float word every 2^7 additions.
inline constexpr int narumi_lower_shift = 7;
using NarumiAccum = accum::NarumiSum<narumi_lower_shift>;

//! Run-wide constants of the methods with a fixed binary point, derived from a
//! bound on every term and partial sum |sum f| of any particle [eps/sigma].
struct AccumConfig
{
    double force_bound{0};      //!< the bound the ranges below must hold
    float large_offset{0};      //!< E: LARGE, the power of two >= 2 force_bound
    int narumi_quantum_exp2{0}; //!< F: quantum 2^e; range 2^(31+B) q >= 2 force_bound
    int fixed_quantum_exp2{0};  //!< H: quantum 2^e; 2^52 q >= force_bound
};
//! The finest quanta (and smallest LARGE) that cannot overflow for `force_bound`.
AccumConfig make_accum_config(double force_bound);

//! Plain sum in Acc precision of terms given in float or double.
template <class Acc>
class PlainSum
{
  public:
    MCDOSE_FUNCTION explicit PlainSum(AccumConfig const&) {}
    template <class T>
    MCDOSE_FORCEINLINE_FUNCTION void add(T x)
    {
        sum_ += Acc(x);
    }
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(sum_); }

  private:
    Acc sum_{0};
};

//! C: Takahashi-Iitaka double-float (tally/accum/DoubleWord.hh).
class DoubleFloatAccum : public accum::DoubleWordSum<float>
{
  public:
    MCDOSE_FUNCTION explicit DoubleFloatAccum(AccumConfig const&) {}
};

/*!
 * D: Nitadori's 4-flop double-float, *without* its precondition |hi| >= |x|:
 * an MD force sum violates it whenever partial sums cancel, which is what the
 * study measures (E is the cure). tally/accum's NitadoriSum checks the
 * precondition with MCDOSE_EXPECT (debug builds throw), so this applies the
 * same update unchecked, with its add_rn/sub_rn.
 * TODO(tally/accum/DoubleWord.hh): use NitadoriSum once it offers an
 * unchecked add.
 */
class NitadoriAccum
{
  public:
    MCDOSE_FUNCTION explicit NitadoriAccum(AccumConfig const&) {}
    MCDOSE_FORCEINLINE_FUNCTION void add(float x)
    {
        float const t = accum::add_rn(hi_, x);
        lo_ = accum::add_rn(lo_, accum::sub_rn(x, accum::sub_rn(t, hi_)));
        hi_ = t;
    }
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return double(hi_) + double(lo_); }

  private:
    float hi_{0};
    float lo_{0};
};

//! E: modified Nitadori with the LARGE offset (tally/accum/DoubleWord.hh).
class OffsetNitadoriAccum : public accum::OffsetNitadoriSum<float>
{
  public:
    MCDOSE_FUNCTION explicit OffsetNitadoriAccum(AccumConfig const& c)
        : accum::OffsetNitadoriSum<float>(c.large_offset)
    {
    }
};

//! F: Narumi float + int32, LOWER_SHIFT = 7 (tally/accum/NarumiSum.hh).
class NarumiForceAccum : public NarumiAccum
{
  public:
    MCDOSE_FUNCTION explicit NarumiForceAccum(AccumConfig const& c)
        : NarumiAccum(c.narumi_quantum_exp2)
    {
    }
};

//! H: 64-bit fixed point (tally/accum/FixedPoint.hh).
class FixedForceAccum : public accum::FixedPointSum
{
  public:
    MCDOSE_FUNCTION explicit FixedForceAccum(AccumConfig const& c)
        : accum::FixedPointSum(c.fixed_quantum_exp2)
    {
    }
};

//! Pair-force precision and accumulator of a method.
template <class ForceReal, class Accumulator>
struct MethodTraits
{
    using force_real = ForceReal;
    using accumulator = Accumulator;
};

template <AccumMethod M>
struct AccumTraits;
// clang-format off
template<> struct AccumTraits<AccumMethod::A> : MethodTraits<float, PlainSum<float>> {};
template<> struct AccumTraits<AccumMethod::B> : MethodTraits<float, PlainSum<double>> {};
template<> struct AccumTraits<AccumMethod::C> : MethodTraits<float, DoubleFloatAccum> {};
template<> struct AccumTraits<AccumMethod::D> : MethodTraits<float, NitadoriAccum> {};
template<> struct AccumTraits<AccumMethod::E> : MethodTraits<float, OffsetNitadoriAccum> {};
template<> struct AccumTraits<AccumMethod::F> : MethodTraits<float, NarumiForceAccum> {};
template<> struct AccumTraits<AccumMethod::G> : MethodTraits<double, PlainSum<double>> {};
template<> struct AccumTraits<AccumMethod::H> : MethodTraits<float, FixedForceAccum> {};
// clang-format on

//! Not a method: sums |f_ij| per component in double, to measure the bound
//! on partial sums from which AccumConfig is made (measure_force_bound).
class AbsSum
{
  public:
    MCDOSE_FUNCTION explicit AbsSum(AccumConfig const&) {}
    MCDOSE_FORCEINLINE_FUNCTION void add(double x) { sum_ += x < 0 ? -x : x; }
    MCDOSE_FORCEINLINE_FUNCTION double value() const { return sum_; }

  private:
    double sum_{0};
};
struct AbsBoundTraits : MethodTraits<double, AbsSum>
{
};

//! Not a method: the float pair forces summed in double-double (~106 bits,
//! tally/accum/DoubleWord.hh), i.e. exactly for this study's purpose. The
//! difference of a float-force method from it is its accumulation error alone.
class DoubleDoubleAccum : public accum::DoubleWordSum<double>
{
  public:
    MCDOSE_FUNCTION explicit DoubleDoubleAccum(AccumConfig const&) {}
};
struct ExactFloatForceTraits : MethodTraits<float, DoubleDoubleAccum>
{
};

template <AccumMethod M>
using AccumTag = std::integral_constant<AccumMethod, M>;

//! Call f(AccumTag<M>{}) for the run-time method.
template <class F>
decltype(auto) dispatch_accum_method(AccumMethod m, F&& f)
{
    switch (m)
    {
    case AccumMethod::A:
        return f(AccumTag<AccumMethod::A>{});
    case AccumMethod::B:
        return f(AccumTag<AccumMethod::B>{});
    case AccumMethod::C:
        return f(AccumTag<AccumMethod::C>{});
    case AccumMethod::D:
        return f(AccumTag<AccumMethod::D>{});
    case AccumMethod::E:
        return f(AccumTag<AccumMethod::E>{});
    case AccumMethod::F:
        return f(AccumTag<AccumMethod::F>{});
    case AccumMethod::G:
        return f(AccumTag<AccumMethod::G>{});
    case AccumMethod::H:
        return f(AccumTag<AccumMethod::H>{});
    }
    return f(AccumTag<AccumMethod::G>{});
}
} // namespace mcdose::crosscheck
