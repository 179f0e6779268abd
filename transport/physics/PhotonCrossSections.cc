//! \file transport/physics/PhotonCrossSections.cc
#include "transport/physics/PhotonCrossSections.hh"

#include <algorithm>
#include <cmath>

#include <xraylib.h>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "transport/physics/Screening.hh"
#include "phantoms/materials/Element.hh"
#include "transport/physics/Quadrature.hh"

namespace mcdose
{
namespace
{
using namespace constants;

//! h c [keV Angstrom]: converts photon energy to the momentum-transfer variable
//! x = sin(theta/2) / lambda [1/Angstrom] used by xraylib's F and S.
constexpr double hc_keV_angstrom = two_pi * hbar_c_MeV_cm * 1e3 * 1e8;
//! Thomson cross-section scale r_e^2 [cm^2].
constexpr double re2_cm2 = classical_electron_radius_cm * classical_electron_radius_cm;

double per_atom_to_cm2_g(int Z)
{
    return avogadro / element_data(Z).atomic_weight_g_mol;
}

//! Call an xraylib function of (Z, x) and fail loudly on its error.
template<class F>
double xrl(F&& f, int Z, double x, char const* name)
{
    xrl_error* err = nullptr;
    double const v = f(Z, x, &err);
    if (err)
    {
        std::string msg = err->message;
        xrl_error_free(err);
        MCDOSE_VALIDATE(false, << "xraylib " << name << "(Z=" << Z << ", " << x
                               << ") failed: " << msg);
    }
    return v;
}

//! Smallest momentum transfer of xraylib's F and S tables [1/Angstrom]; below it
//! F is constant (F(0) = Z) and S ~ x^2 (Hubbell et al. 1975, Sec. 3).
constexpr double x_table_min = 1e-3;

double form_factor(int Z, double x)
{
    return xrl(FF_Rayl, Z, std::max(x, x_table_min), "FF_Rayl");
}

double incoherent_function(int Z, double x)
{
    if (x >= x_table_min)
        return xrl(SF_Compt, Z, x, "SF_Compt");
    double const r = x / x_table_min;
    return xrl(SF_Compt, Z, x_table_min, "SF_Compt") * r * r;
}

//! Integrate g(u) over u = sin^2(theta/2) in [u_min, 1] in the variable ln u.
//! u_min is where the momentum transfer x = k_A sqrt(u) is 1e-5 1/Angstrom: below it
//! the integrands vanish like u (incoherent) or contribute < 1e-9 relative (coherent).
template<class G>
void integrate_over_u(double k_angstrom, G&& visit)
{
    double const x_min = 1e-5;
    double const u_min = std::min(1e-3, (x_min / k_angstrom) * (x_min / k_angstrom));
    double const v_min = std::log(u_min);
    int const panels = std::max(6, static_cast<int>(-v_min / 3));
    // visit(u, w): w is the quadrature weight including the Jacobian du = u dv.
    static GaussLegendre<8> const rule;
    double const h = -v_min / panels;
    for (int p = 0; p < panels; ++p)
    {
        double const mid = v_min + (p + 0.5) * h;
        for (int i = 0; i < 8; ++i)
        {
            double const u = std::exp(mid + 0.5 * h * rule.x[i]);
            visit(u, 0.5 * h * rule.w[i] * u);
        }
    }
}


//! Ratio of the screened (with Coulomb correction) to the unscreened extreme-
//! relativistic Bethe–Heitler pair cross sections (Bethe & Heitler 1934; Tsai, RMP 46,
//! 815 (1974), Eq. 3.9 with the Butcher–Messel screening functions). The energy
//! sharing eps runs over [1/k, 1 - 1/k] (each lepton has at least m c^2).
double pair_screening_ratio(int Z, double k, bool coulomb)
{
    // Below k = 8 (4 MeV) the extreme-relativistic form is not meaningful and the
    // screening variable exceeds ~30, where screening changes the cross section by
    // less than 1%: freeze the ratio at its k = 8 value.
    k = std::max(k, 8.0);
    double const z13 = std::cbrt(static_cast<double>(Z));
    double const lnz = std::log(static_cast<double>(Z));
    double const fc = coulomb ? coulomb_correction(Z) : 0.0;
    auto screened = [&](double eps) {
        double const e1e2 = eps * (1 - eps);
        double const delta = 136.0 / (z13 * k * e1e2);
        double phi1;
        double phi2;
        butcher_messel_screening(delta, &phi1, &phi2);
        double const f = 4.0 / 3.0 * lnz + 4 * fc;
        double const val = (eps * eps + (1 - eps) * (1 - eps)) * (phi1 - f)
                           + 2.0 / 3.0 * e1e2 * (phi2 - f);
        return std::max(val, 0.0);
    };
    auto unscreened = [&](double eps) {
        double const e1e2 = eps * (1 - eps);
        double const phi_u = 4 * (std::log(2 * k * e1e2) - 0.5);
        return std::max((1 - 4 * e1e2 / 3.0) * phi_u, 0.0);  // eps^2+(1-eps)^2+2/3 e1e2
    };
    double const lo = 1 / k;
    double const num = integrate_gl8(screened, lo, 0.5, 8);
    double const den = integrate_gl8(unscreened, lo, 0.5, 8);
    MCDOSE_ASSERT(den > 0);
    return std::min(1.0, num / den);
}
}  // namespace

double sauter_k_shell_shape(double energy_MeV)
{
    // Davisson & Evans (1952) Eq. 9 with k = photon energy / m c^2 and gamma = 1 + k
    // (binding neglected): sigma_K ~ (gamma^2-1)^{3/2} / k^5 * [4/3 + gamma(gamma-2)/(gamma+1)
    //   * (1 - ln((gamma + sqrt(gamma^2-1)) / (gamma - sqrt(gamma^2-1))) / (2 gamma sqrt(gamma^2-1)))]
    double const k = energy_MeV / electron_mass_MeV;
    double const g = 1 + k;
    double const s = std::sqrt(g * g - 1);
    double const bracket = 4.0 / 3.0
                           + g * (g - 2) / (g + 1)
                                 * (1 - std::log((g + s) / (g - s)) / (2 * g * s));
    return s * s * s / std::pow(k, 5) * bracket;
}

double photoelectric_cm2_g(int Z, double energy_MeV)
{
    MCDOSE_EXPECT(energy_MeV > 0);
    if (energy_MeV <= xraylib_photo_limit_MeV)
        return xrl(CS_Photo, Z, energy_MeV * 1e3, "CS_Photo");
    double const at_limit = xrl(CS_Photo, Z, xraylib_photo_limit_MeV * 1e3, "CS_Photo");
    return at_limit * sauter_k_shell_shape(energy_MeV)
           / sauter_k_shell_shape(xraylib_photo_limit_MeV);
}

IncoherentSpectrum incoherent_spectrum(int Z, double energy_MeV)
{
    MCDOSE_EXPECT(energy_MeV > 0);
    double const kappa = energy_MeV / electron_mass_MeV;
    double const k_angstrom = energy_MeV * 1e3 / hc_keV_angstrom;
    double const conv = per_atom_to_cm2_g(Z);
    IncoherentSpectrum result;
    integrate_over_u(k_angstrom, [&](double u, double weight) {
        double const one_minus_mu = 2 * u;
        double const ratio = 1 / (1 + kappa * one_minus_mu);  // E'/E
        double const sin2 = one_minus_mu * (2 - one_minus_mu);
        // d sigma_KN / d Omega = r_e^2/2 (E'/E)^2 (E'/E + E/E' - sin^2 theta); dOmega = 4 pi du
        double const dkn = 0.5 * re2_cm2 * ratio * ratio * (ratio + 1 / ratio - sin2);
        double const s = incoherent_function(Z, k_angstrom * std::sqrt(u));
        result.t_fraction.push_back(1 - ratio);
        result.dsigma_cm2_g.push_back(weight * 4 * pi * dkn * s * conv);
    });
    return result;
}

IncoherentIntegrals incoherent_integrals(int Z, double energy_MeV,
                                         std::function<double(double)> const& yield_of_T_MeV)
{
    auto const spec = incoherent_spectrum(Z, energy_MeV);
    IncoherentIntegrals r;
    for (std::size_t i = 0; i < spec.t_fraction.size(); ++i)
    {
        double const ds = spec.dsigma_cm2_g[i];
        double const t = spec.t_fraction[i];
        r.sigma_cm2_g += ds;
        r.energy_transfer_cm2_g += ds * t;
        if (yield_of_T_MeV)
            r.radiated_cm2_g += ds * t * yield_of_T_MeV(t * energy_MeV);
    }
    return r;
}

double coherent_cm2_g(int Z, double energy_MeV)
{
    MCDOSE_EXPECT(energy_MeV > 0);
    double const k_angstrom = energy_MeV * 1e3 / hc_keV_angstrom;
    double sigma = 0;
    integrate_over_u(k_angstrom, [&](double u, double weight) {
        double const mu = 1 - 2 * u;
        double const f = form_factor(Z, k_angstrom * std::sqrt(u));
        // d sigma / d Omega = r_e^2/2 (1 + cos^2 theta) F^2; dOmega = 4 pi du
        sigma += weight * 4 * pi * 0.5 * re2_cm2 * (1 + mu * mu) * f * f;
    });
    return sigma * per_atom_to_cm2_g(Z);
}

double coulomb_correction(int Z)
{
    // Davies, Bethe & Maximon (1954), Eq. 36, as fitted in Tsai (1974) Eq. 3.3.
    double const a2 = (fine_structure * Z) * (fine_structure * Z);
    return a2 * (1 / (1 + a2) + 0.20206 - 0.0369 * a2 + 0.0083 * a2 * a2 - 0.002 * a2 * a2 * a2);
}

double maximon_pair_reduced(double k)
{
    if (k <= 2)
        return 0;
    if (k < 4)
    {
        // Maximon (1968) Eq. 3.1 (low-energy expansion, exact Born, no screening)
        double const eps = (2 * k - 4) / (2 + k + 2 * std::sqrt(2 * k));
        double const r = (k - 2) / k;
        return 2 * pi / 3 * r * r * r
               * (1 + eps / 2 + 23 * eps * eps / 40 + 11 * std::pow(eps, 3) / 60
                  + 29 * std::pow(eps, 4) / 960);
    }
    // Maximon (1968) Eq. 3.2 (high-energy expansion)
    constexpr double zeta3 = 1.2020569031595942;
    double const l = std::log(2 * k);
    double const t = 2 / k;
    double const t2 = t * t;
    return 28.0 / 9 * l - 218.0 / 27
           + t2
                 * (6 * l - 3.5 + 2.0 / 3 * l * l * l - l * l - pi * pi / 3 * l + 2 * zeta3
                    + pi * pi / 6)
           - t2 * t2 * (3.0 / 16 * l + 1.0 / 8)
           - t2 * t2 * t2 * (29.0 / 2304 * l - 77.0 / 13824);
}

double pair_nuclear_cm2_g(int Z, double energy_MeV)
{
    double const k = energy_MeV / electron_mass_MeV;
    if (k <= 2)
        return 0;
    double const sigma_atom = fine_structure * re2_cm2 * Z * Z * maximon_pair_reduced(k)
                              * pair_screening_ratio(Z, k, true);
    return sigma_atom * per_atom_to_cm2_g(Z);
}

double pair_electron_cm2_g(int Z, double energy_MeV)
{
    double const k = energy_MeV / electron_mass_MeV;
    if (k <= 4)
        return 0;
    // Map the photon energy so that the one-electron cross section has the triplet
    // threshold k = 4 and, at high energy, Borsellino's asymptote
    // alpha r_e^2 (28/9 ln 2k - 11.3), given that the nuclear one tends to
    // alpha r_e^2 (28/9 ln 2k - 218/27): sigma_e(k) = sigma_nuc,Z=1(2 + c (k - 4)) with
    // ln c = -(11.3 - 218/27) 9/28. Screening by the other electrons is approximated by
    // the atomic screening ratio of the nuclear term (no Coulomb correction).
    double const c = std::exp(-(11.3 - 218.0 / 27) * 9.0 / 28);
    double const k_eff = 2 + c * (k - 4);
    double const sigma_atom = fine_structure * re2_cm2 * Z * maximon_pair_reduced(k_eff)
                              * pair_screening_ratio(Z, k, false);
    return sigma_atom * per_atom_to_cm2_g(Z);
}

std::vector<double> photo_edges_MeV(int Z, double emin_MeV, double emax_MeV)
{
    std::vector<double> edges;
    for (int shell = K_SHELL; shell <= P5_SHELL; ++shell)
    {
        xrl_error* err = nullptr;
        double const e_keV = EdgeEnergy(Z, shell, &err);
        if (err)
        {
            xrl_error_free(err);
            continue;
        }
        double const e = e_keV * 1e-3;
        if (e > emin_MeV && e < emax_MeV)
            edges.push_back(e);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    return edges;
}
}  // namespace mcdose
