//! \file dose/RunSummary.json.cc
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/AtomicFile.hh"
#include "dose/RunSummary.hh"

namespace mcdose
{
namespace
{
double histories_per_s(RunMetadata const& m)
{
    return m.transport_time_s > 0 ? double(m.histories) / m.transport_time_s : 0.0;
}

double max_dose(DoseGridData const& data)
{
    return max_dose_gy_per_particle(data);
}

//! A figure as {"value", "sigma"} (sigma null when unknown).
nlohmann::json figure_json(FigureWithSigma const& f)
{
    return {{"value", f.value},
            {"sigma", std::isfinite(f.sigma) ? nlohmann::json(f.sigma) : nlohmann::json(nullptr)}};
}

nlohmann::json dvh_json(DvhFigures const& f)
{
    nlohmann::json j{{"name", f.name},
                     {"origin", f.origin},
                     {"volume_cm3", f.volume_cm3},
                     {"voxels", f.voxels},
                     {"D_mean", figure_json(f.d_mean)},
                     {"D_min", figure_json(f.d_min)},
                     {"D_0.03cc", figure_json(f.d_003cc)},
                     {"D98", figure_json(f.d98)},
                     {"D95", figure_json(f.d95)},
                     {"D50", figure_json(f.d50)},
                     {"D2", figure_json(f.d2)}};
    j["V"] = nlohmann::json::array();
    for (auto const& v : f.v_at)
    {
        j["V"].push_back({{"dose", v.dose},
                          {"volume_cm3", figure_json(v.volume_cm3)},
                          {"volume_percent", figure_json(v.volume_percent)}});
    }
    return j;
}

//! The summary over the region and the structures' figures (keys in docs/output-files.md).
void add_report_json(DoseReport const& report, nlohmann::json& j)
{
    j["dose_unit"] = report.dose_unit;
    if (report.summary)
    {
        RegionSummary const& r = *report.summary;
        j["near_max"] = {{"value", r.near_max},
                         {"unit", report.dose_unit},
                         {"region", r.region},
                         {"definition", near_max_definition}};
        j["uncertainty"]["region"] = r.region;
        j["uncertainty"]["voxels"] = r.voxels_counted;
        j["uncertainty"]["definition"] = mean_uncertainty_definition;
        j["low_density"] = {{"threshold_g_cm3", r.low_density_threshold_g_cm3},
                            {"voxels_in_region", r.low_density_voxels},
                            {"max_dose", r.low_density_max},
                            {"max_dose_outside_region", r.outside_max}};
    }
    j["structures"] = nlohmann::json::array();
    for (auto const& f : report.dvhs)
        j["structures"].push_back(dvh_json(f));
}

//! The steps' wall times, in the order they ran.
nlohmann::json timing_json(std::vector<StepTime> const& steps)
{
    nlohmann::json j = nlohmann::json::array();
    for (StepTime const& s : steps)
        j.push_back({{"step", s.step}, {"seconds", s.seconds}});
    return j;
}
} // namespace

std::string step_times_text(std::vector<StepTime> const& steps)
{
    std::ostringstream os;
    os << std::setprecision(3);
    for (std::size_t i = 0; i < steps.size(); ++i)
        os << (i ? ", " : "") << steps[i].step << ' ' << steps[i].seconds << " s";
    return os.str();
}

std::string run_summary_json(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files)
{
    nlohmann::json j;
    j["mcdose_version"] = meta.version;
    j["study_file"] = meta.study_file;
    j["started_utc"] = meta.started_utc;
    j["complete"] = meta.complete;
    j["stop_reason"] = to_cstring(meta.stop_reason);
    j["histories"] = meta.histories;
    j["source_particles_sampled_ahead"] = meta.source_particles_ahead;
    j["wall_time_s"] = meta.wall_time_s;
    j["transport_time_s"] = meta.transport_time_s;
    j["timing"] = timing_json(meta.steps);
    j["histories_per_s"] = histories_per_s(meta);
    j["seed"] = meta.seed;
    j["rng_generator"] = meta.rng_generator;
    j["tally_method"] = meta.tally_method;
    j["uncertainty_method"] = meta.uncertainty_method;
    j["precision"] = meta.precision;
    j["backend"] = meta.backend;
    j["device"] = meta.device;
    j["uncertainty"] = {{"dose_fraction", meta.uncertainty_dose_fraction},
                        {"mean_relative", meta.uncertainty_reached
                                              ? nlohmann::json(*meta.uncertainty_reached)
                                              : nlohmann::json(nullptr)}};
    j["energy_balance_MeV_per_particle"] = {
        {"emitted", meta.energy.emitted_MeV},
        {"deposited", meta.energy.deposited_MeV},
        {"escaped", meta.energy.escaped_MeV},
        {"below_cutoff", meta.energy.below_cutoff_MeV},
        {"stack_overflow", meta.energy.overflow_MeV},
        {"rest_mass", meta.energy.rest_mass_MeV},
        {"relative_imbalance", meta.energy.relative_imbalance()}};
    // The maximum a plan is read by is the region's near maximum (the body's, or the
    // stop_on structure's); the grid's, often an air voxel, is reported apart.
    double const dmax = max_dose(data);
    double const particles = meta.source_particles.value_or(1.0);
    std::optional<RegionSummary> const& region = meta.report.summary;
    double const region_max = !region                         ? dmax
                              : meta.report.dose_unit == "Gy" ? region->near_max / particles
                                                              : region->near_max;
    j["max_dose_Gy_per_particle"] = region_max;
    j["max_dose_of"] =
        region ? "near max (D0.03cc) of " + region->region + ", low-density voxels left out"
               : std::string("the whole grid (no structures)");
    j["grid_max_dose_Gy_per_particle"] = dmax;
    j["dose_to"] = meta.quantity.keyword();
    j["dose_unit_of_outputs"] = dose_unit(meta);
    if (meta.quantity.to_water)
    {
        nlohmann::json ratios = nlohmann::json::object();
        for (std::size_t m = 0; m < data.material_names.size(); ++m)
            ratios[data.material_names[m]] = data.material_dose_factor.at(m);
        j["dose_to_water"] = {{"method", meta.quantity.method},
                              {"spectrum_energy_MeV", meta.quantity.spectrum_energy_MeV},
                              {"stopping_power_ratio_water_to_medium", ratios}};
    }
    if (meta.source_particles)
    {
        j["source_particles"] = *meta.source_particles;
        j["source_particles_from"] = meta.absolute.description;
        if (meta.absolute.monitor_units > 0)
        {
            j["monitor_units"] = meta.absolute.monitor_units;
            j["calibration_files"] = meta.absolute.calibration_files;
        }
        j["max_dose_Gy"] = region_max * particles;
        j["grid_max_dose_Gy"] = dmax * particles;
    }
    j["grid"] = {
        {"dimensions", {data.geometry.dims[0], data.geometry.dims[1], data.geometry.dims[2]}},
        {"spacing_cm",
         {data.geometry.spacing_cm[0], data.geometry.spacing_cm[1], data.geometry.spacing_cm[2]}},
        {"origin_cm",
         {data.geometry.origin_cm[0], data.geometry.origin_cm[1], data.geometry.origin_cm[2]}}};
    add_report_json(meta.report, j);
    j["zero_dose"] = meta.histories > 0 && meta.energy.deposited_MeV <= 0;
    j["warnings"] = meta.warnings;
    j["outputs"] = output_files;
    return j.dump(2) + "\n";
}

void write_run_summary_json(std::string const& path, RunMetadata const& meta,
                            DoseGridData const& data, std::vector<std::string> const& output_files)
{
    write_text_atomically(path, run_summary_json(meta, data, output_files));
}

std::string dose_report_text(DoseReport const& report, std::optional<double> uncertainty_reached,
                             int label_width)
{
    std::ostringstream os;
    auto label = [&](char const* name) -> std::ostream&
    { return os << "  " << std::left << std::setw(label_width) << name << std::right << ": "; };
    os << std::setprecision(4);
    std::string const& u = report.dose_unit;
    if (report.summary)
    {
        RegionSummary const& r = *report.summary;
        label("uncertainty");
        if (uncertainty_reached)
        {
            os << 100 * *uncertainty_reached << " % (1 sigma, mean relative) over "
               << r.voxels_counted << " voxels of " << r.region << " above "
               << 100 * r.dose_fraction << " % of its D0.03cc\n";
        }
        else
        {
            os << "n/a (no dose in " << r.region << ")\n";
        }
        label("near max") << r.near_max << " " << u << " in " << r.region
                          << " (D0.03cc, low-density voxels left out)\n";
        label("low density") << r.low_density_voxels << " voxels of " << r.region << " below "
                             << r.low_density_threshold_g_cm3 << " g/cm3, max " << r.low_density_max
                             << " " << u << "; outside " << r.region << " max " << r.outside_max
                             << " " << u << " (reported apart, not the plan's maximum)\n";
    }
    if (report.dvhs.empty())
        return os.str();
    label("structures") << "figures in " << u << " +- 1 sigma (ICRU 83; D0.03cc near max)\n";
    for (auto const& f : report.dvhs)
    {
        auto fig = [&](char const* name, FigureWithSigma const& x)
        {
            os << "  " << name << ' ' << x.value;
            if (std::isfinite(x.sigma))
                os << " +- " << x.sigma;
        };
        os << "    " << f.name << " (" << f.volume_cm3 << " cm3):";
        fig("Dmean", f.d_mean);
        fig("Dmin", f.d_min);
        fig("D0.03cc", f.d_003cc);
        fig("D98", f.d98);
        fig("D95", f.d95);
        fig("D50", f.d50);
        fig("D2", f.d2);
        for (auto const& v : f.v_at)
            os << "  V" << v.dose << ' ' << v.volume_percent.value << " %";
        os << '\n';
    }
    return os.str();
}

std::string run_summary_text(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files)
{
    std::ostringstream os;
    os << "mcdose " << meta.version << "  " << meta.study_file << '\n';
    os << "  status        : " << (meta.complete ? "complete" : "INCOMPLETE (interrupted)") << " ("
       << to_cstring(meta.stop_reason) << ")\n";
    os << "  histories     : " << meta.histories << '\n';
    os << std::setprecision(4);
    os << "  time          : " << meta.wall_time_s << " s wall, " << meta.transport_time_s
       << " s transport\n";
    if (!meta.steps.empty())
        os << "  time per step : " << step_times_text(meta.steps) << '\n';
    os << "  histories/s   : " << histories_per_s(meta) << '\n';
    os << "  backend       : " << meta.backend << " (" << meta.device << "), " << meta.precision
       << " precision, tally " << meta.tally_method << " (uncertainty from "
       << meta.uncertainty_method << "), rng " << meta.rng_generator << ", seed " << meta.seed
       << '\n';
    os << "  dose          : " << meta.quantity.name() << ", in " << dose_unit(meta);
    if (meta.source_particles)
        os << " (" << meta.absolute.description << ")";
    os << '\n';
    if (meta.report.summary)
    {
        os << dose_report_text(meta.report, meta.uncertainty_reached, 14);
    }
    else if (meta.uncertainty_reached)
    {
        os << "  uncertainty   : ";
        os << 100 * *meta.uncertainty_reached << " % mean over voxels above "
           << 100 * meta.uncertainty_dose_fraction << " % of the maximum dose\n";
    }
    else
    {
        os << "  uncertainty   : n/a (no dose deposited)\n";
    }
    os << "  energy/particle: emitted " << meta.energy.emitted_MeV << " MeV = deposited "
       << meta.energy.deposited_MeV << " + escaped " << meta.energy.escaped_MeV
       << " MeV + rest mass " << meta.energy.rest_mass_MeV << " MeV (of the deposit: below cut-off "
       << meta.energy.below_cutoff_MeV << ", stack overflow " << meta.energy.overflow_MeV
       << "; imbalance " << std::scientific << std::setprecision(2)
       << meta.energy.relative_imbalance() << std::defaultfloat << std::setprecision(4) << ")\n";
    double const dmax = max_dose(data);
    if (!meta.report.summary)
        os << dose_report_text(meta.report, std::nullopt, 14);
    os << "  grid maximum  : " << dmax
       << " Gy per particle (any voxel, air included; reported apart)";
    if (meta.source_particles)
        os << ", " << dmax * *meta.source_particles << " Gy for " << *meta.source_particles
           << " particles";
    os << '\n';
    for (auto const& w : meta.warnings)
        os << "  warning       : " << w << '\n';
    for (auto const& f : output_files)
        os << "  wrote         : " << f << '\n';
    return os.str();
}
} // namespace mcdose
