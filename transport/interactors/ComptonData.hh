//! \file transport/interactors/ComptonData.hh
//! Data the Compton sampler (ComptonInteractor.hh) reads when binding effects
//! are on: per material, the molecular incoherent scattering function S(x)
//! tabulated on a grid of x = sin(theta/2) / lambda [1/Angstrom] (Hubbell et
//! al., J. Phys. Chem. Ref. Data 4 (1975) 471; xraylib's SF_Compt(Z, q)):
//!   S(x) = sum_i n_i S(x, Z_i) over the atoms of one molecule,
//! which rises from 0 at x = 0 to the number of electrons sum_i n_i Z_i.
//! The Waller-Hartree (incoherent scattering function) model multiplies the
//! Klein-Nishina cross section by S(x) / (sum_i n_i Z_i); the sampler uses it
//! as a rejection probability. S is interpolated linearly in x.
#pragma once

#include "core/Span.hh"

namespace mcdose
{
//! One material's S(x) table.
template <class Real>
struct IncoherentTableView
{
    //! Grid of x [1/Angstrom], x[0] = 0, strictly increasing; beyond the last
    //! point S is taken as `electrons`.
    Span<Real const> x_per_A;
    //! S(x) at the grid points [-], 0 <= S <= electrons.
    Span<Real const> s;
    //! Electrons per molecule sum_i n_i Z_i [-] (the large-x limit of S).
    Real electrons{0};
};

//! Tables of all materials, indexed by the phantom's material index.
template <class Real>
struct ComptonData
{
    Span<IncoherentTableView<Real> const> materials;
};
} // namespace mcdose
