//! \file study/SourceCalibration.cc
#include "study/SourceCalibration.hh"

#include <algorithm>
#include <sstream>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "io/InputError.hh"
#include "sources/SourceModel.hh"
#include "transport/engine/TableBuildStamp.hh"

namespace mcdose
{
double particles_from_monitor_units(SourceInput const& s, DoseCalibration const& c)
{
    MCDOSE_EXPECT(s.monitor_units);
    EmissionExtent const extent = emission_extent(s);
    return *s.monitor_units * c.particles_per_monitor_unit() * (extent.value / c.emission_extent) *
           s.monitor_backscatter_factor;
}

namespace
{
//! The calibration of one source, checked against its model.
DoseCalibration checked_calibration(std::string const& study_file, SourceInput const& s)
{
    std::string const where = s.pointer + "/calibration";
    DoseCalibration c;
    try
    {
        c = read_calibration(s.calibration);
    }
    catch (RuntimeError const& e)
    {
        throw InputError(study_file, where, e.what());
    }
    std::string const model = source_model_key(s);
    if (model != c.source_model)
    {
        throw InputError(study_file, where,
                         "'" + s.calibration + "' calibrates the source model '" + c.source_model +
                             "', not this source's '" + model +
                             "'; calibrate this model with 'mcdose calibrate' (same type, "
                             "particle and energy or spectrum) or give 'particles'");
    }
    EmissionExtent const extent = emission_extent(s);
    if (extent.unit != c.emission_extent_unit)
    {
        throw InputError(study_file, where,
                         "the calibration's emission extent is in " + c.emission_extent_unit +
                             ", this source's in " + extent.unit);
    }
    return c;
}
} // namespace

AbsoluteDoseSource resolve_monitor_units(std::string const& study_file,
                                         std::vector<SourceInput>& sources,
                                         std::vector<std::string>& warnings)
{
    AbsoluteDoseSource result;
    std::ostringstream os;
    std::string const this_build =
        std::string(BuildInfo::version) + " (" + BuildInfo::git_describe + ")";
    for (SourceInput& s : sources)
    {
        // A beam's monitor units without a calibration are only its weight.
        if (!s.monitor_units || s.calibration.empty())
            continue;
        DoseCalibration const c = checked_calibration(study_file, s);
        s.particles = particles_from_monitor_units(s, c);
        result.monitor_units += *s.monitor_units;
        result.calibration_files.push_back(s.calibration);
        result.calibration_relative_sigma =
            std::max(result.calibration_relative_sigma,
                     c.dose_per_particle_sigma_Gy / c.dose_per_particle_Gy);
        os << (os.tellp() > 0 ? "; " : "") << s.pointer << ": " << *s.monitor_units << " MU x "
           << c.particles_per_monitor_unit() << " particles/MU (" << c.condition << ", "
           << c.dose_per_monitor_unit_Gy << " Gy/MU) x extent ratio "
           << emission_extent(s).value / c.emission_extent << " x backscatter factor "
           << s.monitor_backscatter_factor << " = " << *s.particles << " particles, calibration "
           << s.calibration;
        if (c.physics_sha256 != TableBuildStamp::code_sha256)
        {
            warnings.push_back("the calibration '" + s.calibration + "' was computed by mcdose " +
                               c.build + " whose physics-table code differs from this build's (" +
                               this_build + "): recalibrate with 'mcdose calibrate'");
        }
    }
    result.description = os.str();
    return result;
}
} // namespace mcdose
