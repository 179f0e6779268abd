//! \file transport/physics/ElasticScattering.hh
//! Elastic scattering of electrons and positrons on atoms (host only).
#pragma once

namespace mcdose
{
//! Molière's screening parameter A (dsigma/dOmega ~ 1/(1 - cos theta + 2A)^2):
//! A = (hbar / (2 p a_TF))^2 (1.13 + 3.76 (alpha Z / beta)^2), a_TF = 0.885 a_0 Z^{-1/3}
//! (Molière, Z. Naturforsch. 2a, 133 (1947); Bethe, Phys. Rev. 89, 1256 (1953)).
double moliere_screening_parameter(int Z, double T_MeV);

//! Transport (first-moment) cross section per atom [cm^2]:
//! sigma_1 = 2 pi int (1 - cos theta) dsigma/dOmega d cos theta with the screened
//! Rutherford (Wentzel) cross section for Z(Z+1) (the +1: scattering by the atomic
//! electrons, Fano 1954) times the McKinley–Feshbach Mott factor
//! R = 1 - beta^2 sin^2(theta/2) +/- pi alpha Z beta sin(theta/2)(1 - sin(theta/2))
//! (Phys. Rev. 74, 1759 (1948); + for electrons, - for positrons), integrated numerically.
//! The McKinley–Feshbach expansion is first order in alpha Z: accurate for Z below ~30.
double elastic_transport_cross_section_cm2(int Z, double T_MeV, bool positron);

//! Second transport cross section per atom [cm^2], same model:
//! sigma_2 = 2 pi int (1 - P_2(cos theta)) dsigma/dOmega d cos theta (the
//! Goudsmit–Saunderson decay rate of <P_2>, used with sigma_1 by the
//! two-moment multiple-scattering sampler, interactors/MultipleScattering.hh).
double elastic_second_transport_cross_section_cm2(int Z, double T_MeV, bool positron);
} // namespace mcdose
