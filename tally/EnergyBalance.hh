//! \file tally/EnergyBalance.hh
//! Energy bookkeeping of a run: emitted = deposited + escaped + below cut-offs
//! (+ stack overflow, deposited locally). Each thread keeps its own balance in
//! double precision and the balances are summed after the run, so the check
//! is independent of the tally method's rounding.
#pragma once

#include "core/Macros.hh"

namespace mcdose
{
struct EnergyBalance
{
    double emitted_MeV{0};      //!< kinetic energy of the source particles
    double deposited_MeV{0};    //!< energy handed to the dose tally
    double escaped_MeV{0};      //!< kinetic energy of particles leaving the phantom
    double below_cutoff_MeV{0}; //!< deposited locally because below an absorption cut-off
    double overflow_MeV{0};     //!< deposited locally because the secondary stack was full
    double rest_mass_MeV{0}; //!< net rest-mass energy created (pair) minus released (annihilation)
    unsigned long long interactions{0}; //!< real photon interactions (all processes)

    MCDOSE_FORCEINLINE_FUNCTION EnergyBalance& operator+=(EnergyBalance const& o)
    {
        emitted_MeV += o.emitted_MeV;
        deposited_MeV += o.deposited_MeV;
        escaped_MeV += o.escaped_MeV;
        below_cutoff_MeV += o.below_cutoff_MeV;
        overflow_MeV += o.overflow_MeV;
        rest_mass_MeV += o.rest_mass_MeV;
        interactions += o.interactions;
        return *this;
    }

    //! Energy accounted for. Cut-off and overflow energy is *also* deposited
    //! (it is in deposited_MeV); it is listed separately for the summary only.
    MCDOSE_FORCEINLINE_FUNCTION double accounted_MeV() const
    {
        return deposited_MeV + escaped_MeV + rest_mass_MeV;
    }
    //! (accounted - emitted) / emitted.
    MCDOSE_FORCEINLINE_FUNCTION double relative_imbalance() const
    {
        return emitted_MeV > 0 ? (accounted_MeV() - emitted_MeV) / emitted_MeV : 0;
    }
};
} // namespace mcdose
