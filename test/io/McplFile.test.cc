//! MCPL files through io/McplFile.hh: particles written with libmcpl itself
//! read back field by field, the atomic writer, and every kind of bad file.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include <gtest/gtest.h>

#include "McplTestFolder.hh"
#include "core/Assert.hh"
#include "io/McplFile.hh"

#if MCDOSE_USE_MCPL
#    include <mcpl.h>
#endif

namespace mcdose::test
{
namespace fs = std::filesystem;

using McplFileTest = McplFolderTest;

#if MCDOSE_USE_MCPL
//! Five particles in double precision, written with libmcpl's own API.
std::string write_reference(std::string const& path)
{
    mcpl_outfile_t f = mcpl_create_outfile(path.c_str());
    mcpl_hdr_set_srcname(f, "mcdose test");
    mcpl_enable_doubleprec(f);
    mcpl_particle_t* p = mcpl_get_empty_particle(f);
    int const pdg[5] = {22, 11, 2112, -11, 2212};
    for (int i = 0; i < 5; ++i)
    {
        p->pdgcode = pdg[i];
        p->ekin = 0.5 + i;
        p->position[0] = i;
        p->position[1] = -2.0 * i;
        p->position[2] = 10;
        p->direction[0] = 0.6;
        p->direction[1] = 0;
        p->direction[2] = 0.8;
        p->weight = 1.0 + 0.25 * i;
        mcpl_add_particle(f, p);
    }
    std::string const written = mcpl_outfile_filename(f);
    mcpl_close_outfile(f);
    return written;
}
#endif

TEST_F(McplFileTest, ReadsWhatLibmcplWrote)
{
#if MCDOSE_USE_MCPL
    std::string const file = write_reference(this->path("five.mcpl"));
    McplReader r(file);
    EXPECT_EQ(5u, r.size());
    EXPECT_EQ("mcdose test", r.source_name());
    McplParticle p;
    int const pdg[5] = {22, 11, 2112, -11, 2212};
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(std::uint64_t(i), r.position());
        ASSERT_TRUE(r.read(p));
        EXPECT_EQ(pdg[i], p.pdg_code);
        EXPECT_DOUBLE_EQ(0.5 + i, p.energy_MeV);
        EXPECT_DOUBLE_EQ(i, p.position_cm[0]);
        EXPECT_DOUBLE_EQ(-2.0 * i, p.position_cm[1]);
        EXPECT_DOUBLE_EQ(10, p.position_cm[2]);
        EXPECT_NEAR(0.6, p.direction[0], 1e-15);
        EXPECT_NEAR(0.8, p.direction[2], 1e-15);
        EXPECT_DOUBLE_EQ(1.0 + 0.25 * i, p.weight);
    }
    EXPECT_FALSE(r.read(p));
    r.seek(3);
    ASSERT_TRUE(r.read(p));
    EXPECT_EQ(-11, p.pdg_code);
    EXPECT_THROW(r.seek(6), RuntimeError);
#endif
}

#if MCDOSE_USE_MCPL
//! How a file stores its records (libmcpl's options).
struct FileOptions
{
    bool double_precision{false};
    bool polarisation{false};
    bool user_flags{false};
    std::int32_t universal_pdg_code{0};
    double universal_weight{0};
};

/*!
 * `n` particles with libmcpl's API: directions spread over the sphere (all three
 * cases of the packing, both signs, exact axes), energies over 8 decades, types and
 * weights varied where the file keeps them.
 */
std::string write_varied(std::string const& path, FileOptions const& o, int n)
{
    mcpl_outfile_t f = mcpl_create_outfile(path.c_str());
    if (o.double_precision)
        mcpl_enable_doubleprec(f);
    if (o.polarisation)
        mcpl_enable_polarisation(f);
    if (o.user_flags)
        mcpl_enable_userflags(f);
    if (o.universal_pdg_code)
        mcpl_enable_universal_pdgcode(f, o.universal_pdg_code);
    if (o.universal_weight)
        mcpl_enable_universal_weight(f, o.universal_weight);
    mcpl_particle_t* p = mcpl_get_empty_particle(f);
    std::mt19937_64 engine(42);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> uniform;
    int const pdg[4] = {22, 11, -11, 2112};
    double const axes[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}};
    for (int i = 0; i < n; ++i)
    {
        double u[3] = {normal(engine), normal(engine), normal(engine)};
        if (i < 6)
            std::memcpy(u, axes[i], sizeof(u));
        double const norm = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int c = 0; c < 3; ++c)
        {
            p->direction[c] = u[c] / norm;
            p->position[c] = 100 * (uniform(engine) - 0.5);
            p->polarisation[c] = uniform(engine);
        }
        p->ekin = std::pow(10.0, 8 * uniform(engine) - 6);
        p->time = uniform(engine);
        p->weight = o.universal_weight ? o.universal_weight : 0.1 + uniform(engine);
        p->pdgcode = o.universal_pdg_code ? o.universal_pdg_code : pdg[i % 4];
        p->userflags = std::uint32_t(i);
        mcpl_add_particle(f, p);
    }
    std::string const written = mcpl_outfile_filename(f);
    mcpl_close_outfile(f);
    return written;
}

//! Every particle of `file` through McplReader equals libmcpl's mcpl_read, bit for bit.
void expect_same_as_libmcpl(std::string const& file, bool blocks = true)
{
    McplReader r(file, blocks);
    mcpl_file_t f = mcpl_open_file(file.c_str());
    ASSERT_EQ(mcpl_hdr_nparticles(f), r.size());
    McplParticle p;
    std::uint64_t i = 0;
    while (mcpl_particle_t const* q = mcpl_read(f))
    {
        ASSERT_TRUE(r.read(p)) << "particle " << i;
        EXPECT_EQ(q->pdgcode, p.pdg_code) << i;
        EXPECT_EQ(q->ekin, p.energy_MeV) << i;
        EXPECT_EQ(q->weight, p.weight) << i;
        for (int c = 0; c < 3; ++c)
        {
            EXPECT_EQ(q->position[c], p.position_cm[c]) << i;
            EXPECT_EQ(q->direction[c], p.direction[c]) << i << " component " << c;
        }
        ++i;
    }
    EXPECT_FALSE(r.read(p));
    mcpl_close_file(f);
}
#endif

// Records read a block at a time and decoded by mcdose give libmcpl's particles exactly,
// for every record layout.
TEST_F(McplFileTest, BlocksDecodeAsLibmcplReads)
{
#if MCDOSE_USE_MCPL
    std::vector<FileOptions> layouts(6);
    layouts[1].double_precision = true;
    layouts[2].polarisation = true;
    layouts[2].user_flags = true;
    layouts[3].universal_pdg_code = 22;
    layouts[4].universal_weight = 2.5;
    layouts[5] = {true, true, true, 11, 0.75};
    for (std::size_t k = 0; k < layouts.size(); ++k)
    {
        SCOPED_TRACE("layout " + std::to_string(k));
        // More than one block of records, the last one partly filled.
        std::string const file =
            write_varied(this->path("v" + std::to_string(k) + ".mcpl"), layouts[k], 10000);
        EXPECT_TRUE(McplReader(file).reads_blocks());
        expect_same_as_libmcpl(file);
    }
    // libmcpl's own reading, where a file does not allow blocks (a gzipped file, an
    // older format, the other byte order).
    std::string const file = write_varied(this->path("lib.mcpl"), layouts[5], 3000);
    EXPECT_FALSE(McplReader(file, false).reads_blocks());
    expect_same_as_libmcpl(file, false);
#endif
}

// Seeking inside and across blocks, and to the end.
TEST_F(McplFileTest, SeekInBlocks)
{
#if MCDOSE_USE_MCPL
    std::string const file = write_varied(this->path("s.mcpl"), {}, 9000);
    McplReader all(file);
    std::vector<McplParticle> ps(9000);
    for (auto& p : ps)
        ASSERT_TRUE(all.read(p));
    McplReader r(file);
    ASSERT_TRUE(r.reads_blocks());
    McplParticle p;
    for (std::uint64_t at : {std::uint64_t(8999), std::uint64_t(5), std::uint64_t(4096),
                             std::uint64_t(4095), std::uint64_t(0), std::uint64_t(7000)})
    {
        r.seek(at);
        EXPECT_EQ(at, r.position());
        ASSERT_TRUE(r.read(p));
        EXPECT_EQ(at + 1, r.position());
        EXPECT_EQ(ps[at].energy_MeV, p.energy_MeV) << at;
        EXPECT_EQ(ps[at].direction[1], p.direction[1]) << at;
    }
    r.seek(9000);
    EXPECT_FALSE(r.read(p));
    EXPECT_EQ(9000u, r.position());
#endif
}

// The writer fills a temporary and renames it on commit; without commit no file remains.
TEST_F(McplFileTest, WriterIsAtomic)
{
    std::string const file = this->path("out.mcpl");
    {
        McplWriter w(file, "mcdose", {"a comment"});
        McplParticle p;
        p.pdg_code = 22;
        p.energy_MeV = 1.25;
        p.weight = 3;
        w.add(p);
        EXPECT_FALSE(fs::exists(file));
        EXPECT_EQ(1u, w.count());
        w.commit();
    }
    ASSERT_TRUE(fs::exists(file));
    McplReader r(file);
    ASSERT_EQ(1u, r.size());
    McplParticle p;
    ASSERT_TRUE(r.read(p));
    EXPECT_EQ(22, p.pdg_code);
    EXPECT_FLOAT_EQ(1.25f, float(p.energy_MeV));
    EXPECT_FLOAT_EQ(3.0f, float(p.weight));

    std::string const abandoned = this->path("abandoned.mcpl");
    {
        McplWriter w(abandoned, "mcdose", {});
        w.add(p);
    }
    EXPECT_FALSE(fs::exists(abandoned));
    EXPECT_EQ(1, std::distance(fs::directory_iterator(dir_), fs::directory_iterator()))
        << "a temporary was left behind";
}

// Missing, empty, foreign and truncated files are errors naming the file.
TEST_F(McplFileTest, BadFilesAreErrorsNamingTheFile)
{
    auto message = [](auto&& f) -> std::string
    {
        try
        {
            f();
        }
        catch (RuntimeError const& e)
        {
            return e.what();
        }
        return "no error";
    };
    std::string const missing = this->path("missing.mcpl");
    std::string m = message([&] { McplReader r(missing); });
    EXPECT_NE(std::string::npos, m.find(missing)) << m;
    EXPECT_NE(std::string::npos, m.find("cannot open")) << m;

    std::string const empty = this->path("empty.mcpl");
    std::ofstream(empty).close();
    m = message([&] { McplReader r(empty); });
    EXPECT_NE(std::string::npos, m.find(empty)) << m;

    std::string const foreign = this->path("foreign.mcpl");
    std::ofstream(foreign) << "this is not a particle list\n";
    m = message([&] { McplReader r(foreign); });
    EXPECT_NE(std::string::npos, m.find(foreign)) << m;
    EXPECT_NE(std::string::npos, m.find("MCPL")) << m;

    // Cut a valid file in the middle of its particles: the header still says 1000.
    std::string const whole = this->path("whole.mcpl");
    {
        McplWriter w(whole, "mcdose", {});
        McplParticle p;
        p.pdg_code = 22;
        p.energy_MeV = 1;
        for (int i = 0; i < 1000; ++i)
            w.add(p);
        w.commit();
    }
    std::string const cut = this->path("cut.mcpl");
    {
        std::ifstream in(whole, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    }
    for (bool blocks : {true, false})
    {
        m = message(
            [&]
            {
                McplReader r(cut, blocks);
                EXPECT_EQ(1000u, r.size());
                McplParticle p;
                while (r.read(p))
                {
                }
            });
        EXPECT_NE(std::string::npos, m.find(cut)) << m;
    }
}
} // namespace mcdose::test
