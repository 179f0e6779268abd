//! \file test/io/CacheFileTrust.test.cc
//! A cache on a shared machine: only regular files of this user that no one else can
//! write, in a directory of this user's that no one else can write, are read; anything
//! else is reported (the caller warns once and rebuilds), never read, never fatal. A
//! seeded corpus of mutants of a valid file: none crashes, none is accepted.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "core/Sha256.hh"
#include "io/CacheFile.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
class CacheFileTrustTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_cachetrust_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        path_ = cache_file_path(dir_.string(), "tables", key_);
        write_cache_file(path_, kind_, key_, payload_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    static std::string slurp(std::string const& p)
    {
        std::ifstream in(p, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }
    //! Replace the entry by `bytes` (mode 0600, so only its content is judged).
    void spit(std::string const& bytes) const
    {
        fs::remove(path_);
        std::ofstream(path_, std::ios::binary) << bytes;
        fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_write);
    }
    CacheFileRead read() const { return read_cache_file(path_, kind_, key_); }

    fs::path dir_;
    std::string const kind_ = "mcdose transport tables";
    std::string const key_ = "materials: water\nenergy grid: 1 keV - 20 MeV\n";
    std::string const payload_ = std::string(600, 'p') + std::string("\0\x01\xff", 3);
    std::string path_;
};

//! Expect `r` to be an existing entry refused with a problem containing `why`.
void expect_refused(CacheFileRead const& r, std::string const& why)
{
    EXPECT_TRUE(r.exists);
    EXPECT_FALSE(r.payload);
    EXPECT_NE(std::string::npos, r.problem.find(why)) << r.problem;
}
} // namespace

// Written private: the directory 0700 (when made here), the entry 0600.
TEST_F(CacheFileTrustTest, WrittenPrivate)
{
    struct stat d = {}, f = {};
    ASSERT_EQ(0, ::stat(dir_.c_str(), &d));
    ASSERT_EQ(0, ::stat(path_.c_str(), &f));
    EXPECT_EQ(0700u, d.st_mode & 0777u);
    EXPECT_EQ(0600u, f.st_mode & 0777u);
    EXPECT_TRUE(cache_directory_problem(dir_.string()).empty());
    ASSERT_TRUE(read().payload) << read().problem;
}

// A group- or world-writable entry could have been forged by another user: ignored.
TEST_F(CacheFileTrustTest, GroupOrWorldWritableEntryIsIgnored)
{
    fs::permissions(path_, fs::perms::group_write, fs::perm_options::add);
    expect_refused(read(), "other users can write it");
    fs::permissions(path_, fs::perms::group_write, fs::perm_options::remove);
    fs::permissions(path_, fs::perms::others_write, fs::perm_options::add);
    expect_refused(read(), "other users can write it");
}

// A link (to a valid entry, even) or a FIFO in the entry's place is refused, at once.
TEST_F(CacheFileTrustTest, LinkOrFifoEntryIsIgnoredWithoutBlocking)
{
    std::string const real = path_ + ".real";
    fs::rename(path_, real);
    fs::create_symlink(real, path_);
    expect_refused(read(), "symbolic link");
    fs::remove(path_);
    ASSERT_EQ(0, ::mkfifo(path_.c_str(), 0600));
    expect_refused(read(), "FIFO");
}

// A directory other users can write, or one of another user's, is never read from nor
// written into.
TEST_F(CacheFileTrustTest, UntrustedDirectoryIsNotUsed)
{
    fs::permissions(dir_, fs::perms::others_write | fs::perms::others_exec, fs::perm_options::add);
    EXPECT_NE(std::string::npos,
              cache_directory_problem(dir_.string()).find("other users can write into it"));
    EXPECT_THROW(write_cache_file(path_, kind_, key_, payload_), RuntimeError);
    fs::permissions(dir_, fs::perms::others_write | fs::perms::others_exec,
                    fs::perm_options::remove);
    EXPECT_TRUE(cache_directory_problem(dir_.string()).empty());
    EXPECT_TRUE(cache_directory_problem((dir_ / "not yet made").string()).empty());
}

// An entry of another user's (here given away by root) is ignored; as any other user the
// file cannot be given away, so the case is skipped.
TEST_F(CacheFileTrustTest, EntryOfAnotherUserIsIgnored)
{
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root to give a file to another user (chown)";
    ASSERT_EQ(0, ::chown(path_.c_str(), 65534, 65534));
    expect_refused(read(), "belongs to another user");
    ASSERT_EQ(0, ::chown(dir_.c_str(), 65534, 65534));
    EXPECT_NE(std::string::npos,
              cache_directory_problem(dir_.string()).find("belongs to another user"));
}

// Seeded mutants of a valid entry: flipped bytes, cut or extended files, and changes to
// the container (magic, version, kind, key, lengths) with the checksum made right again.
// None may crash, none may be read as valid.
TEST_F(CacheFileTrustTest, MutantCorpusIsNeverAccepted)
{
    std::string const valid = slurp(path_);
    std::size_t const digest = 32;
    std::size_t const body = valid.size() - digest;
    std::size_t const container = body - payload_.size(); // all before the payload's bytes
    std::mt19937_64 rng(20261129);
    auto pick = [&](std::size_t n) { return std::size_t(rng() % n); };
    int tried = 0;
    for (int i = 0; i < 320; ++i)
    {
        std::string m = valid;
        switch (i % 5)
        {
        case 0: // one or two bytes flipped anywhere
        {
            std::size_t const at = pick(m.size());
            m[at] ^= char(1 + pick(255));
            if (rng() % 2)
                m[(at + 1 + pick(m.size() - 1)) % m.size()] ^= char(1 + pick(255));
            break;
        }
        case 1: // cut
            m.resize(pick(m.size()));
            break;
        case 2: // extended
            m += std::string(1 + pick(64), char(pick(256)));
            break;
        case 3: // bytes inserted
            m.insert(pick(m.size()), std::string(1 + pick(16), char(pick(256))));
            break;
        default: // the container changed, the checksum recomputed
        {
            m[pick(container)] ^= char(1 + pick(255));
            auto const d = Sha256().update(m.data(), body).finish();
            m.replace(body, digest, reinterpret_cast<char const*>(d.data()), digest);
        }
        }
        ASSERT_NE(valid, m);
        spit(m);
        CacheFileRead const r = read();
        EXPECT_FALSE(r.payload) << "mutant " << i << " accepted";
        EXPECT_TRUE(r.exists);
        EXPECT_FALSE(r.problem.empty()) << "mutant " << i;
        ++tried;
    }
    EXPECT_GE(tried, 200);
}
} // namespace mcdose
