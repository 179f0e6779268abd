//! \file validation/archer_tests/TallyComparison.cc
#include "validation/archer_tests/TallyComparison.hh"

#include <algorithm>
#include <cmath>

#include "core/Assert.hh"
#include "study/StudyRunner.hh"
#include "tally/DoseTally.hh"
#include "tally/accum/CompensatedSum.hh"

namespace mcdose
{
namespace
{
double kahan_total(std::vector<double> const& values)
{
    accum::KahanSum<double> s;
    for (double v : values)
        s.add(v);
    return s.value();
}

struct RunOutput
{
    TallyRunRecord record;
    std::vector<double> energy_MeV; //!< per voxel, whole run
};

RunOutput run_one(TallyComparisonInput const& input, std::uint64_t histories, Precision precision,
                  TallyMethod method)
{
    StudyInput study = input.study;
    study.physics.precision = precision;
    study.tally.method = method;
    study.tally.batches = input.batches;
    // The methods' own atomic adds, on either backend.
    study.tally.uncertainty = TallyUncertainty::batch;

    StudyRunOptions opts;
    opts.backend = input.backend;
    opts.histories = histories;
    opts.cpu_threads = input.cpu_threads;
    opts.write_outputs = false;
    RunOutput out;
    // The folded totals after the last batch (the run has a fixed history count).
    opts.on_batch = [&out](TransportProgress const& p)
    {
        if (p.histories_done == p.histories_total)
            out.energy_MeV = p.tally->result().energy_MeV;
        return true;
    };
    StudyRunSummary const s = run_study(study, opts);
    MCDOSE_ASSERT(s.complete && s.histories == histories && !out.energy_MeV.empty());

    TallyRunRecord& r = out.record;
    r.test = input.label;
    r.method = to_cstring(method);
    r.precision = to_cstring(precision);
    r.backend = s.backend;
    r.device = s.device;
    r.histories = s.histories;
    r.batches = std::max(1, input.batches);
    r.time_s = s.transport_time_s;
    r.histories_per_s = s.histories_per_s;
    r.total_MeV = kahan_total(out.energy_MeV);
    return out;
}

//! `items` without repeats, first occurrence kept.
template <class T>
std::vector<T> unique_in_order(std::vector<T> const& items)
{
    std::vector<T> result;
    for (T const& x : items)
        if (std::find(result.begin(), result.end(), x) == result.end())
            result.push_back(x);
    return result;
}

void set_deviations(TallyRunRecord& r, GridDeviation const& vs_reference,
                    GridDeviation const& vs_same_precision)
{
    r.rel_dev_total = vs_reference.rel_total;
    r.max_rel_dev_voxel = vs_reference.max_rel_voxel;
    r.rms_rel_dev_voxel = vs_reference.rms_rel_voxel;
    r.voxels_compared = vs_reference.voxels;
    r.tally_rel_dev_total = vs_same_precision.rel_total;
    r.tally_max_rel_dev_voxel = vs_same_precision.max_rel_voxel;
    r.tally_rms_rel_dev_voxel = vs_same_precision.rms_rel_voxel;
}
} // namespace

GridDeviation compare_grids(std::vector<double> const& test, std::vector<double> const& reference,
                            double voxel_fraction)
{
    MCDOSE_EXPECT(test.size() == reference.size());
    GridDeviation d;
    double const ref_total = kahan_total(reference);
    MCDOSE_VALIDATE(ref_total > 0, << "the reference run deposited no energy in the phantom; "
                                      "aim the source at the phantom or run more histories");
    d.rel_total = (kahan_total(test) - ref_total) / ref_total;
    double const ref_max = *std::max_element(reference.begin(), reference.end());
    double const threshold = voxel_fraction * ref_max;
    double sum_sq = 0;
    for (std::size_t v = 0; v < reference.size(); ++v)
    {
        if (!(reference[v] > threshold))
            continue;
        double const rel = (test[v] - reference[v]) / reference[v];
        d.max_rel_voxel = std::max(d.max_rel_voxel, std::fabs(rel));
        sum_sq += rel * rel;
        ++d.voxels;
    }
    d.rms_rel_voxel = d.voxels > 0 ? std::sqrt(sum_sq / double(d.voxels)) : 0.0;
    return d;
}

std::vector<TallyRunRecord>
compare_tally_methods(TallyComparisonInput const& input,
                      std::function<void(TallyRunRecord const&)> const& on_record)
{
    MCDOSE_VALIDATE(!input.methods.empty(), << "no tally methods to compare; give e.g. "
                                               "'--methods fa,kas,hb'");
    MCDOSE_VALIDATE(!input.precisions.empty(), << "no transport precisions to compare; give "
                                                  "'--precisions float,double'");
    MCDOSE_VALIDATE(!input.histories.empty(), << "no history counts; give '--histories 4e6'");
    MCDOSE_VALIDATE(input.batches >= 1 && input.batches <= 1000,
                    << "'--batches' must be between 1 and 1000 (got " << input.batches << ")");
    MCDOSE_VALIDATE(input.voxel_fraction >= 0 && input.voxel_fraction < 1,
                    << "'--voxel-fraction' must be in [0, 1) (got " << input.voxel_fraction
                    << "); 0.01 compares voxels above 1% of the maximum");

    std::vector<TallyRunRecord> records;
    auto emit = [&](TallyRunRecord const& r)
    {
        records.push_back(r);
        if (on_record)
            on_record(r);
    };
    double const f = input.voxel_fraction;
    for (std::uint64_t const n : input.histories)
    {
        RunOutput reference = run_one(input, n, Precision::double_, TallyMethod::hb);
        reference.record.reference = true;
        GridDeviation const self = compare_grids(reference.energy_MeV, reference.energy_MeV, f);
        set_deviations(reference.record, self, self);
        emit(reference.record);

        for (Precision p : unique_in_order(input.precisions))
        {
            // HB in this transport precision (in double: the reference itself).
            RunOutput same;
            if (p != Precision::double_)
            {
                same = run_one(input, n, p, TallyMethod::hb);
                set_deviations(same.record, compare_grids(same.energy_MeV, reference.energy_MeV, f),
                               compare_grids(same.energy_MeV, same.energy_MeV, f));
                emit(same.record);
            }
            std::vector<double> const& base =
                p == Precision::double_ ? reference.energy_MeV : same.energy_MeV;
            for (TallyMethod m : unique_in_order(input.methods))
            {
                if (m == TallyMethod::hb)
                    continue;
                RunOutput run = run_one(input, n, p, m);
                set_deviations(run.record, compare_grids(run.energy_MeV, reference.energy_MeV, f),
                               compare_grids(run.energy_MeV, base, f));
                emit(run.record);
            }
        }
    }
    return records;
}
} // namespace mcdose
