//! \file test/io/InputFile.test.cc
//! Inputs are regular files of a bounded size: a FIFO, directory or device is refused by
//! name at once (never waited on), a file larger than its kind may be is refused before
//! it is read.
#include "io/InputFile.hh"

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "io/InputError.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
class InputFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_inputfile_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! The problem read_input_file reports for `path`, or "" where it reads it.
    static std::string problem(std::string const& path, std::uint64_t limit = text_input_limit)
    {
        try
        {
            read_input_file(path, "study file", limit);
        }
        catch (InputError const& e)
        {
            EXPECT_EQ(path, e.file());
            return e.problem();
        }
        return {};
    }
    fs::path dir_;
};

TEST_F(InputFileTest, ReadsARegularFileWhole)
{
    std::string const path = (dir_ / "s.json").string();
    std::ofstream(path, std::ios::binary) << std::string("{\0}", 3);
    EXPECT_EQ(std::string("{\0}", 3), read_input_file(path, "study file"));
    EXPECT_NO_THROW(require_regular_file(path, "image"));
}

// A FIFO is refused by name at once: nothing writes into it, so a read would wait forever.
TEST_F(InputFileTest, FifoIsRefusedWithoutBlocking)
{
    std::string const fifo = (dir_ / "pipe").string();
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    EXPECT_NE(std::string::npos, problem(fifo).find("a FIFO (named pipe)")) << problem(fifo);
    EXPECT_THROW(require_regular_file(fifo, "checkpoint"), InputError);
}

TEST_F(InputFileTest, DirectoryDeviceAndMissingFileAreRefusedByName)
{
    EXPECT_NE(std::string::npos, problem(dir_.string()).find("a directory"));
    EXPECT_NE(std::string::npos, problem("/dev/null").find("a device"));
    EXPECT_NE(std::string::npos, problem((dir_ / "none").string()).find("cannot open"));
}

// A file larger than its kind may be is refused before it is read.
TEST_F(InputFileTest, SizeIsBoundedBeforeReading)
{
    std::string const path = (dir_ / "big.json").string();
    std::ofstream(path) << std::string(1000, ' ');
    EXPECT_TRUE(problem(path, 1000).empty());
    std::string const p = problem(path, 999);
    EXPECT_NE(std::string::npos, p.find("1000 bytes")) << p;
    EXPECT_NE(std::string::npos, p.find("999 bytes")) << p;
}

// Where a link is not to be followed (cache entries), it is refused as such.
TEST_F(InputFileTest, LinkRefusedWhereNotFollowed)
{
    std::string const target = (dir_ / "t").string();
    std::ofstream(target) << "x";
    fs::create_symlink(target, dir_ / "l");
    EXPECT_NO_THROW(open_input_file((dir_ / "l").string(), "cache file", 10, true));
    EXPECT_THROW(open_input_file((dir_ / "l").string(), "cache file", 10, false), InputError);
}
} // namespace
} // namespace mcdose
