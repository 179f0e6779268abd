//! \file transport/physics/Quadrature.hh
//! Composite Gauss–Legendre quadrature for the host-side table builders.
#pragma once

#include <array>
#include <cmath>

#include "core/Constants.hh"

namespace mcdose
{
//! Nodes and weights of the N-point Gauss–Legendre rule on [-1, 1], found by
//! Newton iteration on P_N (Press et al., Numerical Recipes 3rd ed., Sec. 4.6.1).
template <int N>
struct GaussLegendre
{
    std::array<double, N> x{};
    std::array<double, N> w{};

    GaussLegendre()
    {
        for (int i = 0; i < (N + 1) / 2; ++i)
        {
            double z = std::cos(constants::pi * (i + 0.75) / (N + 0.5));
            double dp = 0;
            for (int iter = 0; iter < 100; ++iter)
            {
                double p1 = 1;
                double p2 = 0;
                for (int j = 0; j < N; ++j)
                {
                    double const p3 = p2;
                    p2 = p1;
                    p1 = ((2 * j + 1) * z * p2 - j * p3) / (j + 1);
                }
                dp = N * (z * p1 - p2) / (z * z - 1);
                double const z_old = z;
                z = z_old - p1 / dp;
                if (std::fabs(z - z_old) < 1e-15)
                    break;
            }
            x[i] = -z;
            x[N - 1 - i] = z;
            w[i] = w[N - 1 - i] = 2 / ((1 - z * z) * dp * dp);
        }
    }
};

//! Integral of f over [a, b] with `panels` equal panels of an 8-point rule.
template <class F>
double integrate_gl8(F&& f, double a, double b, int panels)
{
    static GaussLegendre<8> const rule;
    double const h = (b - a) / panels;
    double sum = 0;
    for (int p = 0; p < panels; ++p)
    {
        double const mid = a + (p + 0.5) * h;
        for (int i = 0; i < 8; ++i)
            sum += rule.w[i] * f(mid + 0.5 * h * rule.x[i]);
    }
    return 0.5 * h * sum;
}
} // namespace mcdose
