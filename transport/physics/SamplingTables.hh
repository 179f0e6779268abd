//! \file transport/physics/SamplingTables.hh
//! Builders of the per-material tables the photon samplers read
//! (transport/interactors/ComptonData.hh, RayleighData.hh), from xraylib's S(x, Z)
//! and F(x, Z) in the independent-atom approximation (host vectors; the owner uploads).
#pragma once

#include <vector>

#include "phantoms/materials/Material.hh"

namespace mcdose
{
//! S(x) = sum_i n_i S(x, Z_i) with n_i = w_i / A_i [mol/g] (any normalisation works:
//! the sampler uses S / electrons); x[0] = 0, then `points` log-spaced values from 1e-3
//! to 1e3 1/Angstrom (S reaches the electron count well before).
struct IncoherentTableData
{
    std::vector<double> x_per_A;
    std::vector<double> s;
    double electrons{0}; //!< sum_i n_i Z_i = Z/A of the material [mol/g]
};
IncoherentTableData build_incoherent_table(Material const& material, int points = 240);

//! F^2(x) = sum_i n_i F(x, Z_i)^2 on a grid of x^2 (x2[0] = 0, then log-spaced x from
//! 1e-3 to 1e3 1/Angstrom; F^2 < 1e-12 of F^2(0) at the end) and its running integral
//! (RayleighData.hh's rayleigh_cumulative).
struct RayleighTableData
{
    std::vector<double> x2_per_A2;
    std::vector<double> f2;
    std::vector<double> cumulative;
};
RayleighTableData build_rayleigh_table(Material const& material, int points = 240);
} // namespace mcdose
