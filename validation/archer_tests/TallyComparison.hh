//! \file validation/archer_tests/TallyComparison.hh
//! The tally comparison of Liu et al. 2018 (ARCHER, Tables II-IV) on whole
//! transport runs: one study run with several tally methods, transport
//! precisions and history counts, the same RNG seed for all, each run's dose
//! grid compared voxel by voxel with a reference run. `mcdose compare-tallies`
//! is the CLI; docs/compare-tallies.md explains the numbers.
//!
//! References. For every history count the study is first run in double
//! precision with HB (hardware double atomics): the *reference*. Each run is
//! compared with it (rel_dev_*: what the paper reports). A float-transport run
//! draws its random numbers as floats, so its trajectories differ from the
//! double run's and rel_dev_* mixes tally error with statistical noise of the
//! order of the batch uncertainty. The tally error alone is measured against
//! the HB run of the *same* transport precision (tally_rel_dev_*): the tally
//! does not feed back into transport, so every method there sees exactly the
//! same deposits and differs only in how it adds them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/Types.hh"
#include "study/StudyInput.hh"
#include "tally/TallyMethod.hh"

namespace mcdose
{
struct TallyComparisonInput
{
    StudyInput study;
    std::string label;                    //!< "test2", or the study file
    std::vector<TallyMethod> methods;     //!< HB is always run (it is the reference)
    std::vector<Precision> precisions;    //!< transport precisions
    std::vector<std::uint64_t> histories; //!< one history count per comparison
    std::optional<Backend> backend;       //!< overrides the study's backend
    std::optional<int> cpu_threads;       //!< overrides the study's cpu_threads
    //! Batches folded into double totals. 1 (default) tallies the whole run in
    //! one grid of the method's storage, as the paper did; more hide float loss.
    int batches{1};
    //! Voxels compared one by one: reference energy above this fraction of its maximum.
    double voxel_fraction{0.01};
};

//! One transport run and its deviations (relative, signed for totals).
struct TallyRunRecord
{
    std::string test;
    std::string method;
    std::string precision; //!< transport precision: float or double
    std::string backend;   //!< cpu or gpu
    std::string device;
    std::uint64_t histories{0};
    int batches{1};
    double time_s{0}; //!< transport time (StudyRunSummary::transport_time_s)
    double histories_per_s{0};
    double total_MeV{0};   //!< energy summed over all voxels, whole run
    bool reference{false}; //!< the double-precision HB run itself
    //! Against the double-precision HB run of the same histories and seed.
    double rel_dev_total{0};
    double max_rel_dev_voxel{0};
    double rms_rel_dev_voxel{0};
    //! Against the HB run of the same transport precision (tally error only).
    double tally_rel_dev_total{0};
    double tally_max_rel_dev_voxel{0};
    double tally_rms_rel_dev_voxel{0};
    std::size_t voxels_compared{0};
};

//! Deviation of a dose grid from a reference grid.
struct GridDeviation
{
    double rel_total{0};     //!< (sum test - sum ref) / sum ref
    double max_rel_voxel{0}; //!< max |test - ref| / ref over the compared voxels
    double rms_rel_voxel{0}; //!< RMS of (test - ref) / ref over the compared voxels
    std::size_t voxels{0};   //!< voxels with ref > fraction * max(ref)
};

GridDeviation compare_grids(std::vector<double> const& test, std::vector<double> const& reference,
                            double voxel_fraction);

//! Run every (history count, precision, method) of `input`; `on_record` sees
//! each record as soon as its run ends (for a table printed as it goes).
//! Order per history count: the reference (double, HB) first, then per
//! precision its HB run and the other methods in the order given.
std::vector<TallyRunRecord>
compare_tally_methods(TallyComparisonInput const& input,
                      std::function<void(TallyRunRecord const&)> const& on_record = {});
} // namespace mcdose
