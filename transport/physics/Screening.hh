//! \file transport/physics/Screening.hh
//! Thomas–Fermi screening functions shared by the pair and bremsstrahlung models.
#pragma once

#include <cmath>

namespace mcdose
{
//! Butcher & Messel (Nucl. Phys. 20, 15 (1960)) fits of the Thomas–Fermi screening
//! functions Phi_1, Phi_2 of the Bethe–Heitler cross sections; delta is the reduced
//! screening variable (136 m c^2 Z^{-1/3} k / (E E') for bremsstrahlung, its analogue
//! for pairs).
inline void butcher_messel_screening(double delta, double* phi1, double* phi2)
{
    if (delta <= 1)
    {
        *phi1 = 20.867 - 3.242 * delta + 0.625 * delta * delta;
        *phi2 = 20.209 - 1.930 * delta - 0.086 * delta * delta;
    }
    else
    {
        *phi1 = *phi2 = 21.12 - 4.184 * std::log(delta + 0.952);
    }
}
} // namespace mcdose
