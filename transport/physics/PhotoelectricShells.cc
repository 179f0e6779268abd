//! \file transport/physics/PhotoelectricShells.cc
#include "transport/physics/PhotoelectricShells.hh"

#include <xraylib.h>

namespace mcdose
{
std::vector<PhotoelectricShell> photoelectric_shells(int Z)
{
    std::vector<PhotoelectricShell> out;
    int const shells[] = {K_SHELL, L1_SHELL, L2_SHELL, L3_SHELL};
    for (int s : shells)
    {
        xrl_error* err = nullptr;
        double const edge_keV = EdgeEnergy(Z, s, &err);
        if (err)
        {
            xrl_error_free(err);
            continue; // shell absent for this Z
        }
        err = nullptr;
        double const jump = JumpFactor(Z, s, &err);
        if (err || !(jump > 1))
        {
            if (err)
                xrl_error_free(err);
            continue;
        }
        out.push_back({edge_keV * 1e-3, 1 - 1 / jump});
    }
    xrl_error* err = nullptr;
    double outer_keV = EdgeEnergy(Z, M1_SHELL, &err);
    if (err)
    {
        xrl_error_free(err);
        outer_keV = 0;
    }
    out.push_back({outer_keV * 1e-3, 1.0});
    return out;
}
} // namespace mcdose
