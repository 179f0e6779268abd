//! \file transport/engine/ElectronTransportView.hh
//! What the class II condensed-history step of electrons and positrons reads
//! (HistoryTransport.hh), as one trivially copyable view. Built by
//! ElectronTables.cc from transport/physics/ElectronPhysics.
//!
//! Per material m and lepton l (0: e-, 1: e+) on one LogGridView of kinetic
//! energy, row r = (m * 2 + l) * n:
//! - stopping: soft (restricted) total stopping power [MeV cm^2/g]:
//!   collision losses below the delta-ray cut W_cc plus radiative losses below
//!   the bremsstrahlung cut W_cr, deposited continuously along the step. Its
//!   density-effect correction depends on the mass density, so it has a row per
//!   density node of the material (density_nodes[m], ElectronTables.hh: nodes
//!   uniform in ln rho spanning the material's voxel densities, one node for a
//!   single density or the nominal model), ((first + k) * 2 + l) * n, and is
//!   interpolated linearly in ln rho between the two nodes around the voxel's
//!   density (soft_stopping);
//! - transport_xs[r + i]: elastic transport cross section sigma_1 [cm^2/g]
//!   (1 / (rho sigma_1) is the transport mean free path lambda_1);
//! - hard_xs[(r + i) * 3 + k]: hard-event cross sections [cm^2/g], k =
//!   ChargedProcess: Møller (e-) / Bhabha (e+) above W_cc, bremsstrahlung above
//!   W_cr, two-photon annihilation in flight (e+ only; 0 for e-);
//! - hard_majorant[r + i]: the largest total hard cross section over the nodes
//!   a step starting in bin i can reach (ElectronTables.cc says why it bounds
//!   the linearly interpolated cross section): the delta-scattering majorant.
//! Bremsstrahlung photon energies: BremsSpectrumView (per material, on the same
//! grid); multiple scattering: WentzelScreeningTable (one for all materials).
#pragma once

#include <cmath>

#include "core/Span.hh"
#include "transport/LogGrid.hh"
#include "transport/interactors/BremsstrahlungInteractor.hh"
#include "transport/interactors/MultipleScattering.hh"

namespace mcdose
{
//! Columns of ElectronTransportView::hard_xs.
enum ChargedProcess : unsigned
{
    charged_inelastic = 0,    //!< Møller (e-) or Bhabha (e+) above W_cc
    charged_brems = 1,        //!< bremsstrahlung above W_cr
    charged_annihilation = 2, //!< positron annihilation in flight
    charged_process_count = 3
};

//! The density nodes of one material's stopping rows (ElectronTables.hh: DensityNodes).
template <class Real>
struct DensityNodesView
{
    Real ln_density_min{0};
    Real inv_ln_step{0}; //!< 0 with one node
    unsigned first{0};
    unsigned count{1};
};

//! Where a voxel's soft stopping power is read: the rows of the density nodes below
//! and above its density and the interpolation weight of the upper one.
template <class Real>
struct StoppingRows
{
    unsigned lower{0}, upper{0};
    Real weight{0}; //!< 0: the lower row alone (upper is then not read)
};

template <class Real>
struct ElectronTransportView
{
    //! false: electrons and positrons deposit their energy where they are
    //! created (the photon-only approximation, kept for studies of it).
    bool condensed_history{true};

    LogGridView<Real> grid; //!< kinetic energy [MeV]
    Span<Real const> stopping;
    Span<DensityNodesView<Real> const> density_nodes; //!< per material
    Span<Real const> transport_xs;
    Span<Real const> transport_xs2; //!< sigma_2 [cm^2/g], same layout
    Span<Real const> hard_xs;
    Span<Real const> hard_majorant;

    BremsSpectrumView<Real> brems;
    WentzelScreeningTable<Real> msc;

    // Cuts and step control: copied from ElectronTransportOptions (where the
    // defaults are) by TransportParams.
    Real absorption_MeV{0};            //!< below it e-/e+ stop and deposit locally
    Real delta_cut_MeV{0};             //!< W_cc
    Real brems_cut_MeV{0};             //!< W_cr
    Real max_loss_fraction{0};         //!< soft energy loss per step <= this fraction of E
    Real max_mfp_fraction{0};          //!< step <= this fraction of lambda_1
    bool discard_brems_photons{false}; //!< hard bremsstrahlung photons dropped (escaped)

    //! Row of material m, lepton l (0: e-, 1: e+) in stopping / transport_xs.
    MCDOSE_FORCEINLINE_FUNCTION unsigned row(unsigned m, unsigned l) const
    {
        return (m * 2 + l) * grid.size;
    }

    //! The stopping rows of material m, lepton l at mass density rho [g/cm^3].
    MCDOSE_FORCEINLINE_FUNCTION StoppingRows<Real> stopping_rows(unsigned m, unsigned l,
                                                                 Real rho) const
    {
        DensityNodesView<Real> const nodes = density_nodes[m];
        StoppingRows<Real> r;
        unsigned k = 0;
        if (nodes.count > 1)
        {
            // Clamped to the nodes (rho = 0 gives -inf, hence node 0).
            Real const x = std::fmin(
                std::fmax((std::log(rho) - nodes.ln_density_min) * nodes.inv_ln_step, Real(0)),
                Real(nodes.count - 1));
            k = static_cast<unsigned>(x);
            k = k < nodes.count - 2 ? k : nodes.count - 2;
            r.weight = x - Real(k);
        }
        r.lower = ((nodes.first + k) * 2 + l) * grid.size;
        r.upper = r.lower + 2 * grid.size;
        return r;
    }

    //! Soft stopping power [MeV cm^2/g] on `rows` at grid position (i, f).
    MCDOSE_FORCEINLINE_FUNCTION Real soft_stopping(StoppingRows<Real> const& rows, unsigned i,
                                                   Real f) const
    {
        Real const s = lerp_table(stopping.data() + rows.lower, i, f);
        if (rows.weight == 0)
            return s;
        return s + rows.weight * (lerp_table(stopping.data() + rows.upper, i, f) - s);
    }
};
} // namespace mcdose
