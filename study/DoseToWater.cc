//! \file study/DoseToWater.cc
#include "study/DoseToWater.hh"

#include <cmath>
#include <sstream>

#include "core/Assert.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/physics/ElectronPhysics.hh"
#include "transport/physics/Quadrature.hh"

namespace mcdose
{
namespace
{
//! Panels of the 8-point Gauss–Legendre rule in ln E: 4 per e-fold of energy (E0 = 50 MeV:
//! 34 panels). The integrand S_w/S_m varies by a few % over decades: the rule is exact to
//! far below 1e-6 (checked against 4x the panels in test/study/DoseToWater.test.cc).
int panels_for(double low_MeV, double start_MeV)
{
    return std::max(8, int(std::ceil(4 * std::log(start_MeV / low_MeV))));
}
} // namespace

double water_to_medium_stopping_power_ratio(Material const& medium, Material const& water,
                                            double start_MeV)
{
    double const low = dose_to_water_low_MeV;
    MCDOSE_VALIDATE(start_MeV > 2 * low,
                    << "dose to water needs electrons above " << 2 * low
                    << " MeV (the slowing-down spectrum starts at " << start_MeV
                    << " MeV); set outputs.dose_to_water_energy_MeV or report dose to medium");
    ElectronPhysics const m(medium);
    ElectronPhysics const w(water);
    int const panels = panels_for(low, start_MeV);
    // Both integrals with the same rule in u = ln E (dE = E du): for water in water every
    // term of the numerator equals the denominator's, and the ratio is exactly 1.
    double const num = integrate_gl8(
        [&](double u)
        {
            double const e = std::exp(u);
            return w.collision_stopping(e, Lepton::electron) /
                   m.collision_stopping(e, Lepton::electron) * e;
        },
        std::log(low), std::log(start_MeV), panels);
    double const den = integrate_gl8(
        [&](double u)
        {
            double const e = std::exp(u);
            return m.collision_stopping(e, Lepton::electron) /
                   m.collision_stopping(e, Lepton::electron) * e;
        },
        std::log(low), std::log(start_MeV), panels);
    return num / den;
}

DoseToWater dose_to_water_factors(std::vector<Material> const& materials, double start_MeV)
{
    Material const& water = find_material("water");
    DoseToWater r;
    for (Material const& m : materials)
        r.factors.push_back(water_to_medium_stopping_power_ratio(m, water, start_MeV));
    r.quantity.to_water = true;
    r.quantity.spectrum_energy_MeV = start_MeV;
    std::ostringstream os;
    os << "D_w = D_m s_w,m per material; s_w,m the unrestricted collision stopping-power ratio "
          "water/medium (transport physics: Bethe with density effect; water = catalogue "
          "'water', I = 75 eV) averaged over the CSDA slowing-down spectrum in the medium of "
          "electrons started at "
       << start_MeV << " MeV, down to " << dose_to_water_low_MeV
       << " MeV (Bragg-Gray; Siebers et al., Phys. Med. Biol. 45 (2000) 983)";
    r.quantity.method = os.str();
    return r;
}
} // namespace mcdose
