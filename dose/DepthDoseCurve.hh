//! \file dose/DepthDoseCurve.hh
//! A laterally integrated depth dose: energy per slab along one grid axis
//! with its standard uncertainty. Written by transport/output (depth-dose CSV),
//! read and compared by validation/ (DepthDoseComparison); it lives here, below
//! both, so that they share one type.
#pragma once

#include <cstddef>
#include <vector>

namespace mcdose
{
struct DepthDoseCurve
{
    int axis{2};                        //!< grid axis 0, 1, 2 (x, y, z)
    std::vector<double> lo_cm;          //!< slab lower face
    std::vector<double> hi_cm;          //!< slab upper face
    std::vector<double> edep_MeV;       //!< energy deposited in the slab
    std::vector<double> edep_sigma_MeV; //!< its standard uncertainty

    double mid_cm(std::size_t k) const { return 0.5 * (lo_cm[k] + hi_cm[k]); }
};
} // namespace mcdose
