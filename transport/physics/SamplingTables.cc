//! \file transport/physics/SamplingTables.cc
#include "transport/physics/SamplingTables.hh"

#include <cmath>

#include <xraylib.h>

#include "core/Assert.hh"
#include "phantoms/materials/Element.hh"
#include "transport/interactors/RayleighData.hh"

namespace mcdose
{
namespace
{
std::vector<double> x_grid(int points)
{
    MCDOSE_VALIDATE(points >= 10, << "sampling tables need at least 10 points (got " << points
                                  << ")");
    std::vector<double> x{0.0};
    for (int i = 0; i < points; ++i)
        x.push_back(1e-3 * std::pow(1e6, i / double(points - 1)));
    return x;
}

double checked(double v, xrl_error* err, char const* what, int Z)
{
    if (err)
    {
        std::string msg = err->message;
        xrl_error_free(err);
        MCDOSE_VALIDATE(false, << "xraylib " << what << "(Z=" << Z << ") failed: " << msg);
    }
    return v;
}
} // namespace

IncoherentTableData build_incoherent_table(Material const& material, int points)
{
    IncoherentTableData t;
    t.x_per_A = x_grid(points);
    t.s.assign(t.x_per_A.size(), 0.0);
    for (auto const& c : material.components)
    {
        double const n = c.mass_fraction / element_data(c.atomic_number).atomic_weight_g_mol;
        t.electrons += n * c.atomic_number;
        for (std::size_t i = 1; i < t.x_per_A.size(); ++i)
        {
            xrl_error* err = nullptr;
            double const s = SF_Compt(c.atomic_number, t.x_per_A[i], &err);
            t.s[i] += n * checked(s, err, "SF_Compt", c.atomic_number);
        }
    }
    for (auto& s : t.s)
        s = std::min(s, t.electrons);
    return t;
}

RayleighTableData build_rayleigh_table(Material const& material, int points)
{
    RayleighTableData t;
    auto const x = x_grid(points);
    t.f2.assign(x.size(), 0.0);
    for (double xi : x)
        t.x2_per_A2.push_back(xi * xi);
    for (auto const& c : material.components)
    {
        double const n = c.mass_fraction / element_data(c.atomic_number).atomic_weight_g_mol;
        for (std::size_t i = 0; i < x.size(); ++i)
        {
            xrl_error* err = nullptr;
            // F(0) = Z; xraylib's table starts above 0
            double const f = i == 0 ? double(c.atomic_number)
                                    : checked(FF_Rayl(c.atomic_number, x[i], &err), err, "FF_Rayl",
                                              c.atomic_number);
            t.f2[i] += n * f * f;
        }
    }
    t.cumulative = rayleigh_cumulative(t.x2_per_A2, t.f2, material.name.c_str());
    return t;
}
} // namespace mcdose
