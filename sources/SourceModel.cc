//! \file sources/SourceModel.cc
#include "sources/SourceModel.hh"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "sources/BeamGeometry.hh"
#include "sources/PlanSource.hh"

namespace mcdose
{
namespace
{
std::string particle_name(ParticleType p)
{
    return p == ParticleType::photon     ? "photon"
           : p == ParticleType::electron ? "electron"
                                         : "positron";
}

void write_numbers(std::ostream& os, char const* name, std::vector<double> const& xs)
{
    os << ' ' << name << '=';
    for (std::size_t i = 0; i < xs.size(); ++i)
        os << (i ? "," : "") << xs[i];
}
} // namespace

std::string source_model_key(SourceInput const& s)
{
    std::ostringstream os;
    // A plan's beams come from the same focal spot as a beam source's: one model.
    os << std::setprecision(17)
       << (s.kind == SourceKind::rt_plan ? to_cstring(SourceKind::beam) : to_cstring(s.kind)) << ' '
       << particle_name(s.particle) << " source,";
    if (s.energy_MeV)
    {
        os << " energy_MeV=" << *s.energy_MeV;
    }
    else
    {
        MCDOSE_VALIDATE(s.spectrum, << s.pointer << ": the source has no energy");
        SpectrumInput const& sp = *s.spectrum;
        // Every part of the spectrum (bins, a piecewise-linear density, lines).
        if (!sp.edges_MeV.empty())
        {
            write_numbers(os, "edges_MeV", sp.edges_MeV);
            write_numbers(os, "weights", sp.weights);
        }
        if (!sp.density.empty())
            write_numbers(os, "density", sp.density);
        if (!sp.lines_MeV.empty())
        {
            write_numbers(os, "lines_MeV", sp.lines_MeV);
            write_numbers(os, "line_weights", sp.line_weights);
        }
    }
    return os.str();
}

std::string source_model_description(SourceInput const& s)
{
    std::ostringstream os;
    os << to_cstring(s.kind) << ' ' << particle_name(s.particle) << " source, ";
    if (s.energy_MeV)
    {
        os << *s.energy_MeV << " MeV";
    }
    else if (s.spectrum)
    {
        bool const lines = !s.spectrum->lines_MeV.empty();
        os << (lines ? "spectrum of " : "histogram spectrum of ")
           << (lines ? s.spectrum->lines_MeV.size() : s.spectrum->weights.size())
           << (lines ? " lines" : " bins") << " up to " << max_energy_MeV(s) << " MeV";
        if (!s.spectrum->file.empty())
            os << " (" << s.spectrum->file << ")";
    }
    return os.str();
}

double rectangle_solid_angle_sr(double w, double h, double d)
{
    return 4 * std::asin(w * h / std::sqrt((w * w + 4 * d * d) * (h * h + 4 * d * d)));
}

double disc_solid_angle_sr(double diameter, double d)
{
    double const r = diameter / 2;
    return 2 * constants::pi * (1 - d / std::sqrt(d * d + r * r));
}

EmissionExtent emission_extent(SourceInput const& s)
{
    switch (s.kind)
    {
    case SourceKind::pencil:
        return {1.0, "pencil"};
    case SourceKind::parallel:
    {
        MCDOSE_VALIDATE(s.field, << s.pointer << ": a parallel source needs a field");
        FieldInput const& f = *s.field;
        double const area = f.shape == FieldShape::rectangle
                                ? f.width_cm * f.height_cm
                                : constants::pi * f.diameter_cm * f.diameter_cm / 4;
        return {area, "cm^2"};
    }
    case SourceKind::point:
    {
        MCDOSE_VALIDATE(s.field, << s.pointer << ": a point source needs a field");
        FieldInput const& f = *s.field;
        double const omega = f.shape == FieldShape::rectangle
                                 ? rectangle_solid_angle_sr(f.width_cm, f.height_cm, f.distance_cm)
                                 : disc_solid_angle_sr(f.diameter_cm, f.distance_cm);
        return {omega, "sr"};
    }
    case SourceKind::beam:
    {
        // The field's solid angle at the focal spot, each cell weighted by its transmission
        // (the beam's sampling weights, BeamGeometry.hh).
        MCDOSE_VALIDATE(s.beam, << s.pointer << ": a beam source needs its geometry");
        BeamField const field = beam_field(*s.beam, s.pointer);
        double omega = 0;
        for (double w : field.weights)
            omega += w;
        return {omega, "sr"};
    }
    case SourceKind::rt_plan:
        MCDOSE_VALIDATE(s.plan, << s.pointer << ": an rt_plan source needs its plan");
        return {plan_mean_solid_angle_sr(*s.plan, s.pointer), "sr"};
    default:
        break;
    }
    MCDOSE_VALIDATE(false, << s.pointer << ": a " << to_cstring(s.kind)
                           << " source has no monitor units (give 'particles')");
    return {};
}
} // namespace mcdose
