//! \file test/io/CacheFile.test.cc
//! Cache files: read back as written; a missing, truncated, corrupt, other-kind or
//! other-key file is reported, never returned; the directory's environment variables.
#include "io/CacheFile.hh"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
class CacheFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_cachefile_" +
                std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    static std::string slurp(std::string const& p)
    {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    static void spit(std::string const& p, std::string const& bytes)
    {
        std::ofstream(p, std::ios::binary) << bytes;
    }
    fs::path dir_;
};

TEST_F(CacheFileTest, ReadsBackWhatItWrote)
{
    std::string const key = "inputs A\n";
    std::string const path = cache_file_path((dir_ / "sub").string(), "tables", key);
    EXPECT_EQ(fs::path(path).filename().string().rfind("tables-", 0), 0u);
    EXPECT_FALSE(read_cache_file(path, "kind", key).exists);
    std::string payload("\0binary\xff payload", 16);
    write_cache_file(path, "kind", key, payload); // creates dir_/sub
    auto const r = read_cache_file(path, "kind", key);
    ASSERT_TRUE(r.payload) << r.problem;
    EXPECT_EQ(*r.payload, payload);
    EXPECT_TRUE(r.problem.empty());
    // No temporary left beside it.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "sub"), fs::directory_iterator{}), 1);
}

TEST_F(CacheFileTest, RejectsOtherKeysKindsAndDamage)
{
    std::string const path = (dir_ / "t.mcdc").string();
    write_cache_file(path, "kind", "key", std::string(1000, 'x'));
    std::string const good = slurp(path);

    auto expect_problem =
        [&](std::string const& kind, std::string const& key, std::string const& what)
    {
        auto const r = read_cache_file(path, kind, key);
        EXPECT_TRUE(r.exists);
        EXPECT_FALSE(r.payload);
        EXPECT_NE(r.problem.find(what), std::string::npos) << r.problem;
    };
    expect_problem("kind", "other key", "built for other inputs");
    expect_problem("other kind", "key", "another format");

    std::string flipped = good;
    flipped[good.size() / 2] ^= 0x10;
    spit(path, flipped);
    expect_problem("kind", "key", "checksum mismatch");

    spit(path, good.substr(0, good.size() - 100));
    expect_problem("kind", "key", "checksum mismatch");
    spit(path, good.substr(0, 10));
    expect_problem("kind", "key", "not an mcdose cache file");
    spit(path, "");
    expect_problem("kind", "key", "not an mcdose cache file");
}

TEST_F(CacheFileTest, UnwritableDirectoryIsAnError)
{
    fs::create_directories(dir_);
    spit((dir_ / "file").string(), "a file, not a directory");
    std::string const path = (dir_ / "file" / "sub" / "t.mcdc").string();
    try
    {
        write_cache_file(path, "kind", "key", "data");
        FAIL() << "expected an error";
    }
    catch (std::exception const& e)
    {
        EXPECT_NE(std::string(e.what()).find("cannot create the cache directory"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find(cache_directory_variable), std::string::npos);
    }
}

TEST(CacheDirectoryTest, EnvironmentDecides)
{
    auto save = [](char const* name)
    {
        char const* v = std::getenv(name);
        return v ? std::optional<std::string>(v) : std::nullopt;
    };
    auto const mcdose = save(cache_directory_variable);
    auto const xdg = save("XDG_CACHE_HOME");
    auto const home = save("HOME");

    ::setenv(cache_directory_variable, "/tmp/mine", 1);
    ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
    ::setenv("HOME", "/tmp/home", 1);
    EXPECT_EQ(default_cache_directory(), "/tmp/mine");
    ::setenv(cache_directory_variable, "", 1);
    EXPECT_EQ(default_cache_directory(), "/tmp/xdg/mcdose");
    ::unsetenv("XDG_CACHE_HOME");
    EXPECT_EQ(default_cache_directory(), "/tmp/home/.cache/mcdose");
    ::unsetenv("HOME");
    EXPECT_EQ(default_cache_directory(), "");

    auto restore = [](char const* name, std::optional<std::string> const& v)
    {
        if (v)
            ::setenv(name, v->c_str(), 1);
        else
            ::unsetenv(name);
    };
    restore(cache_directory_variable, mcdose);
    restore("XDG_CACHE_HOME", xdg);
    restore("HOME", home);
}
} // namespace
} // namespace mcdose
