//! \file test/io/McplTestFolder.hh
//! What the MCPL tests share: a fixture with a folder of its own (the test skipped in a
//! build without MCPL), and the refusal met when a file is opened and read whole.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "io/McplFile.hh"

namespace mcdose::test
{
class McplFolderTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!mcpl_available())
            GTEST_SKIP() << "built without MCPL";
        dir_ = std::filesystem::temp_directory_path() /
               ("mcdose_mcpl_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directories(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::string path(std::string const& name) const { return (dir_ / name).string(); }

    //! `bytes` written to the folder's file `name`; its path.
    std::string write(std::string const& name, std::string const& bytes) const
    {
        std::string const file = this->path(name);
        std::ofstream(file, std::ios::binary) << bytes;
        return file;
    }

    std::filesystem::path dir_;
};

//! The message of opening `file` and reading all its particles ("" if accepted).
inline std::string mcpl_refusal(std::string const& file, bool recover = false)
{
    try
    {
        McplReader r(file, true, recover);
        McplParticle p;
        std::uint64_t n = 0;
        while (r.read(p))
            ++n;
        EXPECT_EQ(r.size(), n);
        return "";
    }
    catch (RuntimeError const& e)
    {
        return e.what();
    }
}
} // namespace mcdose::test
