//! \file study/Calibrate.cc
#include "study/Calibrate.hh"

#include <iomanip>
#include <optional>
#include <sstream>

#include "core/Assert.hh"
#include "core/Config.hh"
#include "core/Hash.hh"
#include "io/InputError.hh"
#include "sources/SourceModel.hh"
#include "transport/engine/TableBuildStamp.hh"

namespace mcdose
{
namespace
{
//! The one source a reference study may have.
SourceInput const& reference_source(StudyInput const& study)
{
    if (study.sources.size() != 1)
    {
        throw InputError(study.study_file, "/sources",
                         "a reference study for 'mcdose calibrate' has exactly one source (the "
                         "model to calibrate); this one has " +
                             std::to_string(study.sources.size()));
    }
    SourceInput const& s = study.sources.front();
    if (s.kind != SourceKind::pencil && s.kind != SourceKind::parallel &&
        s.kind != SourceKind::point && s.kind != SourceKind::beam)
    {
        throw InputError(study.study_file, s.pointer + "/type",
                         std::string("a ") + to_cstring(s.kind) +
                             " source has no monitor units; calibrate a pencil, parallel, "
                             "point or beam source (a beam's calibration serves the rt_plan "
                             "sources of the same machine and energy)");
    }
    if (s.monitor_units)
    {
        throw InputError(study.study_file, s.pointer + "/monitor_units",
                         "a reference study computes the calibration: remove 'monitor_units' "
                         "and 'calibration' from its source");
    }
    return s;
}
} // namespace

DoseCalibration calibrate_source_model(StudyInput const& study, CalibrateOptions const& options,
                                       StudyRunOptions run_options, StudyRunSummary* summary)
{
    SourceInput const& source = reference_source(study);
    MCDOSE_VALIDATE(options.dose_per_monitor_unit_Gy > 0,
                    << "--dose-per-mu-Gy must be > 0 (e.g. 0.01 for 1 cGy/MU)");
    MCDOSE_VALIDATE(options.radius_cm >= 0, << "--radius-cm must be >= 0");
    std::optional<ReferencePointDose> ref;
    std::string dose_to = "medium";
    run_options.on_dose = [&](DoseGridData const& data, StudyInput const& s)
    {
        ref = reference_point_dose(data, options.point_cm, options.radius_cm);
        dose_to = s.outputs.dose_to_water ? "water" : "medium";
    };
    StudyRunSummary const run = run_study(study, run_options);
    if (summary)
        *summary = run;
    MCDOSE_VALIDATE(ref && ref->dose_Gy_per_particle > 0,
                    << "the reference run deposited no dose at the reference point ("
                    << options.point_cm[0] << ", " << options.point_cm[1] << ", "
                    << options.point_cm[2]
                    << ") cm: check that the source's field covers it, or run more histories");
    MCDOSE_VALIDATE(run.complete, << "the reference run was interrupted: no calibration written");

    DoseCalibration c;
    c.source_model = source_model_key(source);
    c.source_description = source_model_description(source);
    EmissionExtent const extent = emission_extent(source);
    c.emission_extent = extent.value;
    c.emission_extent_unit = extent.unit;
    c.condition = options.condition;
    c.point_cm = options.point_cm;
    c.radius_cm = options.radius_cm;
    c.voxels = ref->voxels;
    c.dose_per_monitor_unit_Gy = options.dose_per_monitor_unit_Gy;
    c.dose_to = dose_to;
    c.dose_per_particle_Gy = ref->dose_Gy_per_particle;
    c.dose_per_particle_sigma_Gy = ref->sigma_Gy_per_particle;
    c.reference_study_file = study.study_file;
    std::ostringstream hash;
    hash << std::hex << std::setw(16) << std::setfill('0') << fnv1a64(study.study_json);
    c.reference_study_hash = hash.str();
    c.reference_histories = run.histories;
    c.build = std::string(BuildInfo::version) + " (" + BuildInfo::git_describe + ")";
    c.physics_sha256 = TableBuildStamp::code_sha256;
    c.created_utc = utc_now_iso8601();
    return c;
}
} // namespace mcdose
