//! \file transport/physics/PhotonCrossSections.cc
#include "transport/physics/PhotonCrossSections.hh"

#include <algorithm>
#include <cmath>

#include <xraylib.h>

#include "core/Assert.hh"
#include "core/Constants.hh"
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
template <class F>
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
template <class G>
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

//! Reduced Compton wavelength hbar / (m c) [Angstrom]: converts a momentum transfer q in
//! units of m c to xraylib's x = sin(theta/2) / lambda = q / (4 pi) [1/Angstrom].
constexpr double compton_wavelength_bar_angstrom = hbar_c_MeV_cm / electron_mass_MeV * 1e8;

double x_of_q(double q_mc)
{
    return q_mc / (2 * two_pi * compton_wavelength_bar_angstrom);
}

//! Screening corrections Delta Phi_1, Delta Phi_2 of the Bethe–Heitler high-energy pair
//! functions for a general atomic form factor F(q) (Bethe & Heitler, Proc. R. Soc. A 146,
//! 83 (1934); Heitler, The Quantum Theory of Radiation, 3rd ed. (1954), Sec. 26), with the
//! momentum transfer q and delta = q_min = 1 / (2 k eps (1 - eps)) in units of m c:
//!   Phi_1(delta) = 4 int_delta^1 (q - delta)^2 / q^3 [1 - F(q)/Z]^2 dq + 4,
//!   Phi_2(delta) = 4 int_delta^1 [q^3 - 6 delta^2 q ln(q/delta) + 3 delta^2 q - 4 delta^3]
//!                  / q^4 [1 - F(q)/Z]^2 dq + 10/3;
//! with F = 0 both reduce to the unscreened -4 ln(delta) - 2. Returned: the screened minus
//! the unscreened values, i.e. the integrals with [1 - F/Z]^2 - 1 (zero for delta >= 1;
//! F(q > m c) is negligible for the light and medium elements this is used for).
void bethe_heitler_screening_delta_phi(int Z, double delta, double* d_phi1, double* d_phi2)
{
    *d_phi1 = *d_phi2 = 0;
    if (delta >= 1)
        return;
    double const z = Z;
    double const a = std::log(delta);
    int const panels = std::max(4, static_cast<int>(std::ceil(-a)));
    static GaussLegendre<8> const rule;
    double const h = -a / panels;
    double const d2 = delta * delta;
    for (int p = 0; p < panels; ++p)
    {
        double const mid = a + (p + 0.5) * h;
        for (int i = 0; i < 8; ++i)
        {
            double const q = std::exp(mid + 0.5 * h * rule.x[i]);
            double const w = 0.5 * h * rule.w[i] * q; // dq = q d ln q
            double const one_minus_f = 1 - form_factor(Z, x_of_q(q)) / z;
            double const g = one_minus_f * one_minus_f - 1;
            *d_phi1 += w * 4 * (q - delta) * (q - delta) / (q * q * q) * g;
            *d_phi2 +=
                w * 4 *
                (q * q * q - 6 * d2 * q * std::log(q / delta) + 3 * d2 * q - 4 * d2 * delta) /
                (q * q * q * q) * g;
        }
    }
}
} // namespace

double sauter_k_shell_shape(double energy_MeV)
{
    // Davisson & Evans (1952) Eq. 9 with k = photon energy / m c^2 and gamma = 1 + k
    // (binding neglected): sigma_K ~ (gamma^2-1)^{3/2} / k^5 * [4/3 + gamma(gamma-2)/(gamma+1)
    //   * (1 - ln((gamma + sqrt(gamma^2-1)) / (gamma - sqrt(gamma^2-1))) / (2 gamma
    //   sqrt(gamma^2-1)))]
    double const k = energy_MeV / electron_mass_MeV;
    double const g = 1 + k;
    double const s = std::sqrt(g * g - 1);
    double const bracket =
        4.0 / 3.0 + g * (g - 2) / (g + 1) * (1 - std::log((g + s) / (g - s)) / (2 * g * s));
    return s * s * s / std::pow(k, 5) * bracket;
}

double photoelectric_cm2_g(int Z, double energy_MeV)
{
    MCDOSE_EXPECT(energy_MeV > 0);
    if (energy_MeV <= xraylib_photo_limit_MeV)
        return xrl(CS_Photo, Z, energy_MeV * 1e3, "CS_Photo");
    double const at_limit = xrl(CS_Photo, Z, xraylib_photo_limit_MeV * 1e3, "CS_Photo");
    return at_limit * sauter_k_shell_shape(energy_MeV) /
           sauter_k_shell_shape(xraylib_photo_limit_MeV);
}

IncoherentSpectrum incoherent_spectrum(int Z, double energy_MeV)
{
    MCDOSE_EXPECT(energy_MeV > 0);
    double const kappa = energy_MeV / electron_mass_MeV;
    double const k_angstrom = energy_MeV * 1e3 / hc_keV_angstrom;
    double const conv = per_atom_to_cm2_g(Z);
    IncoherentSpectrum result;
    integrate_over_u(k_angstrom,
                     [&](double u, double weight)
                     {
                         double const one_minus_mu = 2 * u;
                         double const ratio = 1 / (1 + kappa * one_minus_mu); // E'/E
                         double const sin2 = one_minus_mu * (2 - one_minus_mu);
                         // d sigma_KN / d Omega = r_e^2/2 (E'/E)^2 (E'/E + E/E' - sin^2 theta);
                         // dOmega = 4 pi du
                         double const dkn =
                             0.5 * re2_cm2 * ratio * ratio * (ratio + 1 / ratio - sin2);
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
    integrate_over_u(k_angstrom,
                     [&](double u, double weight)
                     {
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
        return 2 * pi / 3 * r * r * r *
               (1 + eps / 2 + 23 * eps * eps / 40 + 11 * std::pow(eps, 3) / 60 +
                29 * std::pow(eps, 4) / 960);
    }
    // Maximon (1968) Eq. 3.2 (high-energy expansion)
    constexpr double zeta3 = 1.2020569031595942;
    double const l = std::log(2 * k);
    double const t = 2 / k;
    double const t2 = t * t;
    return 28.0 / 9 * l - 218.0 / 27 +
           t2 * (6 * l - 3.5 + 2.0 / 3 * l * l * l - l * l - pi * pi / 3 * l + 2 * zeta3 +
                 pi * pi / 6) -
           t2 * t2 * (3.0 / 16 * l + 1.0 / 8) - t2 * t2 * t2 * (29.0 / 2304 * l - 77.0 / 13824);
}

double pair_nuclear_reduced(int Z, double k)
{
    if (k <= 2)
        return 0;
    // Extreme-relativistic Bethe–Heitler energy spectrum per (alpha r_e^2 Z^2), eps the
    // positron's share of k: [eps^2 + (1-eps)^2] Phi_1 + 2/3 eps (1-eps) Phi_2, minus the
    // Coulomb term 4 f_c in both brackets (Davies, Bethe & Maximon 1954). The screening
    // correction is the difference of this form from the unscreened one, added to Maximon's
    // exact unscreened Born total, as Hubbell, Gimm & Overbo (JPCRD 9, 1023 (1980)) combine
    // them; eps runs over [1/k, 1 - 1/k] (each lepton has at least m c^2), symmetric about
    // 1/2.
    double const lo = 1 / k;
    double const screening =
        2 * integrate_gl8(
                [&](double eps)
                {
                    double const e1e2 = eps * (1 - eps);
                    double d1;
                    double d2;
                    bethe_heitler_screening_delta_phi(Z, 1 / (2 * k * e1e2), &d1, &d2);
                    return (1 - 2 * e1e2) * d1 + 2.0 / 3.0 * e1e2 * d2;
                },
                lo, 0.5, 8);
    // Coulomb correction: the fraction -4 f_c int [1 - 4/3 eps(1-eps)] / int [1 - 4/3
    // eps(1-eps)] Phi_u that it removes from the extreme-relativistic spectrum (-> -28/9 f_c
    // per 28/9 ln 2k - 218/27 at high energy). Below k = 8 (4 MeV) that form is not
    // meaningful (Phi_u turns negative at the ends of the eps range, and the Coulomb
    // correction itself shrinks towards threshold, Overbo 1977): the fraction is frozen at
    // its k = 8 value there.
    double const kc = std::max(k, 8.0);
    double const a = 1 / kc;
    double const coulomb_int =
        (1 - 2 * a) - 4.0 / 3.0 * (1.0 / 6.0 - a * a + 2.0 / 3.0 * a * a * a);
    double const unscreened_int = 2 * integrate_gl8(
                                          [&](double eps)
                                          {
                                              double const e1e2 = eps * (1 - eps);
                                              double const phi_u =
                                                  4 * (std::log(2 * kc * e1e2) - 0.5);
                                              return std::max((1 - 4 * e1e2 / 3.0) * phi_u, 0.0);
                                          },
                                          a, 0.5, 8);
    MCDOSE_ASSERT(unscreened_int > 0);
    double const coulomb_fraction = -4 * coulomb_correction(Z) * coulomb_int / unscreened_int;
    return std::max(0.0, (maximon_pair_reduced(k) + screening) * (1 + coulomb_fraction));
}

double pair_nuclear_cm2_g(int Z, double energy_MeV)
{
    double const k = energy_MeV / electron_mass_MeV;
    return fine_structure * re2_cm2 * Z * Z * pair_nuclear_reduced(Z, k) * per_atom_to_cm2_g(Z);
}

void photon_structure_functions(double x, double q2, double* f2, double* fl)
{
    *f2 = *fl = 0;
    double const w2 = q2 * (1 - x) / x; // invariant mass^2 of the pair
    if (!(w2 > 4) || !(x < 1))
        return;
    double const beta = std::sqrt(1 - 4 / w2);
    double const l = std::log((1 + beta) / (1 - beta));
    double const r = 1 / q2; // m^2 / Q^2
    *f2 = x / pi *
          ((x * x + (1 - x) * (1 - x) + 4 * x * (1 - 3 * x) * r - 8 * x * x * r * r) * l +
           beta * (8 * x * (1 - x) - 1 - 4 * x * (1 - x) * r));
    *fl = x / pi * 4 * x * (1 - x) * (beta - 0.5 * (1 - beta * beta) * l);
}

double triplet_reduced(int Z, double k)
{
    // gamma + e -> e + e+ e- through the two Bethe–Heitler graphs (the photon converts
    // into the pair, which exchanges a virtual photon with the target electron), exact in
    // the Born approximation with the target electron's recoil (the process computed by
    // Borsellino, Nuovo Cim. 4, 112 (1947)). It is written as inclusive scattering of the
    // target electron on the photon through one virtual photon (Q^2 = -q^2, x = Q^2 / 2P.q,
    // y = P.q / P.p; units m = 1):
    //   d sigma / dx dQ^2 = 4 pi alpha^2 / (x Q^4) [x y^2 (1 - 2 m^2/Q^2) F_1 + (1 - y) F_2],
    // the exact contraction of the massive electron's tensor with the photon's, F_1 =
    // (F_2 - F_L) / 2x, and F_2, F_L the photon's lowest-order structure functions above.
    // Integrated over the pair mass W (2 .. sqrt(s) - 1) and, at fixed W, over Q^2 between
    // the two-body limits of e gamma -> e W. The graphs where the photon is absorbed on
    // the target electron line and the exchange of the two electrons (Haug, Z. Naturforsch.
    // 30a, 1099 (1975); Mork, Phys. Rev. 160, 1065 (1967)) are not included: they matter
    // near the 4 m c^2 threshold, where the triplet cross section is negligible.
    // Binding: the incoherent scattering function S(q)/Z multiplies each momentum transfer
    // (Wheeler & Lamb, Phys. Rev. 55, 858 (1939)); Z = 0 means a free electron.
    double const s = 1 + 2 * k;
    double const rs = std::sqrt(s);
    double const w_max = rs - 1;
    if (!(w_max > 2))
        return 0;
    double const p_i = (s - 1) / (2 * rs); // CM momentum and energy of the electron
    double const e_i = (s + 1) / (2 * rs);
    static GaussLegendre<8> const rule;
    auto at_w = [&](double w)
    {
        double const w2 = w * w;
        double const e_f = (s + 1 - w2) / (2 * rs);
        double const p_f = std::sqrt(std::max(e_f * e_f - 1, 0.0));
        double const q2_min = std::max(2 * (e_i * e_f - p_i * p_f) - 2, 1e-300);
        double const q2_max = 2 * (e_i * e_f + p_i * p_f) - 2;
        if (!(q2_max > q2_min))
            return 0.0;
        double const a = std::log(q2_min);
        double const b = std::log(q2_max);
        int const panels = std::max(2, static_cast<int>(std::ceil((b - a) / 2)));
        double const h = (b - a) / panels;
        double sum = 0;
        for (int p = 0; p < panels; ++p)
        {
            double const mid = a + (p + 0.5) * h;
            for (int i = 0; i < 8; ++i)
            {
                double const q2 = std::exp(mid + 0.5 * h * rule.x[i]);
                double const x = q2 / (q2 + w2);
                double const y = (q2 + w2) / (s - 1);
                double f2;
                double fl;
                photon_structure_functions(x, q2, &f2, &fl);
                double const f1 = (f2 - fl) / (2 * x);
                // d sigma = 4 pi x / Q^6 [...] dW^2 dQ^2 (dx = x^2/Q^2 dW^2 at fixed Q^2);
                // here per d ln Q^2 (factor Q^2), per dW (factor 2W) outside
                double v = 4 * pi * x / (q2 * q2) * (x * y * y * (1 - 2 / q2) * f1 + (1 - y) * f2);
                if (Z > 0)
                {
                    // recoil momentum |q| = sqrt(Q^2 + Q^4/4) (kinetic energy Q^2/2)
                    double const q = std::sqrt(q2 + 0.25 * q2 * q2);
                    v *= incoherent_function(Z, x_of_q(q)) / Z;
                }
                sum += 0.5 * h * rule.w[i] * v;
            }
        }
        return 2 * w * sum;
    };
    // W = 2 + u^2: the integrand ~ beta ~ u near threshold becomes smooth in u
    double const u_max = std::sqrt(w_max - 2);
    int const panels = std::max(4, static_cast<int>(std::ceil(2 * u_max)));
    return integrate_gl8([&](double u) { return 2 * u * at_w(2 + u * u); }, 0.0, u_max, panels);
}

double pair_electron_cm2_g(int Z, double energy_MeV)
{
    double const k = energy_MeV / electron_mass_MeV;
    // d sigma ~ alpha^2 F with F ~ alpha, in units (hbar/mc)^2 = r_e^2/alpha^2: the
    // reduced cross section is per alpha r_e^2 and per electron.
    return fine_structure * re2_cm2 * Z * triplet_reduced(Z, k) * per_atom_to_cm2_g(Z);
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
} // namespace mcdose
