//! \file transport/interactors/BremsstrahlungInteractor.hh
//! Hard bremsstrahlung of an electron or positron: emission of a photon with
//! energy k in [W_cr, T] (class II; softer photons are in the restricted
//! radiative stopping power).
//!
//! Energy: the spectrum k dsigma/dk of transport/physics/Bremsstrahlung.hh
//! (3BN with screening, Elwert factor and electron-electron term), tabulated per
//! material at the transport grid energies E_i as a function of
//! x = ln(k / W_cr) / ln(E_i / W_cr) in [0, 1] and divided by its maximum
//! (BremsSpectrumView). k is sampled from 1/k (x uniform) and accepted with the
//! tabulated shape of grid point i or i + 1 (chosen with the interpolation
//! fraction in ln E, so the sampled spectrum interpolates linearly between the
//! grid spectra). The positron uses the electron spectrum.
//!
//! Angle: Tsai's approximation of the angular distribution (Y.-S. Tsai, Rev.
//! Mod. Phys. 46, 815 (1974)) in the two-exponential form
//!     f(u) = 9 a^2 / (9 + d) [u e^{-a u} + d u e^{-3 a u}],  a = 0.625, d = 27,
//!     u = E0 theta / (m c^2),  E0 the incident total energy,
//! i.e. a mixture of two Gamma(2) laws with weights 9/(9+d) = 1/4 and 3/4
//! (as used e.g. in the Geant4 Physics Reference Manual). The electron keeps
//! its direction (recoil on the nucleus).
#pragma once

#include <cmath>

#include "core/Constants.hh"
#include "core/FastMath.hh"
#include "core/Macros.hh"
#include "core/Span.hh"
#include "core/VectorMath.hh"
#include "rng/Distributions.hh"
#include "transport/interactors/Interaction.hh"

namespace mcdose
{
//! Normalised k dsigma/dk per material and grid energy (see file comment):
//! shape[(m * grid_size + i) * points + j], j over x_j = j / (points - 1).
template <class Real>
struct BremsSpectrumView
{
    unsigned points{0};
    unsigned grid_size{0};
    Span<Real const> shape;

    //! Linear interpolation in x of row (m, i).
    MCDOSE_FORCEINLINE_FUNCTION Real at(unsigned m, unsigned i, Real x) const
    {
        Real const* row = shape.data() + (m * grid_size + i) * points;
        Real u = x * Real(points - 1);
        unsigned j = static_cast<unsigned>(u);
        if (j > points - 2)
            j = points - 2;
        Real const f = u - Real(j);
        return row[j] + f * (row[j + 1] - row[j]);
    }
};

//! Polar angle of a bremsstrahlung photon (Tsai, see file comment).
template <class Real, class Engine>
MCDOSE_FUNCTION Real sample_brems_cos_theta(Real total_energy_MeV, Engine& rng)
{
    constexpr Real a = Real(0.625);
    Real const scale = Real(constants::electron_mass_MeV) / total_energy_MeV;
    for (int trial = 0; trial < 1000; ++trial)
    {
        Real const b = generate_canonical<Real>(rng) < Real(0.25) ? a : 3 * a;
        Real const u = -fast_log(generate_canonical<Real>(rng) * generate_canonical<Real>(rng)) / b;
        Real const theta = u * scale;
        if (theta <= Real(constants::pi))
            return std::cos(theta);
    }
    return 1;
}

template <class Real>
class BremsstrahlungInteractor
{
  public:
    //! (i, f): the incident energy's grid bin and fraction; m: the material.
    MCDOSE_FUNCTION BremsstrahlungInteractor(Real energy_MeV, Array3<Real> const& direction,
                                             Real cut_MeV, BremsSpectrumView<Real> const& spectrum,
                                             unsigned material, unsigned i, Real f)
        : T_(energy_MeV), dir_(direction), cut_(cut_MeV), spec_(spectrum), m_(material), i_(i),
          f_(f)
    {
    }

    //! Photon energy [MeV] in [cut, T].
    template <class Engine>
    MCDOSE_FUNCTION Real sample_energy(Engine& rng) const
    {
        if (!(T_ > cut_))
            return T_;
        unsigned const i = generate_canonical<Real>(rng) <= f_ ? i_ + 1 : i_;
        Real const span = std::log(T_ / cut_);
        for (int trial = 0; trial < 1000; ++trial)
        {
            Real const x = generate_canonical<Real>(rng);
            if (generate_canonical<Real>(rng) <= spec_.at(m_, i, x))
                return cut_ * fast_exp(x * span);
        }
        return cut_;
    }

    template <class Engine>
    MCDOSE_FUNCTION Interaction<Real> operator()(Engine& rng) const
    {
        Real const k = this->sample_energy(rng);
        Real const cos_theta =
            sample_brems_cos_theta<Real>(T_ + Real(constants::electron_mass_MeV), rng);
        Interaction<Real> r;
        r.energy_MeV = T_ - k;
        r.direction = dir_;
        r.num_secondaries = 1;
        r.secondaries[0].type = ParticleType::photon;
        r.secondaries[0].energy_MeV = k;
        r.secondaries[0].direction =
            rotate_azimuth_fraction(dir_, cos_theta, generate_canonical<Real>(rng));
        return r;
    }

  private:
    Real T_;
    Array3<Real> dir_;
    Real cut_;
    BremsSpectrumView<Real> const& spec_;
    unsigned m_;
    unsigned i_;
    Real f_;
};
} // namespace mcdose
