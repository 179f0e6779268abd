//! \file test/study/StudyFixture.hh
//! A scratch directory and a valid minimal study to mutate in error tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace mcdose::test
{
class StudyFixture : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = std::filesystem::temp_directory_path() /
               ("mcdose_study_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    //! A small valid study: water slab phantom, one pencil beam.
    static nlohmann::json minimal()
    {
        return nlohmann::json::parse(R"({
          "phantom": {"type": "shapes",
                      "grid": {"dimensions": [4, 4, 8], "spacing_cm": [1, 1, 0.5]},
                      "background": {"material": "water"},
                      "shapes": [{"type": "slab", "axis": "z", "from_cm": 0, "to_cm": 1,
                                  "material": "bone_cortical_icrp", "density_g_cm3": 1.85}]},
          "sources": [{"type": "pencil", "particle": "electron", "energy_MeV": 20,
                       "position_cm": [0, 0, -3], "direction": [0, 0, 1]}],
          "run": {"histories": 1000}
        })");
    }

    std::string write(std::string const& name, std::string const& text) const
    {
        auto const path = (dir_ / name).string();
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }
    std::string write_json(std::string const& name, nlohmann::json const& j) const
    {
        return this->write(name, j.dump(2));
    }

    std::filesystem::path dir_;
};
} // namespace mcdose::test
