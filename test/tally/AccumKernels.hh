//! \file test/tally/AccumKernels.hh
//! The accumulator scenario shared by the host and device runs of
//! TallyDeviceTest.AccumulatorsBitwiseEqualOnHostAndDevice.
#pragma once

#include "core/Macros.hh"
#include "core/Span.hh"
#include "tally/accum/CompensatedSum.hh"
#include "tally/accum/DoubleWord.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/accum/NarumiSum.hh"
#include "tally/accum/TwoSum.hh"

namespace mcdose::test
{
constexpr int num_accumulators = 8;

//! Accumulator `which` over all terms; returns its value().
MCDOSE_FUNCTION inline double run_accumulator(int which, Span<float const> terms)
{
    using namespace mcdose::accum;
    auto run = [&](auto acc)
    {
        for (float x : terms)
            acc.add(x);
        return acc.value();
    };
    switch (which)
    {
    case 0:
        return run(KahanSum<float>{});
    case 1:
        return run(NeumaierSum<float>{});
    case 2:
        return run(DoubleWordSum<float>{});
    case 3:
    {
        NitadoriSum<float> s;
        s.add(4.0f); // precondition |hi| >= |x|: terms are < 4
        return run(s);
    }
    case 4:
        return run(OffsetNitadoriSum<float>(32768.0f)); // > 2 x the sum
    case 5:
        return run(NarumiSum<8>(-24));
    case 6:
        return run(FixedPointSum(-40));
    default:
        return run(DoubleWordSum<double>{});
    }
}

//! TwoSum(a, w * x) with the product written inline, as a caller would: an
//! FMA-contracted first addition would change the bits on the device.
MCDOSE_FUNCTION inline accum::SumAndError<float> two_sum_of_product(float a, float w, float x)
{
    return accum::two_sum(a, w * x);
}
} // namespace mcdose::test
