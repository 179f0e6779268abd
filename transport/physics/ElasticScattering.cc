//! \file transport/physics/ElasticScattering.cc
#include "transport/physics/ElasticScattering.hh"

#include <cmath>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "transport/physics/Quadrature.hh"

namespace mcdose
{
using namespace constants;

double moliere_screening_parameter(int Z, double T_MeV)
{
    double const pc_MeV = std::sqrt(T_MeV * (T_MeV + 2 * electron_mass_MeV));
    double const beta = pc_MeV / (T_MeV + electron_mass_MeV);
    double const a_tf_cm = 0.885 * bohr_radius_cm / std::cbrt(static_cast<double>(Z));
    double const hbar_over_p_cm = hbar_c_MeV_cm / pc_MeV;
    double const r = hbar_over_p_cm / (2 * a_tf_cm);
    double const az_b = fine_structure * Z / beta;
    return r * r * (1.13 + 3.76 * az_b * az_b);
}

namespace
{
//! 2 pi int w(u) dsigma/dOmega d cos theta with u = sin^2(theta/2) (1 - mu = 2u).
template <class W>
double elastic_moment_cm2(int Z, double T_MeV, bool positron, W&& weight)
{
    MCDOSE_EXPECT(T_MeV > 0);
    double const gamma = 1 + T_MeV / electron_mass_MeV;
    double const beta2 = 1 - 1 / (gamma * gamma);
    double const beta = std::sqrt(beta2);
    double const A = moliere_screening_parameter(Z, T_MeV);
    // dsigma/dOmega = Z(Z+1) r_e^2 / (beta^4 gamma^2) / (1 - mu + 2A)^2 * R(theta).
    // With u = sin^2(theta/2): 1 - mu = 2u, dOmega = 4 pi du.
    double const pref = Z * (Z + 1.0) * classical_electron_radius_cm *
                        classical_electron_radius_cm / (beta2 * beta2 * gamma * gamma);
    double const sign = positron ? -1.0 : 1.0;
    double const lo = std::log(A * 1e-6);
    int const panels = std::max(8, static_cast<int>(std::ceil(-lo / 1.5)));
    double const integral = integrate_gl8(
        [&](double lnu)
        {
            double const u = std::exp(lnu);
            double const s = std::sqrt(u);
            double const mott = 1 - beta2 * u + sign * pi * fine_structure * Z * beta * s * (1 - s);
            double const ruth = 1 / ((2 * u + 2 * A) * (2 * u + 2 * A));
            return u * 4 * pi * ruth * weight(u) * mott; // u: Jacobian of ln u
        },
        lo, 0.0, panels);
    return pref * integral;
}
} // namespace

double elastic_transport_cross_section_cm2(int Z, double T_MeV, bool positron)
{
    // 1 - P_1 = 1 - mu = 2u
    return elastic_moment_cm2(Z, T_MeV, positron, [](double u) { return 2 * u; });
}

double elastic_second_transport_cross_section_cm2(int Z, double T_MeV, bool positron)
{
    // 1 - P_2 = (3/2)(1 - mu^2) = 6 u (1 - u)
    return elastic_moment_cm2(Z, T_MeV, positron, [](double u) { return 6 * u * (1 - u); });
}
} // namespace mcdose
