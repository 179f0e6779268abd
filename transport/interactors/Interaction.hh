//! \file transport/interactors/Interaction.hh
//! Result of one photon interaction, returned by every interactor functor.
//! Energies are kinetic energies [MeV]; directions are unit vectors in the
//! tracking frame. Secondaries start at the interaction point.
#pragma once

#include "core/Array3.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"

namespace mcdose
{
//! Most draws an interactor's rejection loop makes for one interaction. Each loop's
//! acceptance is bounded below by its physics (e.g. Kahn's Compton sampling, the Sauter
//! distribution's majorant), so the cap is not reached in practice; should it be, the loop
//! takes its last draw, so that no history can spin.
inline constexpr int max_interaction_draws = 1 << 16;

//! A particle created by an interaction.
template <class Real>
struct Secondary
{
    ParticleType type{ParticleType::electron};
    Real energy_MeV{0};       //!< kinetic energy [MeV]
    Array3<Real> direction{}; //!< unit vector [-]
};

//! Change to the incident photon plus what the interaction created.
//!
//! Energy balance (checked by the tests for every sample):
//!   E_in = energy_MeV (if !absorbed) + sum of secondary kinetic energies
//!          + energy_deposit_MeV + rest_energy_created_MeV.
template <class Real>
struct Interaction
{
    static constexpr int max_secondaries = 2;

    bool absorbed{false};     //!< incident photon is gone
    Real energy_MeV{0};       //!< outgoing photon energy [MeV] (unused if absorbed)
    Array3<Real> direction{}; //!< outgoing photon direction (unused if absorbed)
    Secondary<Real> secondaries[max_secondaries]{};
    int num_secondaries{0};
    Real energy_deposit_MeV{0};      //!< deposited locally at the interaction point [MeV]
    Real rest_energy_created_MeV{0}; //!< rest energy of created pairs, 2 m c^2 [MeV]
};
} // namespace mcdose
