//! \file dose/Calibration.json.cc
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "dose/Calibration.hh"
#include "io/InputError.hh"
#include "io/InputFile.hh"
#include "io/JsonInput.hh"

namespace mcdose
{
ReferencePointDose reference_point_dose(DoseGridData const& data, Real3 const& point_cm,
                                        double radius_cm)
{
    validate_dose_data(data);
    GridGeometry const& g = data.geometry;
    size_type const holder = g.find_voxel(point_cm);
    MCDOSE_VALIDATE(holder != outside_grid,
                    << "the reference point (" << point_cm[0] << ", " << point_cm[1] << ", "
                    << point_cm[2] << ") cm is outside the dose grid; give a point in the phantom");
    double sum = 0, sum_var = 0;
    std::uint64_t n = 0;
    auto add = [&](size_type v)
    {
        double const d = voxel_dose_gy_per_particle(data, v);
        double const s = d * voxel_relative_uncertainty(data, v);
        sum += d;
        sum_var += s * s;
        ++n;
    };
    if (radius_cm <= 0)
    {
        add(holder);
    }
    else
    {
        Int3 ijk;
        for (ijk[2] = 0; ijk[2] < g.dims[2]; ++ijk[2])
            for (ijk[1] = 0; ijk[1] < g.dims[1]; ++ijk[1])
                for (ijk[0] = 0; ijk[0] < g.dims[0]; ++ijk[0])
                {
                    Real3 const c = g.voxel_centre_cm(ijk);
                    double r2 = 0;
                    for (int a = 0; a < 3; ++a)
                        r2 += (c[a] - point_cm[a]) * (c[a] - point_cm[a]);
                    if (r2 <= radius_cm * radius_cm)
                        add(g.linear_index(ijk));
                }
        MCDOSE_VALIDATE(n > 0, << "no voxel centre lies within " << radius_cm
                               << " cm of the reference point; give a larger radius");
    }
    return {sum / double(n), std::sqrt(sum_var) / double(n), n};
}

std::string calibration_json(DoseCalibration const& c)
{
    nlohmann::json j;
    j["format"] = "mcdose calibration";
    j["format_version"] = 1;
    j["source_model"] = c.source_model;
    j["source_description"] = c.source_description;
    j["emission_extent"] = {{"value", c.emission_extent}, {"unit", c.emission_extent_unit}};
    j["reference"] = {{"condition", c.condition},
                      {"point_cm", {c.point_cm[0], c.point_cm[1], c.point_cm[2]}},
                      {"radius_cm", c.radius_cm},
                      {"voxels", c.voxels},
                      {"dose_per_monitor_unit_Gy", c.dose_per_monitor_unit_Gy},
                      {"dose_to", c.dose_to}};
    j["dose_per_particle_Gy"] = c.dose_per_particle_Gy;
    j["dose_per_particle_sigma_Gy"] = c.dose_per_particle_sigma_Gy;
    j["particles_per_monitor_unit"] = c.particles_per_monitor_unit();
    j["monitor_backscatter"] = "not transported: a source may give monitor_backscatter_factor "
                               "(Popescu et al., Phys. Med. Biol. 50 (2005) 3375)";
    j["reference_study"] = {{"file", c.reference_study_file},
                            {"fnv1a64", c.reference_study_hash},
                            {"histories", c.reference_histories}};
    j["build"] = c.build;
    j["physics_sha256"] = c.physics_sha256;
    j["created_utc"] = c.created_utc;
    return j.dump(2) + "\n";
}

void write_calibration(std::string const& path, DoseCalibration const& c)
{
    write_text_atomically(path, calibration_json(c));
}

DoseCalibration read_calibration(std::string const& path)
{
    nlohmann::json const doc = parse_json_text(read_input_file(path, "calibration file"), path);
    JsonNode const root(doc, path);
    root.require_object("a calibration file written by 'mcdose calibrate'");
    if (root.child("format").string() != "mcdose calibration")
        root.child("format").fail("not an mcdose calibration file (format \"mcdose calibration\")");
    root.child("format_version").integer(1, 1, "format version 1");
    DoseCalibration c;
    c.source_model = root.child("source_model").string("the calibrated source model");
    if (auto d = root.optional_child("source_description"))
        c.source_description = d->string();
    JsonNode const extent = root.child("emission_extent");
    c.emission_extent = extent.child("value").number(NumberRange::positive(), "sr, cm^2 or 1");
    c.emission_extent_unit = extent.child("unit").choice({"sr", "cm^2", "pencil"});
    JsonNode const ref = root.child("reference");
    c.condition = ref.child("condition").string("the reference condition");
    c.point_cm = ref.child("point_cm").real3(NumberRange::closed(-1e5, 1e5), "cm");
    c.radius_cm = ref.child("radius_cm").number(NumberRange::non_negative(), "cm");
    c.voxels = std::uint64_t(ref.child("voxels").integer(1, 1LL << 62, "voxels averaged"));
    c.dose_per_monitor_unit_Gy =
        ref.child("dose_per_monitor_unit_Gy").number(NumberRange::open_closed(0, 1e3), "Gy per MU");
    c.dose_to = ref.child("dose_to").choice({"medium", "water"});
    c.dose_per_particle_Gy = root.child("dose_per_particle_Gy")
                                 .number(NumberRange::open_closed(0, 1e6), "Gy per particle");
    c.dose_per_particle_sigma_Gy = root.child("dose_per_particle_sigma_Gy")
                                       .number(NumberRange::non_negative(), "Gy per particle");
    JsonNode const study = root.child("reference_study");
    c.reference_study_file = study.child("file").string();
    c.reference_study_hash = study.child("fnv1a64").string();
    c.reference_histories = std::uint64_t(study.child("histories").integer(0, 1LL << 62));
    c.build = root.child("build").string("the mcdose build");
    c.physics_sha256 = root.child("physics_sha256").string("SHA-256 of the physics-table code");
    c.created_utc = root.child("created_utc").string();
    return c;
}
} // namespace mcdose
