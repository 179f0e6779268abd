//! \file transport/engine/HistoryTransport.hh
//! The physics step shared by the persistent GPU kernel and the CPU backend:
//! one source history, transported to the end with its secondaries.
//!
//! Photons: exact voxel-by-voxel tracking (Siddon/Amanatides-Woo) or Woodcock
//! delta tracking, then photoelectric / incoherent / coherent / pair sampled
//! from the material's cross-section fractions at the photon energy. Below the
//! photon absorption cut-off a photon deposits its energy where it is.
//!
//! Electrons and positrons: class II condensed history (as in PENELOPE and
//! DPM; Berger, Methods Comput. Phys. 1, 135 (1963) for the scheme):
//! - between hard events the particle loses energy continuously at the soft
//!   (restricted) stopping power, evaluated at the step's midpoint energy; the
//!   loss is deposited uniformly along the path, split over the voxels crossed;
//! - hard events (Møller/Bhabha above W_cc, bremsstrahlung above W_cr,
//!   annihilation in flight) are sampled by delta scattering against a
//!   majorant of their total cross section over the step's energy range; the
//!   hard event at the end of a step is the track's next step (`hard_step`),
//!   so that the GPU's warps run the interactors together (TransportThread.hh);
//! - step length: at most `max_loss_fraction` of E lost softly and at most
//!   `max_mfp_fraction` of the transport mean free path lambda_1;
//! - elastic scattering: random hinge (Fernández-Varea et al., NIM B 73, 447
//!   (1993)): straight flight for tau s (tau uniform), one deflection with the
//!   multiple-scattering distribution of the whole step
//!   (interactors/MultipleScattering.hh), then the remaining (1 - tau) s;
//! - step lengths are mass thicknesses (g/cm^2): crossing into a voxel of the
//!   same material continues the step whatever its density (the per-mass
//!   elastic and hard cross sections do not depend on density; the soft loss
//!   per mass follows the voxel's density-effect correction), so a density
//!   change is no interface (as in DPM, Sempau et al., Phys. Med. Biol. 45,
//!   2263 (2000)); a change of material stops the step at the interface and a
//!   new step starts there (the distance to a hard event is memoryless, and the
//!   hinge, being uniform over the step, is consistently not reached; Baró et
//!   al., NIM B 100, 31 (1995) for PENELOPE's version);
//! - below `absorption_MeV` the particle deposits its energy where it is; a
//!   positron then annihilates at rest into two back-to-back 511 keV photons.
//! With `condensed_history` off, electrons and positrons deposit their energy
//! where they are created (the photon-only approximation).
//!
//! Bookkeeping: every joule goes to exactly one of deposited (the tally),
//! escaped, or the rest-mass ledger (pair creation +2mc^2, annihilation
//! -2mc^2), so emitted = deposited + escaped + rest mass (EnergyBalance.hh).
//!
//! Length: one class template, the step every backend runs (the GPU kernel and the CPU
//! backend); its photon, charged and hard steps share the track's private state and
//! bookkeeping and are inlined together into the kernel, so they stay one class in one file
//! rather than meet through a base class or friends on the kernel's hot path.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/Constants.hh"
#include "core/Macros.hh"
#include "core/Particle.hh"
#include "core/WarpVote.hh"
#include "rng/Distributions.hh"
#include "tally/DoseTallyView.hh"
#include "tally/EnergyBalance.hh"
#include "transport/engine/SecondaryStack.hh"
#include "transport/engine/TransportView.hh"
#include "transport/geometry/DeltaTracking.hh"
#include "transport/geometry/VoxelNavigator.hh"
#include "transport/interactors/AnnihilationInteractor.hh"
#include "transport/interactors/BremsstrahlungInteractor.hh"
#include "transport/interactors/ComptonInteractor.hh"
#include "transport/interactors/MollerBhabhaInteractor.hh"
#include "transport/interactors/MultipleScattering.hh"
#include "transport/interactors/PairProductionInteractor.hh"
#include "transport/interactors/PhotoelectricInteractor.hh"
#include "transport/interactors/RayleighInteractor.hh"

//! How hard_step is compiled. With the debug contracts on (MCDOSE_DEBUG, the CI
//! build) CUDA 13.0's cicc crashes (segmentation fault) on the double-precision
//! transport kernel when hard_step is inlined into it; out of line it compiles
//! (reproduced 2026-11-21; Release builds and MCDOSE_DEBUG=0 compile either
//! way). Release builds keep the compiler's choice, which is what was measured.
#if MCDOSE_DEBUG
#    define MCDOSE_HARD_STEP_LINKAGE MCDOSE_NOINLINE
#else
#    define MCDOSE_HARD_STEP_LINKAGE
#endif

namespace mcdose
{
//! The kinds of step a lane can take next (HistoryTransport::next_step_kind);
//! the GPU worker's warps take one kind per iteration (TransportThread.hh).
enum class StepKind : unsigned char
{
    photon,
    charged, //!< a condensed-history step of an electron or positron
    hard     //!< the hard event that ended a charged step
};

template <class Real, class Engine, class Policy>
class HistoryTransport
{
  public:
    //! A particle waiting on the stack and the voxel it was created in: a
    //! secondary starts in its parent's voxel, with no search for it (the
    //! grid search of a new track ran with 2-4 of 32 lanes, docs/history/benchmarks-log.md).
    struct Stacked
    {
        Particle<Real> particle;
        Array3<int> ijk;
    };
    using Stack = SecondaryStack<Stacked>;

    MCDOSE_FUNCTION HistoryTransport(TransportView<Real> const& physics,
                                     DoseTallyView<Policy> const& tally, Engine& rng,
                                     EnergyBalance& balance)
        : phys_(physics), nav_(physics.geometry), tally_(tally), rng_(rng), bal_(balance)
    {
    }

  private:
    //! What a particle in flight carries from one step to the next.
    struct Track
    {
        VoxelTrackState<Real> st;
        Real energy{0};
        Real weight{0};
        size_type pending_voxel{0}; //!< charged: voxel of the loss not yet tallied
        Real pending_MeV{0};        //!< charged: that loss (one atomic per voxel visit)
        Real hard_max{0};           //!< charged: majorant of the pending hard event [cm^2/g]
        ParticleType type{ParticleType::photon};
        bool hard_pending{false}; //!< charged: the next step is hard_step
    };

  public:
    //! A worker's particle in flight and the rest of its history (depth first:
    //! the most recently created particle is started next).
    struct Lane
    {
        Track track;
        Stack stack;
        bool alive{false}; //!< `track` has steps left
    };

    //! Start a source particle (local frame) in a lane whose history is over.
    //! `history` labels the crossings it records (PlaneCrossingView.hh); a
    //! worker has one lane, so the label is the transport's.
    MCDOSE_FUNCTION void start_history(Particle<Real> const& primary, Lane& lane,
                                       std::uint64_t history = 0)
    {
        MCDOSE_EXPECT(!lane.alive && lane.stack.empty());
        tally_.end_history(); // the previous history's (history-by-history moments)
        history_ = history;
        slot_ = tally_.slot(history);
        lane.alive = this->begin_history(primary, lane.track, lane.stack);
    }

    //! Start the lane's next stacked particle; false if its history is over.
    MCDOSE_FUNCTION bool start_next(Lane& lane)
    {
        if (lane.stack.empty())
            return false;
        lane.alive = this->begin_secondary(lane.stack.pop(), lane.track, lane.stack);
        return true;
    }

    //! What the lane's next step is (meaningful while alive): a photon step,
    //! a charged-particle step, or the hard event that ended the previous
    //! charged step (a step of its own so that a warp runs the interactors
    //! with every lane that has one, TransportThread.hh).
    MCDOSE_FORCEINLINE_FUNCTION static StepKind next_step_kind(Lane const& lane)
    {
        if (lane.track.type == ParticleType::photon)
            return StepKind::photon;
        return lane.track.hard_pending ? StepKind::hard : StepKind::charged;
    }

    //! One step of the lane's particle (`lane.alive`), of next_step_kind.
    //! `group` is the lanes of the warp that take this step together (the
    //! calling lane alone where one thread runs a history by itself).
    MCDOSE_FUNCTION void step(Lane& lane, WarpGroup const group)
    {
        MCDOSE_EXPECT(lane.alive);
        align_draws(rng_); // the lanes of a group refill their RNG blocks together
        switch (next_step_kind(lane))
        {
        case StepKind::photon:
            lane.alive = this->photon_step(lane.track, lane.stack);
            break;
        case StepKind::hard:
            lane.alive = this->hard_step(lane.track, lane.stack);
            break;
        case StepKind::charged:
            lane.alive = this->charged_step(lane.track, lane.stack, group);
            break;
        }
    }

    //! Transport one source particle and everything it creates. The workers
    //! (TransportThread.hh) interleave the same calls under a warp vote on the
    //! step kind; the order of one history's steps, and so its random numbers,
    //! is the same.
    MCDOSE_FUNCTION void operator()(Particle<Real> const& primary)
    {
        Lane lane;
        WarpGroup const group = WarpGroup::this_lane();
        this->start_history(primary, lane);
        do
        {
            while (lane.alive)
                this->step(lane, group);
        } while (this->start_next(lane));
        tally_.end_history();
    }

  private:
    //! Book a source particle as emitted and start it (begin_track).
    MCDOSE_FUNCTION bool begin_history(Particle<Real> const& primary, Track& t, Stack& stack)
    {
        bal_.emitted_MeV += double(primary.energy_MeV) * double(primary.weight);
        return this->begin_track(primary, t, stack);
    }

    //! Start a particle: place it on the grid. False when nothing is left to
    //! step (it missed the grid, or a charged particle was absorbed on the spot
    //! because condensed history is off).
    MCDOSE_FUNCTION bool begin_track(Particle<Real> const& p, Track& t, Stack& stack)
    {
        if (!this->enter_grid(p, t.st))
        {
            if (p.type == ParticleType::positron)
                this->annihilate_outside(p.weight);
            return false;
        }
        return this->begin_on_grid(p, t, stack);
    }

    //! Start a secondary in the voxel it was created in (begin_track).
    MCDOSE_FUNCTION bool begin_secondary(Stacked const& s, Track& t, Stack& stack)
    {
        t.st.position_cm = s.particle.position_cm;
        t.st.direction = s.particle.direction;
        t.st.ijk = s.ijk;
        t.st.inside = true;
        return this->begin_on_grid(s.particle, t, stack);
    }

    //! begin_track for a particle placed on the grid.
    MCDOSE_FUNCTION bool begin_on_grid(Particle<Real> const& p, Track& t, Stack& stack)
    {
        if (p.type != ParticleType::photon && !phys_.electron.condensed_history)
        {
            // Local deposition; a positron then annihilates at rest.
            this->deposit(nav_.voxel(t.st), p.energy_MeV * p.weight);
            if (p.type == ParticleType::positron)
                this->annihilate_at_rest(t.st, p.weight, stack);
            return false;
        }
        t.type = p.type;
        t.energy = p.energy_MeV;
        t.weight = p.weight;
        t.pending_voxel = nav_.voxel(t.st);
        t.pending_MeV = 0;
        t.hard_pending = false;
        return true;
    }

    TransportView<Real> const& phys_;
    VoxelNavigator<Real> nav_;
    DoseTallyView<Policy> const& tally_;
    Engine& rng_;
    EnergyBalance& bal_;
    std::uint64_t history_{0}; //!< of the lane's history (crossing records)
    TallySlot slot_;           //!< the batch grid of the lane's history

    //! A particle leaving the grid (or flying outside it for `max_cm`) at
    //! `st`: record its crossing of the scoring plane, if any.
    MCDOSE_FUNCTION void record_crossing(ParticleType type, Real energy, Real weight,
                                         VoxelTrackState<Real> const& st,
                                         Real max_cm = std::numeric_limits<Real>::infinity())
    {
        if (!phys_.crossings.enabled())
            return;
        Particle<Real> p;
        p.type = type;
        p.energy_MeV = energy;
        p.position_cm = st.position_cm;
        p.direction = st.direction;
        p.weight = weight;
        phys_.crossings.record(p, max_cm, history_);
    }

    MCDOSE_FORCEINLINE_FUNCTION void deposit(size_type voxel, Real energy_MeV)
    {
        if (energy_MeV > 0)
        {
            tally_.deposit(slot_, voxel, double(energy_MeV));
            bal_.deposited_MeV += double(energy_MeV);
        }
    }

    //! Place a particle on the grid; false (and booked as escaped) if it misses.
    MCDOSE_FUNCTION bool enter_grid(Particle<Real> const& p, VoxelTrackState<Real>& st)
    {
        st.position_cm = p.position_cm;
        st.direction = p.direction;
        Real const moved = nav_.initialize(st);
        if (phys_.crossings.enabled())
        {
            // The path in vacuum before the grid (all of it if the particle misses).
            VoxelTrackState<Real> start = st;
            start.position_cm = p.position_cm;
            this->record_crossing(p.type, p.energy_MeV, p.weight, start,
                                  st.inside ? moved : std::numeric_limits<Real>::infinity());
        }
        if (!st.inside)
            bal_.escaped_MeV += double(p.energy_MeV) * double(p.weight);
        return st.inside;
    }

    //! Push a particle created at `at`, or deposit it there if the stack is
    //! full (SecondaryStack.hh policy).
    MCDOSE_FUNCTION void push_or_deposit(Stack& stack, Particle<Real> const& p,
                                         VoxelTrackState<Real> const& at)
    {
        if (stack.push({p, at.ijk}))
            return;
        Real e = p.energy_MeV;
        if (p.type == ParticleType::positron)
        {
            e += 2 * Real(constants::electron_mass_MeV);
            bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
        }
        this->deposit(nav_.voxel(at), e * p.weight);
        bal_.overflow_MeV += double(e) * double(p.weight);
    }

    //! A positron that leaves the phantom annihilates outside: its photons escape.
    MCDOSE_FUNCTION void annihilate_outside(Real weight)
    {
        bal_.escaped_MeV += 2 * constants::electron_mass_MeV * double(weight);
        bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
    }

    //! Two photons of m c^2 each, back to back, isotropic (annihilation at rest).
    MCDOSE_FUNCTION void annihilate_at_rest(VoxelTrackState<Real> const& at, Real weight,
                                            Stack& stack)
    {
        bal_.rest_mass_MeV -= 2 * constants::electron_mass_MeV;
        auto const d = sample_isotropic<Real>(rng_);
        Particle<Real> gamma;
        gamma.type = ParticleType::photon;
        gamma.energy_MeV = Real(constants::electron_mass_MeV);
        gamma.position_cm = at.position_cm;
        gamma.weight = weight;
        gamma.direction = {{d.u, d.v, d.w}};
        this->push_or_deposit(stack, gamma, at);
        gamma.direction = {{-d.u, -d.v, -d.w}};
        this->push_or_deposit(stack, gamma, at);
    }

    //! Push the products of an interaction at the track's position `at`.
    MCDOSE_FUNCTION void push_secondaries(Interaction<Real> const& result,
                                          VoxelTrackState<Real> const& at, Real weight,
                                          Stack& stack)
    {
        for (int s = 0; s < result.num_secondaries; ++s)
        {
            Particle<Real> sec;
            sec.type = result.secondaries[s].type;
            sec.energy_MeV = result.secondaries[s].energy_MeV;
            sec.direction = result.secondaries[s].direction;
            sec.position_cm = at.position_cm;
            sec.weight = weight;
            this->push_or_deposit(stack, sec, at);
        }
    }

    //! Book an interaction's local deposit and rest energy, push its products and
    //! update the incident particle; true if the incident particle is gone.
    MCDOSE_FUNCTION bool apply_interaction(Interaction<Real> const& result,
                                           VoxelTrackState<Real>& st, size_type voxel, Real weight,
                                           Stack& stack, Real& energy)
    {
        this->deposit(voxel, result.energy_deposit_MeV * weight);
        bal_.rest_mass_MeV += double(result.rest_energy_created_MeV) * double(weight);
        this->push_secondaries(result, st, weight, stack);
        if (result.absorbed)
            return true;
        energy = result.energy_MeV;
        st.direction = result.direction;
        return false;
    }

    //! How a straight charged-particle flight ended.
    enum class Flight
    {
        completed,   //!< the whole length was flown
        interrupted, //!< stopped on entering a voxel of another material
        escaped      //!< left the grid
    };

    //! Energy lost along a charged track but not yet handed to the tally: a
    //! track's consecutive deposits in one voxel (both hinge segments, several
    //! steps) become one atomic add.
    MCDOSE_FORCEINLINE_FUNCTION void add_deposit(Track& t, size_type voxel, Real energy_MeV)
    {
        if (voxel != t.pending_voxel)
        {
            this->deposit(t.pending_voxel, t.pending_MeV);
            t.pending_voxel = voxel;
            t.pending_MeV = 0;
        }
        t.pending_MeV += energy_MeV;
    }

    MCDOSE_FORCEINLINE_FUNCTION void flush_deposit(Track const& t)
    {
        this->deposit(t.pending_voxel, t.pending_MeV);
    }

    //! The medium a charged flight is in: its material, density and soft loss per
    //! unit mass at the step's midpoint energy (the density-effect correction
    //! makes the loss depend on the density; the step's other quantities are per
    //! unit mass and do not).
    struct FlightMedium
    {
        unsigned material;
        unsigned lepton; //!< 0 electron, 1 positron
        Real density;
        Real loss_per_g; //!< [MeV cm^2/g]
        unsigned mid_bin;
        Real mid_frac; //!< midpoint energy's grid position
    };

    //! Fly `mass` g/cm^2 straight, adding the soft loss times the weight to the
    //! pending deposit of each voxel crossed. Crossing into a voxel of the same
    //! material continues the flight with the path measured in mass thickness
    //! (rho ds), as for one medium: elastic, hard and soft per-mass quantities
    //! do not depend on the density, so a density change is no interface (DPM
    //! treats voxels so: Sempau et al., Phys. Med. Biol. 45, 2263 (2000)); the
    //! loss per mass follows the voxel's density (density-effect correction).
    //! Entering another material stops the flight there. `flown` gets the mass
    //! thickness flown and `lost` the energy lost [MeV]. The lanes of `group`
    //! (all of which fly) walk their voxels together: the loop ends when the last
    //! of them is done (WarpGroup), so that they leave it together and run the
    //! rest of the step as one.
    MCDOSE_FUNCTION Flight fly_charged(Track& t, Real mass, FlightMedium& medium, Real& flown,
                                       Real& lost, WarpGroup const group)
    {
        auto& st = t.st;
        Real const weight = t.weight;
        size_type v = nav_.voxel(st);
        Real left = mass;
        flown = 0;
        lost = 0;
        Flight flight = Flight::completed;
        bool flying = true;
        // `continue` goes to the vote: a lane that is done waits there.
        do
        {
            if (!flying)
                continue;
            auto const b = nav_.find_next_boundary(st);
            Real const rho = medium.density;
            if (left <= b.distance_cm * rho)
            {
                nav_.move_internal(st, left / rho);
                Real const loss = medium.loss_per_g * left;
                this->add_deposit(t, v, loss * weight);
                lost += loss;
                flown += left;
                flying = false;
                continue;
            }
            Real const crossed = b.distance_cm * rho;
            Real const loss = medium.loss_per_g * crossed;
            this->add_deposit(t, v, loss * weight);
            lost += loss;
            flown += crossed;
            left -= crossed;
            if (!nav_.cross_boundary(st, b))
            {
                flight = Flight::escaped;
                flying = false;
                continue;
            }
            v = nav_.voxel(st);
            if (phys_.material[v] != medium.material)
            {
                flight = Flight::interrupted;
                flying = false;
                continue;
            }
            Real const rho_next = phys_.density_g_cm3[v];
            if (rho_next != rho)
                this->enter_density(medium, rho_next);
        } while (group.any(flying));
        return flight;
    }

    //! The flight's medium at another density of its material.
    MCDOSE_FORCEINLINE_FUNCTION void enter_density(FlightMedium& medium, Real rho) const
    {
        auto const& el = phys_.electron;
        medium.density = rho;
        if (el.density_nodes[medium.material].count > 1)
        {
            auto const rows = el.stopping_rows(medium.material, medium.lepton, rho);
            medium.loss_per_g = el.soft_stopping(rows, medium.mid_bin, medium.mid_frac);
        }
    }

    //! Hard-event cross sections [cm^2/g] of row `row` at grid position (i, f).
    struct HardCrossSections
    {
        Real inelastic, brems, annihilation;
        MCDOSE_FORCEINLINE_FUNCTION Real total() const { return inelastic + brems + annihilation; }
    };

    MCDOSE_FORCEINLINE_FUNCTION HardCrossSections hard_xs(unsigned row, unsigned i, Real f) const
    {
        Real const* h = phys_.electron.hard_xs.data() + row * 3;
        return {lerp_table(h, i, f, 3), lerp_table(h + 1, i, f, 3), lerp_table(h + 2, i, f, 3)};
    }

    //! A flight stopped at an interface or the grid's edge flew `flown` g/cm^2 of the
    //! planned step at the loss rate of the planned step's midpoint energy; the path flown
    //! has its own midpoint (E0 - S(E0) flown / 2 to first order), whose rate differs where
    //! S(E) changes fast (low energies) and the flown part is short (a thin layer of another
    //! material: a step in gas can be metres long). The loss is scaled by the ratio of the
    //! two rates (at the step's starting density) and the difference goes to the last voxel
    //! (the pending deposit, never below 0); returns the corrected loss.
    MCDOSE_FORCEINLINE_FUNCTION Real correct_partial_loss(Track& t, Real start_energy,
                                                          Real start_loss_per_g, Real flown,
                                                          Real planned_loss_per_g, Real lost,
                                                          StoppingRows<Real> const& rows)
    {
        auto const& el = phys_.electron;
        unsigned i;
        Real f;
        el.grid.find(
            std::fmax(start_energy - Real(0.5) * start_loss_per_g * flown, el.absorption_MeV), i,
            f);
        Real const want =
            std::fmin(lost * el.soft_stopping(rows, i, f) / planned_loss_per_g, start_energy);
        return lost + this->add_to_pending(t, want - lost);
    }

    //! Add `delta` MeV (times the weight) to the pending deposit, never taking it below
    //! 0; returns the part added [MeV].
    MCDOSE_FORCEINLINE_FUNCTION Real add_to_pending(Track& t, Real delta)
    {
        Real const extra = std::fmax(delta * t.weight, -t.pending_MeV);
        t.pending_MeV += extra;
        return extra / t.weight;
    }

    //! A charged track below the absorption energy ends: its `energy` goes to `voxel`
    //! and a positron annihilates at rest.
    MCDOSE_FORCEINLINE_FUNCTION void absorb(Track& t, size_type voxel, Real energy, Stack& stack)
    {
        this->add_deposit(t, voxel, energy * t.weight);
        this->flush_deposit(t);
        bal_.below_cutoff_MeV += double(energy) * double(t.weight);
        if (t.type == ParticleType::positron)
            this->annihilate_at_rest(t.st, t.weight, stack);
    }

    //! One class II condensed-history step of an electron or positron (file
    //! comment), taken together by the lanes of `group`; false when the track
    //! has ended. Lengths are mass thicknesses [g/cm^2] (fly_charged).
    MCDOSE_FUNCTION bool charged_step(Track& t, Stack& stack, WarpGroup const group)
    {
        auto const& el = phys_.electron;
        bool const positron = t.type == ParticleType::positron;
        auto& st = t.st;
        Real const w = t.weight;
        Real energy = t.energy;
        size_type const voxel = nav_.voxel(st);
        bool const absorbed = energy <= el.absorption_MeV;
        WarpGroup walking = group.select(!absorbed);
        if (absorbed)
        {
            this->absorb(t, voxel, energy, stack);
            return false;
        }
        unsigned const m = phys_.material[voxel];
        Real const rho = phys_.density_g_cm3[voxel];
        unsigned const lepton = positron ? 1 : 0;
        unsigned const row = el.row(m, lepton);
        auto const stopping_rows = el.stopping_rows(m, lepton, rho);

        // Step length: soft-loss and lambda_1 limits, then the hard-event distance.
        unsigned i;
        Real f;
        el.grid.find(energy, i, f);
        Real const stop0 = el.soft_stopping(stopping_rows, i, f);
        Real const tr0 = lerp_table(el.transport_xs.data() + row, i, f);
        Real step = el.max_loss_fraction * energy / stop0;
        step = std::fmin(step, el.max_mfp_fraction / tr0);
        // Majorant of the hard cross section over the step's energies (tabulated).
        Real const hard_max = el.hard_majorant[row + i];
        bool hard = false;
        if (hard_max > 0)
        {
            Real const dist = sample_exponential<Real>(rng_, Real(1)) / hard_max;
            if (dist < step)
            {
                step = dist;
                hard = true;
            }
        }
        // Soft loss at the midpoint energy; lambda_1 there.
        FlightMedium medium{m, lepton, rho, 0, 0, 0};
        el.grid.find(std::fmax(energy - Real(0.5) * stop0 * step, el.absorption_MeV),
                     medium.mid_bin, medium.mid_frac);
        medium.loss_per_g = el.soft_stopping(stopping_rows, medium.mid_bin, medium.mid_frac);
        if (medium.loss_per_g * step > energy)
            medium.loss_per_g = energy / step;
        Real const planned_loss_per_g = medium.loss_per_g;
        Real const step_over_lambda1 =
            lerp_table(el.transport_xs.data() + row, medium.mid_bin, medium.mid_frac) * step;
        Real const step_over_lambda2 =
            lerp_table(el.transport_xs2.data() + row, medium.mid_bin, medium.mid_frac) * step;

        // Random hinge: tau s, deflection, (1 - tau) s. One fly_charged call
        // site for both segments keeps a single copy of the voxel walk in the
        // kernel (its code size is what limits it, docs/history/benchmarks-log.md).
        Real const first = step * generate_canonical<Real>(rng_);
        Real const start_energy = energy;
        Real flown = 0;
        Real lost = 0;
        Flight flight;
        MCDOSE_NO_UNROLL
        for (int segment = 0;; ++segment)
        {
            Real segment_flown, segment_lost;
            flight = this->fly_charged(t, segment == 0 ? first : step - first, medium,
                                       segment_flown, segment_lost, walking);
            flown += segment_flown;
            lost += segment_lost;
            bool const deflect = segment == 0 && flight == Flight::completed;
            walking = walking.select(deflect);
            if (!deflect)
                break;
            Real const m1 = -fast_expm1(-step_over_lambda1);
            Real const m2 = -fast_expm1(-step_over_lambda2);
            Real const one_minus_mu = sample_msc_one_minus_mu(el.msc, m1, m2, rng_);
            st.direction = rotate_azimuth_fraction(st.direction, 1 - one_minus_mu,
                                                   generate_canonical<Real>(rng_));
        }
        if (flight != Flight::completed)
            lost = this->correct_partial_loss(t, start_energy, stop0, flown, planned_loss_per_g,
                                              lost, stopping_rows);
        else if (lost > start_energy)
            lost += this->add_to_pending(t, start_energy - lost); // density effect along the path
        energy = start_energy - lost;
        if (energy < 0)
            energy = 0; // rounding of the last step (the deposit is already booked)
        t.energy = energy;
        if (flight == Flight::escaped)
        {
            this->flush_deposit(t);
            this->record_crossing(t.type, energy, w, st);
            bal_.escaped_MeV += double(energy) * double(w);
            if (positron)
                this->annihilate_outside(w);
            return false;
        }
        if (energy <= el.absorption_MeV)
        {
            // The track ends where its energy fell below the cut-off: in the last voxel it
            // lost energy in. (An interrupted flight stands on the far side of an interface,
            // in a voxel of another material: a gas voxel there would get the residual
            // energy of every track ending at its wall.)
            this->absorb(t, t.pending_voxel, energy, stack);
            return false;
        }
        if (flight == Flight::interrupted || !hard)
            return true;
        // The hard event is the track's next step (hard_step).
        t.hard_max = hard_max;
        t.hard_pending = true;
        return true;
    }

    //! The hard event at the end of a charged step: real with probability
    //! sigma(E) / majorant (both per unit mass), else a delta event. The
    //! flight that led here completed, so the voxel has the step's material.
    MCDOSE_FUNCTION MCDOSE_HARD_STEP_LINKAGE bool hard_step(Track& t, Stack& stack)
    {
        auto const& el = phys_.electron;
        t.hard_pending = false;
        bool const positron = t.type == ParticleType::positron;
        auto& st = t.st;
        Real const w = t.weight;
        Real const energy = t.energy;
        size_type const here = nav_.voxel(st);
        unsigned const m = phys_.material[here];
        unsigned const row = el.row(m, positron ? 1 : 0);
        unsigned i;
        Real f;
        el.grid.find(energy, i, f);
        auto const xs = this->hard_xs(row, i, f);
        MCDOSE_ASSERT(xs.total() <= t.hard_max * Real(1.0001));
        Real const xi = generate_canonical<Real>(rng_) * t.hard_max;
        if (xi > xs.total())
            return true; // delta event
        Interaction<Real> result;
        if (xi <= xs.inelastic)
        {
            result = MollerBhabhaInteractor<Real>(energy, st.direction, el.delta_cut_MeV,
                                                  positron)(rng_);
        }
        else if (xi <= xs.inelastic + xs.brems)
        {
            result = BremsstrahlungInteractor<Real>(energy, st.direction, el.brems_cut_MeV,
                                                    el.brems, m, i, f)(rng_);
            if (el.discard_brems_photons)
            {
                for (int k = 0; k < result.num_secondaries; ++k)
                    bal_.escaped_MeV += double(result.secondaries[k].energy_MeV) * double(w);
                result.num_secondaries = 0;
            }
        }
        else
        {
            result = AnnihilationInteractor<Real>(energy, st.direction)(rng_);
        }
        if (this->apply_interaction(result, st, here, w, stack, t.energy))
        {
            this->flush_deposit(t); // annihilated in flight
            return false;
        }
        return true;
    }

    //! Attenuation coefficient [1/cm] of a voxel at grid position (i, f).
    MCDOSE_FORCEINLINE_FUNCTION Real mu_per_cm(size_type voxel, unsigned i, Real f) const
    {
        unsigned const m = phys_.material[voxel];
        return lerp_table(phys_.mu_rho.data() + m * phys_.grid.size, i, f) *
               Real(phys_.density_g_cm3[voxel]);
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
        Real mfp_left = sample_exponential<Real>(rng_, Real(1));
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

    //! One photon step: flight to the next interaction and the interaction;
    //! false when the photon is gone.
    MCDOSE_FUNCTION bool photon_step(Track& t, Stack& stack)
    {
        auto& st = t.st;
        Real const w = t.weight;
        Real const energy = t.energy;
        if (energy < phys_.photon_cutoff_MeV)
        {
            this->deposit(nav_.voxel(st), energy * w);
            bal_.below_cutoff_MeV += double(energy) * double(w);
            return false;
        }
        unsigned i;
        Real f;
        phys_.grid.find(energy, i, f);
        if (!this->fly(st, i, f))
        {
            this->record_crossing(ParticleType::photon, energy, w, st);
            bal_.escaped_MeV += double(energy) * double(w);
            return false;
        }
        size_type const voxel = nav_.voxel(st);
        ++bal_.interactions;
        auto const result = this->interact(energy, st.direction, voxel, i, f);
        return !this->apply_interaction(result, st, voxel, w, stack, t.energy);
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
        if (xi <= lerp_table(cdf + 1, i, f, 3) ||
            (!pair_allowed && xi > lerp_table(cdf + 2, i, f, 3)))
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
} // namespace mcdose
