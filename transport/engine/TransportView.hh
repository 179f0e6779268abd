//! \file transport/engine/TransportView.hh
//! Everything the transport step reads (photon tables and the electron view),
//! as one trivially copyable view
//! (spans into host or device memory). Built by TransportParams.
//!
//! Per-material tables live on one LogGridView energy grid:
//! - mu_rho[m * n + i]: total mass attenuation coefficient mu/rho [cm^2/g]
//!   (photoelectric + incoherent + coherent + pair) of material m at E_i;
//!   the voxel's mu = mu/rho * voxel density (mass density may differ from the
//!   material's nominal density);
//! - branch_cdf[(m * n + i) * 3 + k]: cumulative process fractions
//!   (photo, + incoherent, + coherent) / total; pair takes the rest;
//! - element_cdf[(m * n + i) * max_elements + e]: cumulative fraction of the
//!   material's photoabsorption on its e-th element (choosing the absorbing
//!   atom, hence its shells);
//! - majorant_per_cm[i]: for Woodcock tracking, max over the phantom's voxels
//!   of mu(E) on bin [E_i, E_i+1] (>= the interpolated mu on the whole bin).
#pragma once

#include <cstdint>

#include "core/Span.hh"
#include "phantoms/VoxelGrid.hh"
#include "transport/LogGrid.hh"
#include "transport/engine/ElectronTransportView.hh"
#include "transport/engine/PlaneCrossingView.hh"
#include "transport/geometry/VoxelGeometryView.hh"
#include "transport/interactors/ComptonData.hh"
#include "transport/interactors/PairProductionData.hh"
#include "transport/interactors/PhotoelectricData.hh"
#include "transport/interactors/RayleighData.hh"

namespace mcdose
{
//! How photons are tracked through the voxels.
enum class PhotonTracking : std::uint8_t
{
    siddon,  //!< exact voxel-by-voxel ray tracing
    woodcock //!< delta tracking with a majorant
};

template <class Real>
struct TransportView
{
    // Phantom
    VoxelGeometryView<Real> geometry;   //!< phantom local frame: corner at 0
    Span<MaterialIndex const> material; //!< per voxel
    Span<float const> density_g_cm3;    //!< per voxel

    // Tables
    LogGridView<Real> grid;
    unsigned num_materials{0};
    unsigned max_elements{0};
    Span<Real const> mu_rho;
    Span<Real const> branch_cdf;
    Span<Real const> element_cdf;
    Span<std::uint16_t const> element_index; //!< [m * max_elements + e] -> photo.elements index
    Span<std::uint8_t const> num_elements;   //!< per material
    Span<Real const> majorant_per_cm;

    // Interaction data
    PhotoelectricData<Real> photo;
    ComptonData<Real> compton;
    RayleighData<Real> rayleigh;
    PairProductionData<Real> pair;

    // Electrons and positrons (class II condensed history)
    ElectronTransportView<Real> electron;

    // Options
    Real photon_cutoff_MeV{0.01};
    PhotonTracking tracking{PhotonTracking::woodcock};
    bool compton_binding{true};

    // Phase-space scoring (outputs.phase_space); disabled unless its counter is set
    PlaneCrossingView<Real> crossings;
};
} // namespace mcdose
