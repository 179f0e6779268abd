//! \file validation/harness/ValidationCase.hh
//! One reference case of `mcdose validate`: a folder validation/<name>/ with the
//! study, the reference result (with its provenance) and `case.json`, which says
//! how many histories each mode runs and the tolerances it is judged by. Model:
//! OpenMC `tests/regression_tests/<case>/` and `tests/testing_harness.py`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcdose
{
//! How a laterally integrated depth dose is judged against its reference.
struct DepthDoseTolerances
{
    double z_min_cm{0};            //!< bins compared: z_lo >= z_min_cm
    double z_max_cm{1e30};         //!< and z_hi <= z_max_cm
    double bin_of_max{0.02};       //!< |test - ref| <= bin_of_max * max(ref) + sigmas * sigma
    double sigmas{4};              //!< statistical allowance (combined sigma of the bin)
    double energy_deposited{0.01}; //!< |E_test / E_ref - 1| <= energy_deposited
    std::optional<double> r50_cm;  //!< |R50_test - R50_ref| (electrons)
    std::optional<double> rp_cm;   //!< |Rp_test - Rp_ref| (electrons)
};

//! Validation modes: quick (CI, minutes on 2 cores) and full (the documented figures).
enum class ValidationMode
{
    quick,
    full
};

char const* to_string(ValidationMode mode);

struct ValidationCase
{
    std::string name;            //!< folder name, e.g. "electron_20MeV_water"
    std::string directory;       //!< the folder (as found)
    std::string title;           //!< e.g. "20 MeV electron pencil beam in water"
    std::string study_path;      //!< the study file
    std::string reference_path;  //!< reference depth dose (CSV, see read_depth_dose_csv)
    std::string reference_label; //!< e.g. "PENELOPE-2018 (PenRed 1.14.0), 1e5 histories"
    std::string provenance_path; //!< the file that states where the reference comes from
    std::uint64_t quick_histories{0};
    std::uint64_t full_histories{0};
    DepthDoseTolerances tolerances;

    std::uint64_t histories(ValidationMode mode) const
    {
        return mode == ValidationMode::quick ? quick_histories : full_histories;
    }
};

//! Read `<directory>/case.json` (errors: InputError naming the file and field;
//! the study, reference and provenance files must exist).
ValidationCase load_validation_case(std::string const& directory);

//! Every case under `root` (each sub-folder holding a case.json), sorted by name.
//! Throws RuntimeError if `root` is not a folder or holds no case.
std::vector<ValidationCase> find_validation_cases(std::string const& root);
} // namespace mcdose
