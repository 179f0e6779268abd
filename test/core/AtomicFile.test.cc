#include "core/AtomicFile.hh"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "core/OutputSet.hh"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

namespace mcdose
{
namespace
{
//! A process id that is no longer in use (a child that has exited and been reaped).
pid_t dead_pid()
{
    pid_t const pid = ::fork();
    if (pid == 0)
        ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

std::size_t entries(fs::path const& dir)
{
    return std::size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}
} // namespace

// A link planted where the output goes is replaced, never written through: the file it
// points to keeps its contents.
TEST_F(AtomicFileTest, PlantedLinkAtTheOutputIsReplacedNotFollowed)
{
    std::string const victim = (dir_ / "victim").string();
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, dir_ / "summary.json");
    write_text_atomically((dir_ / "summary.json").string(), "result");
    EXPECT_EQ("precious", slurp(victim));
    EXPECT_FALSE(fs::is_symlink(dir_ / "summary.json"));
    EXPECT_EQ("result", slurp(dir_ / "summary.json"));
}

// A file is created with O_EXCL | O_NOFOLLOW: a link or a file in the way is refused,
// and what the link points to is left alone.
TEST_F(AtomicFileTest, CreateRefusesALinkOrAFileInTheWay)
{
    std::string const victim = (dir_ / "victim").string();
    std::ofstream(victim) << "precious";
    fs::create_symlink(victim, dir_ / "link");
    FileHandle const dir(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY));
    ASSERT_TRUE(dir);
    EXPECT_THROW(create_file_at(dir.get(), "link", 0644, "link"), RuntimeError);
    EXPECT_THROW(create_file_at(dir.get(), "victim", 0644, "victim"), RuntimeError);
    EXPECT_EQ("precious", slurp(victim));
    FileHandle made = create_file_at(dir.get(), "new", 0600, "new");
    write_and_close(std::move(made), "abc", 3, "new");
    struct stat st = {};
    ASSERT_EQ(0, ::stat((dir_ / "new").c_str(), &st));
    EXPECT_EQ(0600u, st.st_mode & 0777u);
    EXPECT_EQ("abc", slurp(dir_ / "new"));
}

// Modes as documented: outputs 0644, private files (cache entries) 0600, less the umask.
TEST_F(AtomicFileTest, ModesAsAsked)
{
    write_text_atomically((dir_ / "a").string(), "a");
    write_text_atomically((dir_ / "b").string(), "b", 0600);
    struct stat a = {}, b = {};
    ASSERT_EQ(0, ::stat((dir_ / "a").c_str(), &a));
    ASSERT_EQ(0, ::stat((dir_ / "b").c_str(), &b));
    mode_t const mask = ::umask(0);
    ::umask(mask);
    EXPECT_EQ(0644u & ~mask, a.st_mode & 0777u);
    EXPECT_EQ(0600u, b.st_mode & 0777u);
}

// While a writer works, the only new entry beside the output is a staging directory of
// this user's that no one else can enter; the writer's path is inside it.
TEST_F(AtomicFileTest, WritersWriteInsideAPrivateStagingDirectory)
{
    write_atomically((dir_ / "x.mha").string(),
                     [&](std::string const& tmp)
                     {
                         EXPECT_NE(std::string::npos, tmp.find("x.mha")) << tmp;
                         ASSERT_EQ(1u, entries(dir_));
                         fs::path const staging = fs::directory_iterator(dir_)->path();
                         EXPECT_EQ(0u, staging.filename().string().find(staging_prefix));
                         struct stat st = {};
                         ASSERT_EQ(0, ::lstat(staging.c_str(), &st));
                         EXPECT_TRUE(S_ISDIR(st.st_mode));
                         EXPECT_EQ(0700u, st.st_mode & 0777u);
                         EXPECT_EQ(::geteuid(), st.st_uid);
                         std::ofstream(tmp) << "image";
                         EXPECT_TRUE(fs::exists(staging / "x.mha"));
                     });
    EXPECT_EQ("image", slurp(dir_ / "x.mha"));
    EXPECT_EQ(1u, entries(dir_));
}

// A killed run's staging directory is removed by the next run into that directory;
// one of a live process stays, and a link named like one is never followed.
TEST_F(AtomicFileTest, StaleStagingOfDeadProcessesIsRemoved)
{
    pid_t const dead = dead_pid();
    fs::path const stale = dir_ / (staging_prefix + std::to_string(dead) + ".0");
    fs::path const live = dir_ / (staging_prefix + std::to_string(::getppid()) + ".0");
    fs::create_directories(stale);
    fs::create_directories(live);
    std::ofstream(stale / "r_dose.mha") << "partial";
    std::ofstream(live / "r_dose.mha") << "being written";
    fs::create_directories(dir_ / "elsewhere");
    std::ofstream(dir_ / "elsewhere" / "keep") << "keep";
    fs::create_directory_symlink(dir_ / "elsewhere",
                                 dir_ / (staging_prefix + std::to_string(dead) + ".1"));
    EXPECT_EQ(1, remove_stale_staging(dir_.string()));
    EXPECT_FALSE(fs::exists(stale));
    EXPECT_TRUE(fs::exists(live / "r_dose.mha"));
    EXPECT_EQ("keep", slurp(dir_ / "elsewhere" / "keep"));
}

// An output set: nothing in place until commit (an earlier run's files untouched), then
// all of it; dropped uncommitted, nothing of it is left.
TEST_F(AtomicFileTest, OutputSetReplacesTogetherOrNotAtAll)
{
    std::string const a = (dir_ / "r.h5").string();
    std::string const m = (dir_ / "r_manifest.json").string();
    write_text_atomically(a, "old data");
    write_text_atomically(m, "old manifest");
    {
        OutputSet const failed(dir_.string(), {"r.h5", "r_manifest.json"}, "r_manifest.json");
        write_text_atomically(a, "new data");
        EXPECT_EQ("old data", slurp(a));
        // a write elsewhere is not held back
        write_text_atomically((dir_ / "other.txt").string(), "other");
        EXPECT_EQ("other", slurp(dir_ / "other.txt"));
    }
    EXPECT_EQ("old data", slurp(a));
    EXPECT_EQ("old manifest", slurp(m));
    EXPECT_EQ(3u, entries(dir_)); // no staging left

    OutputSet set(dir_.string(), {"r.h5", "r_manifest.json"}, "r_manifest.json");
    write_text_atomically(m, "new manifest");
    write_text_atomically(a, "new data");
    EXPECT_EQ("old data", slurp(a));
    auto const moved = set.commit();
    ASSERT_EQ(2u, moved.size());
    EXPECT_EQ(m, moved.back()); // the manifest last
    EXPECT_EQ("new data", slurp(a));
    EXPECT_EQ("new manifest", slurp(m));
    EXPECT_EQ(3u, entries(dir_));
}
} // namespace mcdose
