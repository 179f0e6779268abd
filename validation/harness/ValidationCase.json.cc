//! \file validation/harness/ValidationCase.json.cc
#include <algorithm>
#include <filesystem>

#include "core/Assert.hh"
#include "io/JsonInput.hh"
#include "validation/harness/ValidationCase.hh"

namespace mcdose
{
namespace
{
namespace fs = std::filesystem;

//! A file named in case.json, relative to the case folder; it must exist.
std::string case_file(JsonNode const& node, fs::path const& dir)
{
    std::string const name = node.string("a file name relative to the case folder");
    fs::path const path = dir / name;
    if (!fs::is_regular_file(path))
        node.fail("'" + path.string() + "' does not exist; give a file of the case folder");
    return path.string();
}

std::uint64_t histories(JsonNode const& node)
{
    return static_cast<std::uint64_t>(
        node.integer(1, 1000000000000LL, "the histories of one run of the case"));
}

DepthDoseTolerances read_tolerances(JsonNode const& t)
{
    t.require_object("the tolerances");
    t.allow_only(
        {"z_min_cm", "z_max_cm", "bin_of_max", "sigmas", "energy_deposited", "r50_cm", "rp_cm"});
    DepthDoseTolerances tol;
    if (auto n = t.optional_child("z_min_cm"))
        tol.z_min_cm = n->number(NumberRange::non_negative());
    if (auto n = t.optional_child("z_max_cm"))
        tol.z_max_cm = n->number(NumberRange::positive());
    tol.bin_of_max = t.child("bin_of_max").number(NumberRange::open_closed(0, 1), "e.g. 0.02");
    tol.sigmas = t.child("sigmas").number(NumberRange::non_negative(), "e.g. 4");
    tol.energy_deposited =
        t.child("energy_deposited").number(NumberRange::open_closed(0, 1), "e.g. 0.01");
    if (auto n = t.optional_child("r50_cm"))
        tol.r50_cm = n->number(NumberRange::positive(), "e.g. 0.1");
    if (auto n = t.optional_child("rp_cm"))
        tol.rp_cm = n->number(NumberRange::positive(), "e.g. 0.1");
    if (tol.z_max_cm <= tol.z_min_cm)
        t.child("z_max_cm")
            .fail("must be above z_min_cm (" + std::to_string(tol.z_min_cm) + " cm)");
    return tol;
}
} // namespace

char const* to_string(ValidationMode mode)
{
    return mode == ValidationMode::quick ? "quick" : "full";
}

ValidationCase load_validation_case(std::string const& directory)
{
    fs::path const dir(directory);
    fs::path const file = dir / "case.json";
    nlohmann::json const doc = parse_json_file(file.string());
    JsonNode const root(doc, file.string());
    root.require_object("a validation case");
    root.allow_only({"title", "kind", "study", "reference", "histories", "tolerances"});
    ValidationCase c;
    c.name = dir.filename().string();
    if (c.name.empty())
        c.name = dir.parent_path().filename().string();
    c.directory = dir.string();
    c.title = root.child("title").string();
    root.child("kind").choice({"depth_dose"});
    c.study_path = case_file(root.child("study"), dir);
    JsonNode const ref = root.child("reference");
    ref.require_object("the reference");
    ref.allow_only({"file", "label", "provenance"});
    c.reference_path = case_file(ref.child("file"), dir);
    c.reference_label = ref.child("label").string("who computed it, with what, how many histories");
    c.provenance_path = case_file(ref.child("provenance"), dir);
    JsonNode const h = root.child("histories");
    h.require_object("the histories per mode");
    h.allow_only({"quick", "full"});
    c.quick_histories = histories(h.child("quick"));
    c.full_histories = histories(h.child("full"));
    c.tolerances = read_tolerances(root.child("tolerances"));
    return c;
}

std::vector<ValidationCase> find_validation_cases(std::string const& root)
{
    MCDOSE_VALIDATE(fs::is_directory(root), << "validation cases folder '" << root
                                            << "' does not exist; give the repository's "
                                               "validation/ folder with --cases-dir");
    std::vector<std::string> dirs;
    for (auto const& entry : fs::directory_iterator(root))
    {
        if (entry.is_directory() && fs::is_regular_file(entry.path() / "case.json"))
            dirs.push_back(entry.path().string());
    }
    std::sort(dirs.begin(), dirs.end());
    MCDOSE_VALIDATE(!dirs.empty(), << "'" << root
                                   << "' holds no validation case (no sub-folder with a "
                                      "case.json); give the repository's validation/ folder");
    std::vector<ValidationCase> cases;
    for (auto const& d : dirs)
        cases.push_back(load_validation_case(d));
    return cases;
}
} // namespace mcdose
