//! \file sources/SourceInput.cc
#include "sources/SourceInput.hh"

#include <algorithm>

#include "core/Assert.hh"

namespace mcdose
{
char const* to_cstring(SourceKind k)
{
    switch (k)
    {
    case SourceKind::pencil:
        return "pencil";
    case SourceKind::parallel:
        return "parallel";
    case SourceKind::point:
        return "point";
    case SourceKind::isotropic:
        return "isotropic";
    case SourceKind::volume:
        return "volume";
    case SourceKind::beam:
        return "beam";
    case SourceKind::phase_space:
        return "phase_space";
    case SourceKind::rt_plan:
        return "rt_plan";
    }
    return "?";
}

char const* to_cstring(EmissionDensity e)
{
    switch (e)
    {
    case EmissionDensity::per_mass:
        return "per_mass";
    case EmissionDensity::per_volume:
        return "per_volume";
    case EmissionDensity::activity:
        return "activity";
    }
    return "?";
}

double max_energy_MeV(SourceInput const& s)
{
    if (s.energy_MeV)
        return *s.energy_MeV;
    if (s.phase_space)
        return s.phase_space->scan.max_energy_MeV;
    MCDOSE_VALIDATE(
        s.spectrum && (!s.spectrum->edges_MeV.empty() || !s.spectrum->lines_MeV.empty()),
        << s.pointer << ": give 'energy_MeV' or a 'spectrum'");
    auto const& sp = *s.spectrum;
    double e = sp.edges_MeV.empty() ? 0.0 : sp.edges_MeV.back();
    if (!sp.lines_MeV.empty())
        e = std::max(e, *std::max_element(sp.lines_MeV.begin(), sp.lines_MeV.end()));
    return e;
}
} // namespace mcdose
