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
} // namespace

std::string run_summary_json(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files)
{
    nlohmann::json j;
    j["mcdose_version"] = meta.version;
    j["study_file"] = meta.study_file;
    j["started_utc"] = meta.started_utc;
    j["complete"] = meta.complete;
    j["stop_reason"] = meta.stop_reason;
    j["histories"] = meta.histories;
    j["wall_time_s"] = meta.wall_time_s;
    j["transport_time_s"] = meta.transport_time_s;
    j["histories_per_s"] = histories_per_s(meta);
    j["seed"] = meta.seed;
    j["rng_generator"] = meta.rng_generator;
    j["tally_method"] = meta.tally_method;
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
    double const dmax = max_dose(data);
    j["max_dose_Gy_per_particle"] = dmax;
    if (meta.source_particles)
    {
        j["source_particles"] = *meta.source_particles;
        j["max_dose_Gy"] = dmax * *meta.source_particles;
    }
    j["grid"] = {
        {"dimensions", {data.geometry.dims[0], data.geometry.dims[1], data.geometry.dims[2]}},
        {"spacing_cm",
         {data.geometry.spacing_cm[0], data.geometry.spacing_cm[1], data.geometry.spacing_cm[2]}},
        {"origin_cm",
         {data.geometry.origin_cm[0], data.geometry.origin_cm[1], data.geometry.origin_cm[2]}}};
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

std::string run_summary_text(RunMetadata const& meta, DoseGridData const& data,
                             std::vector<std::string> const& output_files)
{
    std::ostringstream os;
    os << "mcdose " << meta.version << "  " << meta.study_file << '\n';
    os << "  status        : " << (meta.complete ? "complete" : "INCOMPLETE (interrupted)") << " ("
       << meta.stop_reason << ")\n";
    os << "  histories     : " << meta.histories << '\n';
    os << std::setprecision(4);
    os << "  time          : " << meta.wall_time_s << " s wall, " << meta.transport_time_s
       << " s transport\n";
    os << "  histories/s   : " << histories_per_s(meta) << '\n';
    os << "  backend       : " << meta.backend << " (" << meta.device << "), " << meta.precision
       << " precision, tally " << meta.tally_method << ", rng " << meta.rng_generator << ", seed "
       << meta.seed << '\n';
    os << "  uncertainty   : ";
    if (meta.uncertainty_reached)
    {
        os << 100 * *meta.uncertainty_reached << " % mean over voxels above "
           << 100 * meta.uncertainty_dose_fraction << " % of the maximum dose\n";
    }
    else
    {
        os << "n/a (no dose deposited)\n";
    }
    os << "  energy/particle: emitted " << meta.energy.emitted_MeV << " MeV = deposited "
       << meta.energy.deposited_MeV << " + escaped " << meta.energy.escaped_MeV
       << " MeV + rest mass " << meta.energy.rest_mass_MeV << " MeV (of the deposit: below cut-off "
       << meta.energy.below_cutoff_MeV << ", stack overflow " << meta.energy.overflow_MeV
       << "; imbalance " << std::scientific << std::setprecision(2)
       << meta.energy.relative_imbalance() << std::defaultfloat << std::setprecision(4) << ")\n";
    double const dmax = max_dose(data);
    os << "  max dose      : " << dmax << " Gy per particle";
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
