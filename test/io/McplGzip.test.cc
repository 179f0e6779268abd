//! Gzipped MCPL files (.mcpl.gz) read through mcdose's own streaming inflate
//! (io/GzipStream.hh): the same particles as the uncompressed file, seeking back and
//! forth, several gzip members, and every kind of bad compressed file, with a seeded
//! corpus of mutated compressed files.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include "McplTestFolder.hh"
#include "core/Assert.hh"
#include "io/McplFile.hh"

namespace mcdose::test
{
namespace fs = std::filesystem;

class McplGzipTest : public McplFolderTest
{
  protected:
    //! An MCPL file of `n` particles (types, energies and directions varied) written by mcdose.
    std::string plain(int n)
    {
        std::string const file = this->path("plain.mcpl");
        McplWriter w(file, "mcdose test", {});
        std::mt19937_64 engine(7);
        std::normal_distribution<double> normal;
        int const pdg[3] = {22, 11, -11};
        for (int i = 0; i < n; ++i)
        {
            McplParticle p;
            p.pdg_code = pdg[i % 3];
            p.energy_MeV = 0.01 + 0.001 * i;
            double u[3] = {normal(engine), normal(engine), normal(engine)};
            double const norm = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int c = 0; c < 3; ++c)
            {
                p.direction[c] = u[c] / norm;
                p.position_cm[c] = normal(engine);
            }
            p.weight = 0.5 + 0.001 * i;
            w.add(p);
        }
        w.commit(1000);
        return file;
    }

    static std::string bytes_of(std::string const& file)
    {
        std::ifstream in(file, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    //! `bytes` gzipped (one member each part of `parts`) into `name`.
    std::string gzip(std::string const& name, std::string const& bytes, int parts = 1)
    {
        std::string out;
        for (int k = 0; k < parts; ++k)
        {
            std::size_t const a = bytes.size() * std::size_t(k) / std::size_t(parts);
            std::size_t const b = bytes.size() * std::size_t(k + 1) / std::size_t(parts);
            z_stream z{};
            EXPECT_EQ(Z_OK, deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY));
            std::string member(deflateBound(&z, uLong(b - a)), '\0');
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + a));
            z.avail_in = uInt(b - a);
            z.next_out = reinterpret_cast<Bytef*>(member.data());
            z.avail_out = uInt(member.size());
            EXPECT_EQ(Z_STREAM_END, deflate(&z, Z_FINISH));
            member.resize(z.total_out);
            deflateEnd(&z);
            out += member;
        }
        return this->write(name, out);
    }
};

void expect_same(McplParticle const& a, McplParticle const& b, std::uint64_t i)
{
    EXPECT_EQ(a.pdg_code, b.pdg_code) << i;
    EXPECT_EQ(a.energy_MeV, b.energy_MeV) << i;
    EXPECT_EQ(a.weight, b.weight) << i;
    for (int c = 0; c < 3; ++c)
    {
        EXPECT_EQ(a.position_cm[c], b.position_cm[c]) << i;
        EXPECT_EQ(a.direction[c], b.direction[c]) << i;
    }
}

// A gzipped file (one member or three) gives the uncompressed file's particles bit for bit,
// its primary histories, and seeks back and forth.
TEST_F(McplGzipTest, ReadsAsTheUncompressedFile)
{
    std::string const file = this->plain(10000);
    std::string const bytes = bytes_of(file);
    for (int parts : {1, 3})
    {
        SCOPED_TRACE(parts);
        std::string const gz = this->gzip("p.mcpl.gz", bytes, parts);
        McplReader a(file), b(gz);
        EXPECT_FALSE(a.compressed());
        EXPECT_TRUE(b.compressed());
        ASSERT_EQ(a.size(), b.size());
        EXPECT_EQ(1000u, b.primary_histories());
        McplParticle p, q;
        for (std::uint64_t i = 0; i < a.size(); ++i)
        {
            ASSERT_TRUE(a.read(p));
            ASSERT_TRUE(b.read(q));
            expect_same(p, q, i);
        }
        EXPECT_FALSE(b.read(q));
        for (std::uint64_t at : {std::uint64_t(9000), std::uint64_t(17), std::uint64_t(4096)})
        {
            a.seek(at);
            b.seek(at);
            ASSERT_TRUE(a.read(p));
            ASSERT_TRUE(b.read(q));
            expect_same(p, q, at);
        }
    }
}

// Cut, corrupt, over-long and never-closed compressed files are refused naming the file;
// a header claiming more particles than the compressed file can inflate to is refused
// before anything is inflated beyond the header.
TEST_F(McplGzipTest, BadCompressedFilesAreRefused)
{
    std::string const bytes = bytes_of(this->plain(3000));
    std::string const whole = bytes_of(this->gzip("whole.mcpl.gz", bytes));
    struct Case
    {
        std::string name;
        std::string content;
        char const* expected;
    };
    std::string corrupt = whole;
    corrupt[corrupt.size() / 2] ^= 0x55;
    corrupt[corrupt.size() / 2 + 1] ^= 0x55;
    std::string claims = bytes;
    std::uint64_t const huge = std::uint64_t(1) << 35;
    std::memcpy(&claims[8], &huge, sizeof huge);
    std::string extra = bytes;
    std::uint64_t const fewer = 2000;
    std::memcpy(&extra[8], &fewer, sizeof fewer);
    std::string unclosed = bytes;
    std::uint64_t const zero = 0;
    std::memcpy(&unclosed[8], &zero, sizeof zero);
    for (Case const& c :
         {Case{"cut.mcpl.gz", whole.substr(0, whole.size() / 2), "truncated"},
          Case{"corrupt.mcpl.gz", corrupt, "corrupt"},
          Case{"claims.mcpl.gz", bytes_of(this->gzip("c.gz", claims)), "can hold"},
          Case{"extra.mcpl.gz", bytes_of(this->gzip("e.gz", extra)), "data after"},
          Case{"unclosed.mcpl.gz", bytes_of(this->gzip("u.gz", unclosed)), "not closed"}})
    {
        std::string const file = this->path(c.name);
        std::ofstream(file, std::ios::binary) << c.content;
        std::string const m = mcpl_refusal(file);
        EXPECT_NE(std::string::npos, m.find(file)) << c.name << ": " << m;
        EXPECT_NE(std::string::npos, m.find(c.expected)) << c.name << ": " << m;
    }
    std::string const unclosed_file = this->path("unclosed.mcpl.gz");
    EXPECT_EQ("", mcpl_refusal(unclosed_file, true));
    EXPECT_EQ(3000u, McplReader(unclosed_file, true, true).size());
}

/*!
 * A seeded corpus of 300 mutants of a gzipped file (compressed bytes overwritten, or the
 * file cut): each is refused naming the file or read whole to its header's count; never a
 * crash, a hang or memory beyond the stated limit.
 */
TEST_F(McplGzipTest, MutatedCompressedCorpus)
{
    std::string const good = bytes_of(this->gzip("g.mcpl.gz", bytes_of(this->plain(500))));
    std::mt19937_64 engine(1952);
    int refused = 0;
    for (int k = 0; k < 300; ++k)
    {
        std::string bytes = good;
        for (int e = 0, edits = 1 + int(engine() % 3); e < edits; ++e)
            bytes[engine() % bytes.size()] = char(engine() & 0xff);
        if (engine() % 5 == 0)
            bytes.resize(engine() % bytes.size());
        std::string const file = this->path("m" + std::to_string(k) + ".mcpl.gz");
        std::ofstream(file, std::ios::binary) << bytes;
        std::string const m = mcpl_refusal(file);
        if (!m.empty())
        {
            ++refused;
            EXPECT_NE(std::string::npos, m.find(file)) << k << ": " << m;
        }
        fs::remove(file);
    }
    EXPECT_GT(refused, 150);
}
} // namespace mcdose::test
