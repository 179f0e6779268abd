//! MCPL files through io/McplFile.hh: particles written with libmcpl itself
//! read back field by field, the atomic writer, and every kind of bad file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "io/McplFile.hh"

#if MCDOSE_USE_MCPL
#    include <mcpl.h>
#endif

namespace mcdose::test
{
namespace fs = std::filesystem;

class McplFileTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!mcpl_available())
            GTEST_SKIP() << "built without MCPL";
        dir_ = fs::temp_directory_path() /
               ("mcdose_mcpl_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string path(std::string const& name) const { return (dir_ / name).string(); }

    fs::path dir_;
};

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
    EXPECT_NE(std::string::npos, m.find("cannot read")) << m;

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
    m = message(
        [&]
        {
            McplReader r(cut);
            EXPECT_EQ(1000u, r.size());
            McplParticle p;
            while (r.read(p))
            {
            }
        });
    EXPECT_NE(std::string::npos, m.find(cut)) << m;
}
} // namespace mcdose::test
