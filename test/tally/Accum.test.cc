//! \file test/tally/Accum.test.cc
//! tally/accum/: TwoSum is error-free; each accumulator stays within its
//! documented bound over 10^7 terms; Narumi and fixed point are bitwise
//! identical under permutations of the terms.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ExactSum.hh"
#include "tally/accum/CompensatedSum.hh"
#include "tally/accum/DoubleWord.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/accum/NarumiSum.hh"
#include "tally/accum/TwoSum.hh"

namespace mcdose::test
{
namespace
{
using namespace mcdose::accum;

//---------------------------------------------------------------------------//
// TwoSum / FastTwoSum
//---------------------------------------------------------------------------//
//! Random value sign * [1,2) * 2^e with e in [-emax, emax] (all bits random).
template <class T>
T random_value(std::mt19937_64& rng, int emax)
{
    std::uniform_int_distribution<int> exp_dist(-emax, emax);
    std::uniform_real_distribution<T> mant(T(1), T(2));
    T const v = std::ldexp(mant(rng), exp_dist(rng));
    return (rng() & 1) ? -v : v;
}

//! a + b == s + e checked in 128-bit integers (unit 2^-(emax + 64) holds
//! every float/double with exponent >= -emax exactly).
template <class T>
void expect_error_free(T a, T b, SumAndError<T> r, char const* what)
{
    int const unit = -84; // every value with exponent >= -30 is a multiple of 2^-84
    int128 const lhs = to_units(a, unit) + to_units(b, unit);
    int128 const rhs = to_units(r.sum, unit) + to_units(r.error, unit);
    ASSERT_TRUE(lhs == rhs) << what << ": a=" << a << " b=" << b << " s=" << r.sum
                            << " e=" << r.error;
    // The error is at most half an ulp of the sum (round to nearest).
    ASSERT_LE(std::abs(r.error), std::abs(r.sum) * T(unit_roundoff<T>()) + T(0)) << what;
}

template <class T>
void check_two_sum_random()
{
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 200000; ++i)
    {
        T const a = random_value<T>(rng, 30);
        T const b = random_value<T>(rng, 30);
        expect_error_free(a, b, two_sum(a, b), "two_sum");
        expect_error_free(b, a, two_sum(b, a), "two_sum swapped");
        if (std::abs(a) >= std::abs(b))
            expect_error_free(a, b, fast_two_sum(a, b), "fast_two_sum");
        else
            expect_error_free(b, a, fast_two_sum(b, a), "fast_two_sum");
    }
}

TEST(TwoSumTest, ErrorFreeOnRandomFloat)
{
    check_two_sum_random<float>();
}
TEST(TwoSumTest, ErrorFreeOnRandomDouble)
{
    check_two_sum_random<double>();
}

template <class T>
void check_two_sum_adversarial()
{
    T const u = T(unit_roundoff<T>());
    T const big = std::ldexp(T(1), 30);
    T const tiny = std::ldexp(T(1), -30);
    std::vector<std::pair<T, T>> const cases = {
        {T(1), u},                        // exact tie: rounds to even, error u
        {T(1), T(3) * u},                 // tie rounding up
        {T(1), -u / 2},                   // just below 1
        {T(1) - u, u / 2},                // carry into the next binade
        {big, tiny},                      // |b| far below ulp(a): s = a, e = b
        {tiny, big},                      // same, reversed (TwoSum has no order rule)
        {big, -big},                      // exact cancellation
        {big, -(big - T(1))},             // Sterbenz
        {T(0.1), T(0.2)},                 // decimal literals
        {T(1) + T(2) * u, -(T(1) + u)},   // cancellation with nonzero error
        {std::nextafter(big, T(0)), big}, // sum overflows the binade
    };
    for (auto const& [a, b] : cases)
    {
        expect_error_free(a, b, two_sum(a, b), "two_sum");
        if (std::abs(a) >= std::abs(b))
            expect_error_free(a, b, fast_two_sum(a, b), "fast_two_sum");
    }
    // |b| below half an ulp of a: TwoSum returns (a, b) unchanged.
    auto const r = two_sum(big, tiny);
    EXPECT_EQ(big, r.sum);
    EXPECT_EQ(tiny, r.error);
}

TEST(TwoSumTest, ErrorFreeOnAdversarialFloat)
{
    check_two_sum_adversarial<float>();
}
TEST(TwoSumTest, ErrorFreeOnAdversarialDouble)
{
    check_two_sum_adversarial<double>();
}

//! A product passed straight into the sum must not be fused with it (FMA
//! contraction would make s and e disagree about the product's rounding).
TEST(TwoSumTest, CallerProductIsNotContracted)
{
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i)
    {
        double const a = random_value<double>(rng, 10);
        double const w = random_value<double>(rng, 10);
        double const x = random_value<double>(rng, 10);
        auto const r = two_sum(a, w * x);
        double const p = w * x;
        ASSERT_TRUE(to_units(a, -84) + to_units(p, -84) ==
                    to_units(r.sum, -84) + to_units(r.error, -84));
    }
}

//---------------------------------------------------------------------------//
// Accumulators over 10^7 terms
//---------------------------------------------------------------------------//
constexpr int term_unit_exp2 = -92; // every term >= 2^-40 is a multiple of 2^-92

//! 10^7 exponential deposits (mean 0.1 MeV) as T, all >= 2^-40.
template <class T>
std::vector<T> const& exponential_terms()
{
    static std::vector<T> const terms = []
    {
        std::mt19937_64 rng(20181108);
        std::exponential_distribution<double> dist(10.0);
        std::vector<T> v;
        v.reserve(10000000);
        while (v.size() < 10000000)
        {
            T const x = static_cast<T>(dist(rng));
            if (x >= std::ldexp(T(1), -40))
                v.push_back(x);
        }
        return v;
    }();
    return terms;
}

struct Reference
{
    ExactSum exact{term_unit_exp2};
    long double abs_sum{0};
    double n{0};
};

template <class T>
Reference make_reference(std::vector<T> const& terms)
{
    Reference r;
    for (T x : terms)
    {
        r.exact.add(x);
        r.abs_sum += std::abs(x);
    }
    r.n = double(terms.size());
    return r;
}

template <class T>
void report(char const* name, long double error, double bound, long double exact)
{
    std::cout << "  " << name << '<' << (sizeof(T) == 4 ? "float" : "double")
              << ">: |error|/S = " << double(std::abs(error) / exact)
              << ", bound/S = " << bound / double(exact) << '\n';
}

template <class T>
void check_accumulators()
{
    auto const& terms = exponential_terms<T>();
    Reference const ref = make_reference(terms);
    long double const exact = ref.exact.value();
    double const A = double(ref.abs_sum);

    // Naive recursive summation, for scale.
    T naive = 0;
    for (T x : terms)
        naive += x;
    long double const naive_error = ref.exact.error_of(naive);
    std::cout << "  naive<" << (sizeof(T) == 4 ? "float" : "double")
              << ">: |error|/S = " << double(std::abs(naive_error) / exact) << '\n';

    {
        KahanSum<T> k;
        for (T x : terms)
            k.add(x);
        long double const err = ref.exact.error_of(k.sum());
        double const bound = KahanSum<T>::error_bound(ref.n, A, double(exact));
        report<T>("Kahan", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
    }
    {
        NeumaierSum<T> s;
        for (T x : terms)
            s.add(x);
        long double const err = ref.exact.error_of(s.sum());
        double const bound = NeumaierSum<T>::error_bound(ref.n, A, double(exact));
        report<T>("Neumaier", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
    }
    {
        DoubleWordSum<T> s;
        for (T x : terms)
            s.add(x);
        long double const err = ref.exact.error_of(s.hi(), s.lo());
        double const bound = DoubleWordSum<T>::error_bound(ref.n, A, double(exact));
        report<T>("DoubleWord", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
        // Sanity: far better than naive summation (which stagnates in float).
        EXPECT_LT(std::abs(err), std::abs(naive_error));
    }
    {
        // Precondition |hi| >= |x|: lead with a term larger than all others
        // (every term here is < 4), included in the exact sum.
        NitadoriSum<T> s;
        ExactSum exact_n = ref.exact;
        s.add(T(4));
        exact_n.add(4);
        for (T x : terms)
            s.add(x);
        long double const err = exact_n.error_of(s.hi(), s.lo());
        double const bound = NitadoriSum<T>::error_bound(ref.n + 1, A + 4, double(exact));
        report<T>("Nitadori", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
    }
    {
        // large: power of two >= 2 max(|x|, |S_k|) (S < 2^20 here).
        T const large = std::ldexp(T(1), 22);
        ASSERT_LT(2 * exact, large);
        OffsetNitadoriSum<T> s(large);
        for (T x : terms)
            s.add(x);
        long double const err = ref.exact.error_of(s.value());
        double const bound = OffsetNitadoriSum<T>::error_bound(ref.n, double(large), double(exact));
        report<T>("OffsetNitadori", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
    }
    {
        // Quantum 2^-24 MeV; range 2^(31 + 16) q = 2^23 MeV > S.
        NarumiSum<8> s(-24);
        for (T x : terms)
            s.add(x);
        ASSERT_LT(exact, s.range());
        long double const err = ref.exact.error_of(s.value());
        double const bound = NarumiSum<8>::error_bound(ref.n, s.quantum());
        report<T>("Narumi", err, bound, exact);
        EXPECT_LE(std::abs(err), bound);
    }
    {
        FixedPointSum s(fixed_point_quantum_exp2(A));
        for (T x : terms)
            s.add(x);
        long double const err = ref.exact.error_of(s.value());
        double const bound = FixedPointSum::error_bound(ref.n, s.quantum());
        report<T>("FixedPoint", err, bound + double(exact) * 1.2e-16, exact);
        // value() rounds units * q to double once: allow that one rounding.
        EXPECT_LE(std::abs(err), bound + double(exact) * unit_roundoff<double>());
    }
}

TEST(AccumulatorTest, FloatTermsWithinBounds)
{
    check_accumulators<float>();
}
TEST(AccumulatorTest, DoubleTermsWithinBounds)
{
    check_accumulators<double>();
}

//---------------------------------------------------------------------------//
// Order independence
//---------------------------------------------------------------------------//
TEST(AccumulatorTest, NarumiAndFixedPointBitwiseUnderPermutations)
{
    // 10^6 terms of mixed sign and magnitude.
    std::mt19937_64 rng(99);
    std::vector<double> terms(1000000);
    for (auto& x : terms)
        x = random_value<double>(rng, 12);
    double abs_sum = 0;
    for (double x : terms)
        abs_sum += std::abs(x);
    int const fx_exp2 = fixed_point_quantum_exp2(abs_sum);
    // Range 2^(31+16-20) = 2^27: the signed partial sums (a random walk of
    // ~1e3 steps of ~2^11) stay far below it; the total is checked below.
    int const narumi_exp2 = -20;

    auto sums = [&](std::vector<double> const& v)
    {
        FixedPointSum fx(fx_exp2);
        NarumiSum<8> na(narumi_exp2);
        for (double x : v)
        {
            fx.add(x);
            na.add(x);
        }
        return std::make_pair(fx.units(), na.units());
    };
    auto const base = sums(terms);
    {
        NarumiSum<8> probe(narumi_exp2);
        ASSERT_LT(std::abs(double(base.second)) * probe.quantum(), probe.range());
    }
    std::vector<double> perm = terms;
    std::reverse(perm.begin(), perm.end());
    EXPECT_EQ(base, sums(perm));
    for (int trial = 0; trial < 3; ++trial)
    {
        std::shuffle(perm.begin(), perm.end(), rng);
        EXPECT_EQ(base, sums(perm)) << "shuffle " << trial;
    }
    // Sorted by magnitude, the worst order for floating-point sums.
    std::sort(perm.begin(), perm.end(),
              [](double a, double b) { return std::abs(a) > std::abs(b); });
    EXPECT_EQ(base, sums(perm));

    // Partial sums merged in any grouping give the same bits.
    FixedPointSum left(fx_exp2), right(fx_exp2);
    for (size_t i = 0; i < terms.size(); ++i)
        (i % 3 == 0 ? left : right).add(terms[i]);
    right.merge(left);
    EXPECT_EQ(base.first, right.units());
}

TEST(FixedPointTest, QuantumCoversTheBound)
{
    // Largest total representable after the choice: 2^62 units.
    for (double total : {1.0, 3.0, 1e6, 6e10, 0.75, 1e-3})
    {
        int const e = fixed_point_quantum_exp2(total);
        EXPECT_LE(total, std::ldexp(1.0, 62 + e)) << total;
        EXPECT_GT(total, std::ldexp(1.0, 61 + e)) << total; // finest such quantum
    }
    EXPECT_EQ(-62, fixed_point_quantum_exp2(1.0));
    EXPECT_EQ(-26, fixed_point_quantum_exp2(6e10)); // 3e9 particles x 10 x 2 MeV
}
} // namespace
} // namespace mcdose::test
