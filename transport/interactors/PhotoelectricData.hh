//! \file transport/interactors/PhotoelectricData.hh
//! Data the photoelectric sampler (PhotoelectricInteractor.hh) reads: per
//! element, its shells in order of decreasing binding energy with the
//! probability that an absorption happens in that shell, given the photon is
//! above the shell's edge and was not absorbed in a more tightly bound shell.
//! In the jump-ratio approximation this is 1 - 1/J_s, J_s the edge jump ratio
//! of shell s (xraylib: EdgeEnergy(Z, shell) and JumpFactor(Z, shell)); the
//! last listed shell should have probability 1.
//!
//! The element that absorbs the photon is chosen by the caller from the
//! per-element photoelectric cross sections at the photon energy (the physics
//! tables); this view only resolves the shell.
#pragma once

#include "core/Span.hh"

namespace mcdose
{
//! Shells of one element.
template <class Real>
struct PhotoelectricShellsView
{
    Span<Real const> binding_MeV; //!< binding (edge) energy of each shell [MeV], decreasing
    Span<Real const> probability; //!< conditional selection probability of each shell [-]
};

//! Shell tables of all elements, indexed by the element index the physics
//! tables use (not necessarily Z).
template <class Real>
struct PhotoelectricData
{
    Span<PhotoelectricShellsView<Real> const> elements;
};
} // namespace mcdose
