//! \file transport/interactors/PairProductionData.hh
//! Data the pair-production sampler (PairProductionInteractor.hh) reads: per
//! element, the screening and Coulomb-correction constants of the
//! Bethe-Heitler cross section in the Butcher & Messel form (J. C. Butcher
//! and H. Messel, Nucl. Phys. 20 (1960) 15), and, per material, how to pick
//! the target element. These depend only on Z, so `make_pair_element` and
//! `make_pair_material` build them completely (no external data needed).
#pragma once

#include <cmath>
#include <vector>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Span.hh"

namespace mcdose
{
//! Constants of one element.
template <class Real>
struct PairElementView
{
    Real z{0};            //!< atomic number Z [-]
    Real inv_cbrt_z{0};   //!< Z^(-1/3) [-] (screening variable delta)
    Real log_term{0};     //!< F(Z) without Coulomb correction: (8/3) ln Z [-]
    Real coulomb_term{0}; //!< F(Z) with Coulomb correction: (8/3) ln Z + 8 f_c(Z) [-]
};

//! Elements of one material with the cumulative probability of choosing each
//! as the target (last entry 1).
template <class Real>
struct PairMaterialView
{
    Span<PairElementView<Real> const> elements;
    Span<Real const> cumulative_probability;

    //! Element for a uniform deviate xi in (0, 1].
    MCDOSE_FUNCTION PairElementView<Real> const& select(Real xi) const
    {
        MCDOSE_EXPECT(!elements.empty() && elements.size() == cumulative_probability.size());
        size_type i = 0;
        while (i + 1 < elements.size() && xi > cumulative_probability[i])
            ++i;
        return elements[i];
    }
};

//! Tables of all materials, indexed by the phantom's material index.
template <class Real>
struct PairProductionData
{
    Span<PairMaterialView<Real> const> materials;
};

//! Coulomb correction f_c(Z) of H. Davies, H. A. Bethe and L. C. Maximon,
//! Phys. Rev. 93 (1954) 788, Eq. (36) as fitted there: with a = alpha Z,
//!   f_c = a^2 [1/(1+a^2) + 0.20206 - 0.0369 a^2 + 0.0083 a^4 - 0.002 a^6].
inline double pair_coulomb_correction(int z)
{
    double const a2 = std::pow(constants::fine_structure * z, 2);
    return a2 * (1 / (1 + a2) + 0.20206 - 0.0369 * a2 + 0.0083 * a2 * a2 - 0.002 * a2 * a2 * a2);
}

//! Constants of element Z (1 <= Z <= 100).
template <class Real>
PairElementView<Real> make_pair_element(int z)
{
    MCDOSE_VALIDATE(z >= 1 && z <= 100,
                    << "pair production: atomic number must be in [1, 100] (got " << z << ")");
    double const log_term = 8.0 / 3.0 * std::log(double(z));
    PairElementView<Real> e;
    e.z = Real(z);
    e.inv_cbrt_z = Real(1 / std::cbrt(double(z)));
    e.log_term = Real(log_term);
    e.coulomb_term = Real(log_term + 8 * pair_coulomb_correction(z));
    return e;
}

//! Cumulative target-selection probabilities for a material of atoms
//! (Z_i, n_i): weights n_i Z_i (Z_i + 1), the Z dependence of pair plus
//! triplet production (the "+1" counts triplet production on the atomic
//! electrons; Hubbell, Gimm and Overbo, J. Phys. Chem. Ref. Data 9 (1980)
//! 1023). This ignores the weaker Z dependence of screening.
inline std::vector<double> pair_selection_cdf(std::vector<int> const& z,
                                              std::vector<double> const& atoms_per_molecule)
{
    MCDOSE_VALIDATE(!z.empty() && z.size() == atoms_per_molecule.size(),
                    << "pair production: need one atom count per element (" << z.size()
                    << " elements, " << atoms_per_molecule.size() << " counts)");
    std::vector<double> cdf(z.size());
    double sum = 0;
    for (std::size_t i = 0; i < z.size(); ++i)
    {
        MCDOSE_VALIDATE(atoms_per_molecule[i] >= 0 && std::isfinite(atoms_per_molecule[i]),
                        << "pair production: atom count of element Z=" << z[i]
                        << " must be finite and >= 0 (got " << atoms_per_molecule[i] << ")");
        sum += atoms_per_molecule[i] * z[i] * (z[i] + 1.0);
        cdf[i] = sum;
    }
    MCDOSE_VALIDATE(sum > 0, << "pair production: material has no atoms");
    for (double& c : cdf)
        c /= sum;
    cdf.back() = 1;
    return cdf;
}
} // namespace mcdose
