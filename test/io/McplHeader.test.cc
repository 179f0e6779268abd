//! MCPL headers checked before libmcpl sees them (io/McplHeader.hh): the headers that
//! crashed libmcpl or made mcdose allocate from a claimed count, unclosed files, a FIFO,
//! the primary history record, and a seeded corpus of mutated headers.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "McplTestFolder.hh"
#include "core/Assert.hh"
#include "io/McplFile.hh"
#include "io/McplHeader.hh"

namespace mcdose::test
{
namespace fs = std::filesystem;

class McplHeaderTest : public McplFolderTest
{
  protected:
    //! The bytes of a file of `n` photons written by mcdose, recording `histories`.
    std::string valid_bytes(int n, std::uint64_t histories = 0)
    {
        std::string const file = this->path("valid.mcpl");
        {
            McplWriter w(file, "mcdose test", {"a comment"});
            McplParticle p;
            p.pdg_code = 22;
            for (int i = 0; i < n; ++i)
            {
                p.energy_MeV = 1 + 0.01 * i;
                w.add(p);
            }
            w.commit(histories);
        }
        std::ifstream in(file, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
};

template <class T>
void put(std::string& bytes, std::size_t at, T v)
{
    std::memcpy(&bytes[at], &v, sizeof v);
}

// Offsets of the fixed header: particle count at 8, then comments, blobs, user flags,
// polarisation, single precision, universal PDG code, particle size, universal weight.
constexpr std::size_t count_at = 8, comments_at = 16, blobs_at = 20, single_at = 32, size_at = 40;

// The headers that crashed libmcpl (2^32 - 1 comments or blobs, a particle size of 10^6,
// a precision flag of 2) or made mcdose allocate 4.5 GB (2^35 particles) are refused
// by name, with nothing allocated from the claimed counts.
TEST_F(McplHeaderTest, HostileHeadersAreRefusedByName)
{
    std::string const good = this->valid_bytes(2000);
    struct Case
    {
        std::size_t at;
        std::uint64_t value;
        bool wide;
        char const* expected;
    };
    for (Case const& c : {Case{comments_at, 0xffffffffu, false, "comments and blobs"},
                          Case{blobs_at, 0xffffffffu, false, "comments and blobs"},
                          Case{size_at, 1000000, false, "bytes per particle"},
                          Case{single_at, 2, false, "single-precision flag is 2"},
                          Case{count_at, std::uint64_t(1) << 35, true, "34359738368 particles"}})
    {
        std::string bytes = good;
        if (c.wide)
            put(bytes, c.at, c.value);
        else
            put(bytes, c.at, std::uint32_t(c.value));
        std::string const file = this->write("hostile.mcpl", bytes);
        std::string const m = mcpl_refusal(file);
        EXPECT_NE(std::string::npos, m.find(file)) << m;
        EXPECT_NE(std::string::npos, m.find(c.expected)) << m;
        EXPECT_EQ(std::string::npos, m.find("MCPL ERROR")) << m;
    }
}

// A file never closed by its writer (count 0) and a truncated one are refused with the
// fix; "recover" reads the whole particles there are.
TEST_F(McplHeaderTest, UnclosedAndTruncatedFilesNeedRecover)
{
    std::string bytes = this->valid_bytes(100);
    put(bytes, count_at, std::uint64_t(0));
    std::string const unclosed = this->write("unclosed.mcpl", bytes);
    std::string m = mcpl_refusal(unclosed);
    EXPECT_NE(std::string::npos, m.find("not closed")) << m;
    EXPECT_NE(std::string::npos, m.find("\"recover\": true")) << m;
    EXPECT_EQ("", mcpl_refusal(unclosed, true));
    EXPECT_EQ(100u, McplReader(unclosed, true, true).size());

    std::string const cut = this->write("cut.mcpl", this->valid_bytes(100).substr(0, 1000));
    m = mcpl_refusal(cut);
    EXPECT_NE(std::string::npos, m.find("truncated")) << m;
    McplReader r(cut, true, true);
    EXPECT_LT(r.size(), 100u);
    EXPECT_EQ("", mcpl_refusal(cut, true));
}

// A FIFO in the file's place is refused at once: nothing waits for a writer.
TEST_F(McplHeaderTest, FifoIsRefusedWithoutBlocking)
{
    std::string const fifo = this->path("fifo.mcpl");
    ASSERT_EQ(0, ::mkfifo(fifo.c_str(), 0600));
    std::string const m = mcpl_refusal(fifo);
    EXPECT_NE(std::string::npos, m.find(fifo)) << m;
    EXPECT_NE(std::string::npos, m.find("regular")) << m;
}

// What mcdose writes records its primary histories; the reader reads them back.
TEST_F(McplHeaderTest, PrimaryHistoriesRecorded)
{
    std::string const file = this->write("h.mcpl", this->valid_bytes(10, 8072));
    McplReader r(file);
    EXPECT_EQ(8072u, r.primary_histories());
    EXPECT_EQ(10u, r.size());
    std::string const none = this->write("none.mcpl", this->valid_bytes(10));
    EXPECT_EQ(0u, McplReader(none).primary_histories());
}

/*!
 * A seeded corpus of 400 mutants of a valid file: bytes of the header and the first
 * records overwritten, set to 0 or 0xff, or the file cut. Each is refused with a message
 * naming the file, or read whole to the count its header and length agree on: never a
 * crash, an abort (libmcpl's assertions), a hang or a count the file does not hold.
 */
TEST_F(McplHeaderTest, MutatedHeadersCorpus)
{
    std::string const good = this->valid_bytes(50, 1234);
    std::mt19937_64 engine(20261129);
    std::size_t const span = std::min<std::size_t>(good.size(), 160);
    int refused = 0;
    for (int k = 0; k < 400; ++k)
    {
        std::string bytes = good;
        int const edits = 1 + int(engine() % 4);
        for (int e = 0; e < edits; ++e)
        {
            std::size_t const at = engine() % span;
            int const kind = int(engine() % 4);
            bytes[at] = kind == 0 ? char(0) : kind == 1 ? char(0xff) : char(engine() & 0xff);
        }
        if (engine() % 5 == 0)
            bytes.resize(engine() % bytes.size());
        std::string const file = this->write("m" + std::to_string(k) + ".mcpl", bytes);
        std::string const m = mcpl_refusal(file);
        if (!m.empty())
        {
            ++refused;
            EXPECT_NE(std::string::npos, m.find(file)) << k << ": " << m;
            EXPECT_EQ(std::string::npos, m.find("MCPL ERROR")) << k << ": " << m;
        }
        fs::remove(file);
    }
    EXPECT_GT(refused, 200);
}
} // namespace mcdose::test
