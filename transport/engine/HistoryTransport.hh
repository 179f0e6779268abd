//! \file transport/engine/HistoryTransport.hh
//! The physics step shared by the persistent GPU kernel and the CPU backend:
//! one source history, transported to the end with its secondaries.
//!
//! Photons: exact voxel-by-voxel tracking (Siddon/Amanatides-Woo) or Woodcock
//! delta tracking, then photoelectric / incoherent / coherent / pair sampled
//! from the material's cross-section fractions at the photon energy. Below the
//! photon absorption cut-off a photon deposits its energy where it is.
//! Electrons and positrons (until condensed history lands, issue 7) deposit
//! their kinetic energy in the voxel where they are created; a positron then
//! annihilates at rest into two back-to-back 511 keV photons (isotropic).
//!
//! Bookkeeping: every joule goes to exactly one of deposited (the tally),
//! escaped, or the rest-mass ledger (pair creation +2mc^2, annihilation
//! -2mc^2), so emitted = deposited + escaped + rest mass (EnergyBalance.hh).
#pragma once

#include <cmath>

#include "core/Constants.hh"
#include "core/Macros.hh"
#include "rng/Distributions.hh"
#include "tally/DoseTallyView.hh"
#include "transport/Particle.hh"
#include "transport/engine/EnergyBalance.hh"
#include "transport/engine/PhotonTransportView.hh"
#include "transport/engine/SecondaryStack.hh"
#include "transport/geometry/DeltaTracking.hh"
#include "transport/geometry/VoxelNavigator.hh"
#include "transport/interactors/ComptonInteractor.hh"
#include "transport/interactors/PairProductionInteractor.hh"
#include "transport/interactors/PhotoelectricInteractor.hh"
#include "transport/interactors/RayleighInteractor.hh"

namespace mcdose
{
template<class Real, class Engine, class Policy>
class HistoryTransport
{
  public:
    using Stack = SecondaryStack<Real>;

    MCDOSE_FUNCTION HistoryTransport(PhotonTransportView<Real> const& physics,
                                     DoseTallyView<Policy> const& tally, Engine& rng,
                                     EnergyBalance& balance)
        : phys_(physics), nav_(physics.geometry), tally_(tally), rng_(rng), bal_(balance)
    {
    }

    //! Transport one source particle (local frame) and everything it creates.
    MCDOSE_FUNCTION void operator()(Particle<Real> const& primary)
    {
        bal_.emitted_MeV += double(primary.energy_MeV) * double(primary.weight);
        Stack stack;
        stack.push(primary);
        while (!stack.empty())
        {
            Particle<Real> p = stack.pop();
            if (p.type == ParticleType::photon)
                this->transport_photon(p, stack);
            else
                this->absorb_charged(p, stack);
        }
    }

  private:
    PhotonTransportView<Real> const& phys_;
    VoxelNavigator<Real> nav_;
    DoseTallyView<Policy> const& tally_;
    Engine& rng_;
    EnergyBalance& bal_;

    MCDOSE_FORCEINLINE_FUNCTION void deposit(size_type voxel, Real energy_MeV)
    {
        if (energy_MeV > 0)
        {
            tally_.deposit(voxel, double(energy_MeV));
            bal_.deposited_MeV += double(energy_MeV);
        }
    }

    //! Place a particle on the grid; false (and booked as escaped) if it misses.
    MCDOSE_FUNCTION bool enter_grid(Particle<Real> const& p, VoxelTrackState<Real>& st)
    {
        st.position_cm = p.position_cm;
        st.direction = p.direction;
        nav_.initialize(st);
        if (!st.inside)
            bal_.escaped_MeV += double(p.energy_MeV) * double(p.weight);
        return st.inside;
    }

    //! Push, or deposit locally if the stack is full (SecondaryStack.hh policy).
    MCDOSE_FUNCTION void push_or_deposit(Stack& stack, Particle<Real> const& p, size_type voxel)
    {
        if (stack.push(p))
            return;
        Real e = p.energy_MeV;
        if (p.type == ParticleType::positron)
        {
            e += 2 * Real(constants::electron_mass_MeV);
            bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
        }
        this->deposit(voxel, e * p.weight);
        bal_.overflow_MeV += double(e) * double(p.weight);
    }

    //! Local deposition of an electron or positron; positron annihilation at rest.
    MCDOSE_FUNCTION void absorb_charged(Particle<Real> const& p, Stack& stack)
    {
        VoxelTrackState<Real> st;
        if (!this->enter_grid(p, st))
        {
            if (p.type == ParticleType::positron)
            {
                // Annihilates outside the phantom: its photons escape too.
                bal_.escaped_MeV += 2 * constants::electron_mass_MeV * double(p.weight);
                bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
            }
            return;
        }
        size_type const voxel = nav_.voxel(st);
        this->deposit(voxel, p.energy_MeV * p.weight);
        if (p.type != ParticleType::positron)
            return;
        // Two photons of m c^2 each, back to back, isotropic (annihilation at rest).
        bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
        auto const d = sample_isotropic<Real>(rng_);
        Particle<Real> gamma;
        gamma.type = ParticleType::photon;
        gamma.energy_MeV = Real(constants::electron_mass_MeV);
        gamma.position_cm = st.position_cm;
        gamma.weight = p.weight;
        gamma.direction = {{d.u, d.v, d.w}};
        this->push_or_deposit(stack, gamma, voxel);
        gamma.direction = {{-d.u, -d.v, -d.w}};
        this->push_or_deposit(stack, gamma, voxel);
    }

    //! Attenuation coefficient [1/cm] of a voxel at grid position (i, f).
    MCDOSE_FORCEINLINE_FUNCTION Real mu_per_cm(size_type voxel, unsigned i, Real f) const
    {
        unsigned const m = phys_.material[voxel];
        return lerp_table(phys_.mu_rho.data() + m * phys_.grid.size, i, f)
               * Real(phys_.density_g_cm3[voxel]);
    }

    //! Move the photon to its next real interaction; false if it left the grid.
    MCDOSE_FUNCTION bool fly(VoxelTrackState<Real>& st, unsigned i, Real f)
    {
        if (phys_.tracking == PhotonTracking::woodcock)
        {
            Real const maj = phys_.majorant_per_cm[i];
            auto mu = [&](size_type v) { return this->mu_per_cm(v, i, f); };
            return !delta_track(nav_, st, maj, mu, rng_).escaped;
        }
        Real mfp_left = -std::log(generate_canonical<Real>(rng_));
        for (;;)
        {
            size_type const v = nav_.voxel(st);
            Real const mu = this->mu_per_cm(v, i, f);
            auto const b = nav_.find_next_boundary(st);
            Real const tau = mu * b.distance_cm;
            if (tau > mfp_left)
            {
                nav_.move_internal(st, mfp_left / mu);
                return true;
            }
            mfp_left -= tau;
            if (!nav_.cross_boundary(st, b))
                return false;
        }
    }

    MCDOSE_FUNCTION void transport_photon(Particle<Real> p, Stack& stack)
    {
        VoxelTrackState<Real> st;
        if (!this->enter_grid(p, st))
            return;
        Real const w = p.weight;
        Real energy = p.energy_MeV;
        for (;;)
        {
            if (energy < phys_.photon_cutoff_MeV)
            {
                this->deposit(nav_.voxel(st), energy * w);
                bal_.below_cutoff_MeV += double(energy) * double(w);
                return;
            }
            unsigned i;
            Real f;
            phys_.grid.find(energy, i, f);
            if (!this->fly(st, i, f))
            {
                bal_.escaped_MeV += double(energy) * double(w);
                return;
            }
            size_type const voxel = nav_.voxel(st);
            ++bal_.interactions;
            auto const result = this->interact(energy, st.direction, voxel, i, f);

            this->deposit(voxel, result.energy_deposit_MeV * w);
            bal_.rest_mass_MeV += double(result.rest_energy_created_MeV) * double(w);
            for (int s = 0; s < result.num_secondaries; ++s)
            {
                Particle<Real> sec;
                sec.type = result.secondaries[s].type;
                sec.energy_MeV = result.secondaries[s].energy_MeV;
                sec.direction = result.secondaries[s].direction;
                sec.position_cm = st.position_cm;
                sec.weight = w;
                this->push_or_deposit(stack, sec, voxel);
            }
            if (result.absorbed)
                return;
            energy = result.energy_MeV;
            st.direction = result.direction;
        }
    }

    //! Sample the process at the interaction point and call its interactor.
    MCDOSE_FUNCTION Interaction<Real> interact(Real energy, Array3<Real> const& dir,
                                               size_type voxel, unsigned i, Real f)
    {
        unsigned const m = phys_.material[voxel];
        unsigned const row = m * phys_.grid.size;
        Real const* cdf = phys_.branch_cdf.data() + row * 3;
        Real const xi = generate_canonical<Real>(rng_);
        if (xi <= lerp_table(cdf, i, f, 3))
        {
            // Photoabsorption: choose the atom, then its shell.
            unsigned const me = phys_.max_elements;
            unsigned const ne = phys_.num_elements[m];
            Real const* ecdf = phys_.element_cdf.data() + row * me;
            Real const xe = generate_canonical<Real>(rng_);
            unsigned k = 0;
            while (k + 1 < ne && xe > lerp_table(ecdf + k, i, f, me))
                ++k;
            auto const& shells = phys_.photo.elements[phys_.element_index[m * me + k]];
            return PhotoelectricInteractor<Real>(energy, dir, shells)(rng_);
        }
        bool const pair_allowed = energy > 2 * Real(constants::electron_mass_MeV);
        if (xi <= lerp_table(cdf + 1, i, f, 3) || (!pair_allowed && xi > lerp_table(cdf + 2, i, f, 3)))
        {
            // (Interpolation in the bin holding the pair threshold can leave a
            // sliver of pair probability below 2 m c^2: it goes to Compton.)
            auto const* binding = phys_.compton_binding ? &phys_.compton.materials[m] : nullptr;
            return ComptonInteractor<Real>(energy, dir, binding)(rng_);
        }
        if (xi <= lerp_table(cdf + 2, i, f, 3))
            return RayleighInteractor<Real>(energy, dir, phys_.rayleigh.materials[m])(rng_);
        auto const& element = phys_.pair.materials[m].select(generate_canonical<Real>(rng_));
        return PairProductionInteractor<Real>(energy, dir, element)(rng_);
    }
};
}  // namespace mcdose
