#include "core/AtomicFile.hh"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/Assert.hh"

namespace fs = std::filesystem;

namespace mcdose
{
class AtomicFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ =
            fs::temp_directory_path() /
            ("mcdose_atomic_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    static std::string slurp(fs::path const& p)
    {
        std::ifstream in(p);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    fs::path dir_;
};

TEST_F(AtomicFileTest, WritesAndReplaces)
{
    auto const path = (dir_ / "out.txt").string();
    write_text_atomically(path, "first");
    EXPECT_EQ("first", slurp(path));
    write_text_atomically(path, "second");
    EXPECT_EQ("second", slurp(path));
    // Only the final file remains: no temporaries.
    EXPECT_EQ(1, std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}));
}

TEST_F(AtomicFileTest, FailureLeavesNoFileAndKeepsOld)
{
    auto const path = (dir_ / "dose.h5").string();
    EXPECT_THROW(write_atomically(path,
                                  [](std::string const& tmp)
                                  {
                                      std::ofstream(tmp) << "half written";
                                      throw RuntimeError("simulated failure mid-write");
                                  }),
                 RuntimeError);
    EXPECT_FALSE(fs::exists(path));
    EXPECT_TRUE(fs::is_empty(dir_));

    write_text_atomically(path, "good");
    EXPECT_THROW(write_atomically(path,
                                  [](std::string const& tmp)
                                  {
                                      std::ofstream(tmp) << "bad";
                                      throw RuntimeError("fail");
                                  }),
                 RuntimeError);
    EXPECT_EQ("good", slurp(path));
}

TEST_F(AtomicFileTest, MissingDirectoryNamesPath)
{
    auto const path = (dir_ / "no_such_dir" / "x.csv").string();
    try
    {
        write_text_atomically(path, "x");
        FAIL();
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("no_such_dir"), std::string::npos) << e.what();
    }
}
} // namespace mcdose

namespace mcdose
{
TEST_F(AtomicFileTest, RegisteredTemporariesAreRemovedOnRequest)
{
    // What a second signal does: the temporaries being written go, others stay.
    std::string const tmp = (dir_ / "a.h5.tmp.1").string();
    std::string const other = (dir_ / "b.csv").string();
    std::ofstream(tmp) << "partial";
    std::ofstream(other) << "done";
    {
        TemporaryFile const registered(tmp);
        remove_registered_temporaries();
        EXPECT_FALSE(fs::exists(tmp));
        EXPECT_TRUE(fs::exists(other));
    }
    // Unregistered once the writer is done with it.
    std::ofstream(tmp) << "again";
    remove_registered_temporaries();
    EXPECT_TRUE(fs::exists(tmp));
}

TEST_F(AtomicFileTest, WriterThatMakesNoFileIsAnError)
{
    // A third-party writer may report failure without throwing and without a file.
    std::string const path = (dir_ / "x.mha").string();
    EXPECT_THROW(write_atomically(path, [](std::string const&) {}), RuntimeError);
    EXPECT_FALSE(fs::exists(path));
}
} // namespace mcdose
