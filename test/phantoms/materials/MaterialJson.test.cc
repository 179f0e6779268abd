//! \file test/phantoms/materials/MaterialJson.test.cc
#include "phantoms/materials/MaterialJson.hh"

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace mcdose::test
{
namespace
{
std::string error_of(std::string const& text)
{
    try
    {
        materials_from_json(text, "study.json");
    }
    catch (RuntimeError const& e)
    {
        return e.what();
    }
    return "(no error)";
}
} // namespace

TEST(MaterialJson, ReadsMaterials)
{
    auto const mats = materials_from_json(R"({"materials": [
        {"name": "gel", "density_g_cm3": 1.02, "elements": {"H": 0.11, "O": 0.89}},
        {"name": "gel78", "density_g_cm3": 1.0, "elements": {"H": 0.111894, "O": 0.888106},
         "mean_excitation_energy_eV": 78, "conductor": false}]})");
    ASSERT_EQ(mats.size(), 2u);
    EXPECT_EQ(mats[0].name, "gel");
    EXPECT_EQ(mats[0].mean_excitation_source, MeanExcitationSource::bragg_additivity);
    EXPECT_DOUBLE_EQ(mats[1].mean_excitation_energy_eV, 78);
    EXPECT_EQ(materials_from_json(R"({"name": "one", "density_g_cm3": 2,
                                      "elements": {"Al": 1}})")
                  .size(),
              1u);
}

TEST(MaterialJson, ErrorsNameFileAndField)
{
    std::string e = error_of(R"({"name": "g", "density": 1, "elements": {"H": 1}})");
    EXPECT_NE(e.find("study.json"), std::string::npos) << e;
    EXPECT_NE(e.find("unknown field"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean 'density_g_cm3'"), std::string::npos) << e;

    e = error_of(R"({"name": "g", "density_g_cm3": 1, "elements": {"Hx": 1}})");
    EXPECT_NE(e.find("unknown element symbol 'Hx'"), std::string::npos) << e;

    e = error_of(R"([{"name": "g", "density_g_cm3": 1, "elements": {"H": 1}},
                     {"name": "g", "density_g_cm3": 1, "elements": {"H": 1}}])");
    EXPECT_NE(e.find("defined twice"), std::string::npos) << e;

    e = error_of(R"({"name": "water", "density_g_cm3": 1, "elements": {"H": 1}})");
    EXPECT_NE(e.find("built-in material"), std::string::npos) << e;

    e = error_of(R"({"name": "g", "density_g_cm3": 1, "elements": {"H": 0.5}})");
    EXPECT_NE(e.find("sum to"), std::string::npos) << e;

    e = error_of(R"({"name": "g", "density_g_cm3": 1, )");
    EXPECT_NE(e.find("invalid JSON"), std::string::npos) << e;
}
} // namespace mcdose::test
