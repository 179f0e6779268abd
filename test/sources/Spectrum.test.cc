//! Spectra: a line + continuum spectrum sampled from one alias table, the piecewise-linear
//! continuum (EGSnrc mode 3), spectrum files through the study reader (energies checked
//! against the physics tables naming the file and row) and the inline spectrum's errors.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../transport/interactors/TransportTestHelpers.hh"
#include "io/InputError.hh"
#include "sources/SourceInput.hh"
#include "sources/SourceJson.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
namespace
{
GridGeometry cube()
{
    return make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{0.5, 0.5, 0.5}});
}

SourceInput pencil(SpectrumInput spectrum)
{
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::pencil;
    in.position_cm = {{5, 5, -10}};
    in.direction = {{0, 0, 1}};
    in.spectrum = std::move(spectrum);
    return in;
}

template <class Real>
using SpectrumTest = RealTypedTest<Real>;
TYPED_TEST_SUITE(SpectrumTest, RealTypes);
} // namespace

// Bins 0-1 (weight 2), 1-3 (1) and lines 0.511 (3), 2.0 (4) in one table: each entry is drawn
// with its weight over the total 10, bin energies uniform within their bin.
TYPED_TEST(SpectrumTest, LinesAndContinuumInOneTable)
{
    using Real = TypeParam;
    SpectrumInput s = SpectrumInput::histogram({0, 1, 3}, {2, 1});
    s.lines_MeV = {0.511, 2.0};
    s.line_weights = {3, 4};
    SourceParams<Real> params(pencil(s), cube());
    TestEngine rng(5);
    std::vector<double> counts(4, 0.0), in_second_bin;
    int const n = 40000;
    for (int i = 0; i < n; ++i)
    {
        double const e = params.host_view()(rng).energy_MeV;
        if (e == Real(0.511))
            counts[2] += 1;
        else if (e == Real(2.0))
            counts[3] += 1;
        else if (e < 1)
            counts[0] += 1;
        else
        {
            ASSERT_LE(e, 3.0);
            counts[1] += 1;
            in_second_bin.push_back(e);
        }
    }
    EXPECT_LT(chi_square(counts, {0.2, 0.1, 0.3, 0.4}), chi_square_limit(3));
    EXPECT_LT(
        ks_statistic(in_second_bin, [](double e) { return std::clamp((e - 1) / 2, 0.0, 1.0); }),
        ks_limit);
}

// A piecewise-linear continuum: density 0 at 1 MeV rising to 2 at 2 MeV, falling to 1 at
// 4 MeV. CDF by hand: (e - 1)^2 / 4 on [1, 2]; 1/4 + (3 (e - 2) - (e - 2)^2 / 4) / 4 on
// [2, 4] (total area 4).
TYPED_TEST(SpectrumTest, PiecewiseLinearContinuum)
{
    using Real = TypeParam;
    SpectrumInput s = SpectrumInput::histogram({1, 2, 4}, {1, 3});
    s.density = {0, 2, 1};
    SourceParams<Real> params(pencil(s), cube());
    TestEngine rng(9);
    std::vector<double> e(40000);
    for (auto& x : e)
        x = params.host_view()(rng).energy_MeV;
    auto const cdf = [](double x)
    {
        if (x <= 1)
            return 0.0;
        if (x <= 2)
            return (x - 1) * (x - 1) / 4;
        if (x >= 4)
            return 1.0;
        double const t = x - 2;
        return 0.25 + (2 * t - t * t / 4) / 4;
    };
    EXPECT_LT(ks_statistic(e, cdf), ks_limit);
    EXPECT_DOUBLE_EQ(linear_density_fraction(1.0, 1.0, 0.3), 0.3);
    EXPECT_DOUBLE_EQ(linear_density_fraction(0.0, 2.0, 0.25), 0.5);
    EXPECT_DOUBLE_EQ(linear_density_fraction(0.0, 0.0, 0.25), 0.0);
}

namespace
{
std::string write_file(std::string const& name, std::string const& text)
{
    auto const path = std::filesystem::temp_directory_path() /
                      ("mcdose_spectrum_src_" + std::to_string(::getpid()) + "_" + name);
    std::ofstream(path) << text;
    return path.string();
}

nlohmann::json source_with(char const* key, nlohmann::json value)
{
    nlohmann::json j = {{"type", "pencil"},
                        {"particle", "photon"},
                        {"position_cm", {0, 0, 0}},
                        {"direction", {0, 0, 1}}};
    j[key] = std::move(value);
    return j;
}

std::string parse_error(nlohmann::json const& j)
{
    try
    {
        parse_source(JsonNode(j, "study.json", "/sources/0"));
    }
    catch (InputError const& e)
    {
        return e.file() + ": " + e.pointer() + ": " + e.problem();
    }
    return "";
}
} // namespace

TEST(SpectrumJson, FilesInBothFormats)
{
    std::string const egs =
        write_file("m.spectrum", "Mohan-like\n3, 0, 1\n0.5, 2\n1.0, 1\n2.0, 0.5\n");
    SourceInput const a =
        parse_source(JsonNode(source_with("spectrum_file", egs), "study.json", "/sources/0"));
    ASSERT_TRUE(a.spectrum);
    EXPECT_EQ(a.spectrum->edges_MeV, (std::vector<double>{0, 0.5, 1.0, 2.0}));
    EXPECT_EQ(a.spectrum->weights, (std::vector<double>{1.0, 0.5, 0.5}));
    EXPECT_EQ(a.spectrum->file, egs);
    EXPECT_DOUBLE_EQ(max_energy_MeV(a), 2.0);

    std::string const cols = write_file("mixed.txt", "0 1 2\n1 3 1\n0.511 3\n");
    SourceInput const b = parse_source(JsonNode(
        source_with("spectrum_file", {{"path", cols}, {"format", "columns"}, {"per_MeV", true}}),
        "study.json", "/sources/0"));
    EXPECT_EQ(b.spectrum->weights, (std::vector<double>{2, 2}));
    EXPECT_EQ(b.spectrum->lines_MeV, (std::vector<double>{0.511}));

    // Energies beyond the physics tables: the file, the row and the limit.
    std::string const high = write_file("high.spectrum", "too high\n2, 0, 0\n10, 1\n60, 1\n");
    EXPECT_EQ(parse_error(source_with("spectrum_file", high)),
              high + ": line 4: the bin edge 60 MeV is outside the physics tables (0.001 to 50 "
                     "MeV); remove or correct that row");
    std::string const low = write_file("low.txt", "0.0005 1\n1.0 1\n");
    EXPECT_EQ(parse_error(source_with("spectrum_file", low)),
              low + ": line 1: the line energy 0.0005 MeV is outside the physics tables (0.001 "
                    "to 50 MeV); remove or correct that row");
    for (auto const& p : {egs, cols, high, low})
        std::filesystem::remove(p);
}

// Inline spectra: mixed form, per-MeV bins and each refusal naming its field.
TEST(SpectrumJson, InlineSpectraAndTheirErrors)
{
    auto const mixed = nlohmann::json::parse(
        R"({"edges_MeV": [0, 1, 3], "weights": [2, 1], "per_MeV": true,
            "lines_MeV": [0.511], "line_weights": [3]})");
    SourceInput const s =
        parse_source(JsonNode(source_with("spectrum", mixed), "study.json", "/sources/0"));
    EXPECT_EQ(s.spectrum->weights, (std::vector<double>{2, 2}));
    EXPECT_EQ(s.spectrum->line_weights, (std::vector<double>{3}));

    auto bad = mixed;
    bad["weights"] = {2, -1};
    EXPECT_NE(parse_error(source_with("spectrum", bad)).find("/sources/0/spectrum/weights/1"),
              std::string::npos);
    bad = mixed;
    bad["edges_MeV"] = {0, 3, 1};
    EXPECT_NE(parse_error(source_with("spectrum", bad))
                  .find("/sources/0/spectrum/edges_MeV/2: bin edges must increase strictly"),
              std::string::npos);
    bad["edges_MeV"] = {0, 1, 1};
    EXPECT_NE(parse_error(source_with("spectrum", bad)).find("/edges_MeV/2"), std::string::npos);
    bad = mixed;
    bad["weights"] = {0, 0};
    bad["line_weights"] = {0};
    EXPECT_NE(parse_error(source_with("spectrum", bad))
                  .find("/sources/0/spectrum/weights: all weights are zero"),
              std::string::npos);
    bad = mixed;
    bad["edges_MeV"] = {0, 1, 60};
    EXPECT_NE(parse_error(source_with("spectrum", bad)).find("/spectrum/edges_MeV/2"),
              std::string::npos);
    bad = mixed;
    bad.erase("line_weights");
    EXPECT_NE(parse_error(source_with("spectrum", bad)).find("needs \"line_weights\""),
              std::string::npos);
}
} // namespace mcdose::test
