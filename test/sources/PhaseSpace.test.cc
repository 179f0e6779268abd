//! Phase-space sources: an MCPL file made here read back through the scan,
//! the placement, the per-piece loading with recycling and the source mix, and
//! the reader's refusals (bad particles, a file of untransported types, JSON).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../transport/interactors/TransportTestHelpers.hh"
#include "core/Constants.hh"
#include "io/InputError.hh"
#include "io/McplFile.hh"
#include "sources/PhaseSpaceSource.hh"
#include "sources/SourceJson.hh"
#include "sources/SourceParams.hh"

namespace mcdose::test
{
namespace fs = std::filesystem;

class PhaseSpaceTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        if (!mcpl_available())
            GTEST_SKIP() << "built without MCPL";
        dir_ = fs::temp_directory_path() /
               ("mcdose_ps_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    //! Particle i: type by pdg[i % n], energy 0.5 + i / 1000 MeV, x = i mm, along
    //! (0.6, 0, 0.8), weight 1 + (i % 4) / 4 (exact in single precision).
    std::string write(std::string const& name, std::vector<std::int32_t> const& pdg,
                      std::size_t count) const
    {
        std::string const path = (dir_ / name).string();
        McplWriter w(path, "test", {});
        for (std::size_t i = 0; i < count; ++i)
            w.add(particle(i, pdg[i % pdg.size()]));
        w.commit();
        return path;
    }
    static McplParticle particle(std::size_t i, std::int32_t pdg)
    {
        McplParticle p;
        p.pdg_code = pdg;
        p.energy_MeV = 0.5 + double(i % 1000) / 1000;
        p.position_cm[0] = 0.1 * double(i % 100);
        p.position_cm[1] = 1;
        p.position_cm[2] = -2;
        p.direction[0] = 0.6;
        p.direction[1] = 0;
        p.direction[2] = 0.8;
        p.weight = 1 + double(i % 4) / 4;
        return p;
    }

    fs::path dir_;
};

// Counts by type, skipped types by PDG code, the energy bounds and the index.
TEST_F(PhaseSpaceTest, ScanCountsAndSkips)
{
    // photon, electron, neutron, positron, photon, proton: 6 per cycle.
    std::string const f = this->write("mix.mcpl", {22, 11, 2112, -11, 22, 2212}, 9000);
    PhaseSpaceScan const s = scan_phase_space(f, 50);
    EXPECT_EQ(9000u, s.file_particles);
    EXPECT_EQ(6000u, s.transported);
    EXPECT_EQ(3000u, s.photons);
    EXPECT_EQ(1500u, s.electrons);
    EXPECT_EQ(1500u, s.positrons);
    ASSERT_EQ(2u, s.skipped.size());
    EXPECT_EQ(1500u, s.skipped.at(2112));
    EXPECT_EQ(1500u, s.skipped.at(2212));
    EXPECT_NEAR(0.5 + 0.999, s.max_energy_MeV, 1e-6);
    // The largest weight x (E + 2 m c^2) over the positrons (i = 3 + 6k).
    double expected = 0;
    for (std::size_t i = 3; i < 9000; i += 6)
    {
        McplParticle const p = particle(i, -11);
        expected =
            std::max(expected, p.weight * (float(p.energy_MeV) + 2 * constants::electron_mass_MeV));
    }
    EXPECT_NEAR(expected, s.max_history_energy_MeV, 1e-5);
    // 4 of every 6 file particles are transported: transported 4096 is file particle 6144.
    ASSERT_EQ(2u, s.index.size());
    EXPECT_EQ(0u, s.index[0]);
    EXPECT_EQ(6144u, s.index[1]);
    std::string const line = describe_scan(s, f);
    EXPECT_NE(std::string::npos, line.find("3000 skipped")) << line;
    EXPECT_NE(std::string::npos, line.find("1500 neutron (2112)")) << line;
    EXPECT_NE(std::string::npos, line.find("1500 proton (2212)")) << line;
}

// Photons, electrons and positrons below 1 keV are skipped and reported with their energy;
// the reader skips the same particles.
TEST_F(PhaseSpaceTest, BelowTheTablesIsSkipped)
{
    std::string const path = (dir_ / "cold.mcpl").string();
    {
        McplWriter w(path, "test", {});
        for (std::size_t i = 0; i < 6; ++i)
        {
            McplParticle p = particle(i, 22);
            if (i % 2 == 0)
                p.energy_MeV = 0.0005; // 0.5 keV, weight 1, 1.5, 1 for i = 0, 2, 4
            w.add(p);
        }
        w.commit();
    }
    PhaseSpaceInput in;
    in.file = path;
    in.scan = scan_phase_space(path, 50);
    EXPECT_EQ(3u, in.scan.transported);
    EXPECT_EQ(3u, in.scan.below_min);
    EXPECT_NEAR(0.0005 * 3.5, in.scan.below_min_MeV, 1e-9);
    std::string const line = describe_scan(in.scan, path);
    EXPECT_NE(std::string::npos, line.find("3 below 1 keV skipped")) << line;
    PhaseSpaceReader reader(in);
    std::vector<Particle<double>> out;
    reader.read(0, 3, out);
    ASSERT_EQ(3u, out.size());
    for (std::size_t k = 0; k < 3; ++k)
        EXPECT_NEAR(particle(2 * k + 1, 22).energy_MeV, out[k].energy_MeV, 1e-6);
}

// Each bad particle is refused by its index with the fix; so is a file with nothing to transport.
TEST_F(PhaseSpaceTest, ScanRefusesBadParticles)
{
    auto message = [](std::string const& path)
    {
        try
        {
            scan_phase_space(path, 50);
        }
        catch (RuntimeError const& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    auto write_one_bad = [&](std::string const& name, auto&& spoil)
    {
        std::string const path = (dir_ / name).string();
        McplWriter w(path, "test", {});
        for (std::size_t i = 0; i < 10; ++i)
        {
            McplParticle p = particle(i, 22);
            if (i == 7)
                spoil(p);
            w.add(p);
        }
        w.commit();
        return path;
    };
    std::string m = message(write_one_bad("hot.mcpl", [](McplParticle& p) { p.energy_MeV = 60; }));
    EXPECT_NE(std::string::npos, m.find("particle 7")) << m;
    EXPECT_NE(std::string::npos, m.find("outside the physics tables")) << m;
    m = message(write_one_bad("neg.mcpl", [](McplParticle& p) { p.weight = -1; }));
    EXPECT_NE(std::string::npos, m.find("particle 7")) << m;
    EXPECT_NE(std::string::npos, m.find("weight")) << m;
    m = message(write_one_bad("nan.mcpl", [](McplParticle& p) { p.position_cm[1] = NAN; }));
    EXPECT_NE(std::string::npos, m.find("not finite")) << m;

    m = message(this->write("neutrons.mcpl", {2112}, 5));
    EXPECT_NE(std::string::npos, m.find("none of the file's 5 particles")) << m;
    EXPECT_NE(std::string::npos, m.find("5 neutron (2112)")) << m;

    std::string const empty = (dir_ / "none.mcpl").string();
    {
        McplWriter w(empty, "test", {});
        w.commit();
    }
    m = message(empty);
    EXPECT_NE(std::string::npos, m.find("holds no particles")) << m;
}

// A file of several scan blocks: every thread count finds the same scan, bit for bit
// (the blocks are added in file order), with the index a single pass gives; a bad
// particle is refused by the first one's index, whichever block a thread reached first.
TEST_F(PhaseSpaceTest, ScanInBlocksIsTheSameForAnyThreadCount)
{
    std::size_t const count = 3 * scan_block_particles + 1234;
    std::string const f = this->write("blocks.mcpl", {22, 11, 2112, -11, 22, 2212, 22}, count);
    PhaseSpaceScan const one = scan_phase_space(f, 50, 1);
    // 5 of every 7 file particles are transported: transported t is file particle
    // 7 (t / 5) + the (t % 5)-th of positions 0, 1, 3, 4, 6.
    std::uint64_t const transported[] = {0, 1, 3, 4, 6};
    std::uint64_t const expected =
        5 * (count / 7) + std::count_if(std::begin(transported), std::end(transported),
                                        [&](std::uint64_t k) { return k < count % 7; });
    EXPECT_EQ(expected, one.transported);
    ASSERT_EQ((expected + PhaseSpaceScan::index_stride - 1) / PhaseSpaceScan::index_stride,
              one.index.size());
    for (std::size_t k = 0; k < one.index.size(); ++k)
    {
        std::uint64_t const t = k * PhaseSpaceScan::index_stride;
        EXPECT_EQ(7 * (t / 5) + transported[t % 5], one.index[k]) << "entry " << k;
    }
    for (int threads : {2, 3, 8})
    {
        PhaseSpaceScan const s = scan_phase_space(f, 50, threads);
        EXPECT_EQ(one.index, s.index) << threads;
        EXPECT_EQ(one.transported, s.transported);
        EXPECT_EQ(one.photons, s.photons);
        EXPECT_EQ(one.electrons, s.electrons);
        EXPECT_EQ(one.positrons, s.positrons);
        EXPECT_EQ(one.skipped, s.skipped);
        EXPECT_EQ(one.total_weight, s.total_weight); // the same sums in the same order
        EXPECT_EQ(one.max_history_energy_MeV, s.max_history_energy_MeV);
        EXPECT_EQ(one.min_weight, s.min_weight);
        EXPECT_EQ(one.max_weight, s.max_weight);
    }

    std::string const bad = (dir_ / "bad.mcpl").string();
    {
        McplWriter w(bad, "test", {});
        for (std::size_t i = 0; i < count; ++i)
        {
            McplParticle p = particle(i, 22);
            if (i == scan_block_particles + 5 || i == 3 * scan_block_particles + 7)
                p.weight = -1;
            w.add(p);
        }
        w.commit();
    }
    for (int threads : {1, 4})
    {
        try
        {
            scan_phase_space(bad, 50, threads);
            ADD_FAILURE() << "a negative weight was not refused";
        }
        catch (RuntimeError const& e)
        {
            std::string const m = e.what();
            EXPECT_NE(std::string::npos,
                      m.find("particle " + std::to_string(scan_block_particles + 5) + " "))
                << m;
        }
    }
}

// Rz(90) Ry(0) Rx(0) takes x to y; Rx(90) takes y to z; the order is x, then y, then z.
TEST_F(PhaseSpaceTest, PlacementRotations)
{
    PhaseSpacePlacement p;
    p.rotation_deg = {{0, 0, 90}};
    auto r = rotation_matrix(p);
    EXPECT_NEAR(0, r[0][0], 1e-15);
    EXPECT_NEAR(1, r[1][0], 1e-15); // x -> y
    p.rotation_deg = {{90, 0, 0}};
    r = rotation_matrix(p);
    EXPECT_NEAR(1, r[2][1], 1e-15); // y -> z
    // x then z: a vector along y goes to z (Rx), which Rz keeps.
    p.rotation_deg = {{90, 0, 90}};
    r = rotation_matrix(p);
    EXPECT_NEAR(1, r[2][1], 1e-15);
    // Ry(90): z -> x.
    p.rotation_deg = {{0, 90, 0}};
    r = rotation_matrix(p);
    EXPECT_NEAR(1, r[0][2], 1e-15);
}

// Pieces of histories load the particles they use, placed, in the grid's local frame;
// history h starts transported particle h / recycle with its weight; a piece that does
// not follow the last one is found through the index.
TEST_F(PhaseSpaceTest, PiecesLoadPlacedParticlesWithRecycling)
{
    PhaseSpaceInput in;
    in.file = this->write("pieces.mcpl", {22, 2112, 11}, 15000); // 10000 transported
    in.scan = scan_phase_space(in.file, 50);
    in.recycle = 3;
    in.placement.translation_cm = {{1, 2, 3}};
    in.placement.rotation_deg = {{0, 0, 90}}; // (x, y, z) -> (-y, x, z)
    // Grid corner at (-5, -5, 0) (origin = centre of voxel 0).
    GridGeometry const grid =
        make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{-4.5, -4.5, 0.5}});
    PhaseSpaceChunks<double> chunks(in, grid);
    // Transported particle k is file particle 3 (k / 2) + (k % 2 ? 2 : 0).
    auto file_index = [](std::uint64_t k) { return 3 * (k / 2) + (k % 2 ? 2 : 0); };
    for (std::uint64_t first : {std::uint64_t(4), std::uint64_t(29000), std::uint64_t(7)})
    {
        std::uint64_t const end = first + 20;
        auto const v = chunks.load(first, end, false);
        EXPECT_EQ(first / 3, v.first_particle);
        EXPECT_EQ((end - 1) / 3 - first / 3 + 1, v.particles.size());
        for (std::uint64_t h = first; h < end; ++h)
        {
            Particle<double> const p = v(h);
            std::size_t const i = file_index(h / 3);
            McplParticle const q = particle(i, i % 3 == 0 ? 22 : 11);
            EXPECT_EQ(i % 3 == 0 ? ParticleType::photon : ParticleType::electron, p.type);
            EXPECT_NEAR(q.energy_MeV, p.energy_MeV, 1e-6);
            EXPECT_EQ(q.weight, p.weight);
            // Placed: (-y + 1, x + 2, z + 3), then local: + (5, 5, 0).
            EXPECT_NEAR(-q.position_cm[1] + 1 + 5, p.position_cm[0], 1e-5);
            EXPECT_NEAR(q.position_cm[0] + 2 + 5, p.position_cm[1], 1e-5);
            EXPECT_NEAR(q.position_cm[2] + 3, p.position_cm[2], 1e-5);
            EXPECT_NEAR(0, p.direction[0], 1e-6);
            EXPECT_NEAR(0.6, p.direction[1], 1e-6);
            EXPECT_NEAR(0.8, p.direction[2], 1e-6);
        }
    }
    EXPECT_THROW(chunks.load(29990, 30003, false), RuntimeError); // past the file
}

namespace
{
//! Histories [first, end): one piece of a batch as a worker group loads it.
struct Piece
{
    std::uint64_t first, end;
};

//! What load() gives for each piece: the particles, or the error's message.
template <class Real>
std::vector<std::string> load_all(PhaseSpaceChunks<Real>& chunks, std::vector<Piece> const& pieces)
{
    std::vector<std::string> out;
    for (Piece const& piece : pieces)
    {
        std::ostringstream os;
        try
        {
            auto const v = chunks.load(piece.first, piece.end, false);
            os << v.first_particle << ':';
            for (Particle<Real> const& p : v.particles)
            {
                os << int(p.type) << ' ' << p.energy_MeV << ' ' << p.weight;
                for (int c = 0; c < 3; ++c)
                    os << ' ' << p.position_cm[c] << ' ' << p.direction[c];
                os << ';';
            }
        }
        catch (RuntimeError const& e)
        {
            os << "error: " << e.what();
        }
        out.push_back(os.str());
    }
    return out;
}

//! Group g's pieces of `batches` near-equal batches of whole granules of `recycle`
//! histories, split near-equally over `groups` (as the transport driver splits them).
std::vector<Piece> group_pieces(std::uint64_t particles, std::uint64_t recycle,
                                std::uint64_t batches, std::uint64_t groups, std::uint64_t g)
{
    std::vector<Piece> pieces;
    for (std::uint64_t b = 0; b < batches; ++b)
    {
        std::uint64_t const begin = particles * b / batches * recycle;
        std::uint64_t const end = particles * (b + 1) / batches * recycle;
        pieces.push_back(
            {begin + (end - begin) * g / groups, begin + (end - begin) * (g + 1) / groups});
    }
    return pieces;
}
} // namespace

// Read-ahead changes when particles are read, never which: every piece gets the
// particles reading without read-ahead gives (one group's batches one after another,
// a group's share of each batch, a piece again, a jump back), and the pieces after the
// first come from the read-ahead.
TEST_F(PhaseSpaceTest, ReadAheadLoadsTheSameParticles)
{
    PhaseSpaceInput in;
    in.file = this->write("ahead.mcpl", {22, 2112, 11, -11}, 160000); // 120000 transported
    in.scan = scan_phase_space(in.file, 50);
    in.recycle = 3;
    in.placement.rotation_deg = {{10, 20, 30}};
    GridGeometry const grid =
        make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{-4.5, -4.5, 0.5}});
    std::uint64_t const n = in.scan.transported;
    std::vector<Piece> again = group_pieces(n, 3, 7, 1, 0);
    again.insert(again.begin() + 3, again[2]); // an overflowed piece run again
    again.push_back(again[1]);                 // a piece before the last
    struct Case
    {
        char const* what;
        std::vector<Piece> pieces;
        bool all_ahead; //!< every piece after the first read ahead
    };
    Case const cases[] = {{"one group", group_pieces(n, 3, 7, 1, 0), true},
                          {"group 1 of 3", group_pieces(n, 3, 9, 3, 1), false},
                          {"again and back", again, false}};
    for (Case const& c : cases)
    {
        SCOPED_TRACE(c.what);
        in.read_ahead = false;
        PhaseSpaceChunks<float> plain(in, grid);
        in.read_ahead = true;
        PhaseSpaceChunks<float> ahead(in, grid);
        auto const expected = load_all(plain, c.pieces);
        auto const got = load_all(ahead, c.pieces);
        ASSERT_EQ(expected.size(), got.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_TRUE(expected[i] == got[i]) << "piece " << i << ": " << got[i].substr(0, 200);
        EXPECT_EQ(0u, plain.read_ahead_used());
        EXPECT_GT(ahead.read_ahead_used(), 0u);
        if (c.all_ahead)
        {
            Piece const& p = c.pieces.front();
            EXPECT_EQ(n - (p.end - 1) / 3 - 1, ahead.read_ahead_used());
        }
    }
}

// A prefetch of the first piece (started before the run's set-up ends) changes when its
// particles are read, never which: every piece loads what it loads without it; the first
// piece takes all of a right guess, the part a short guess holds, nothing of a guess that
// missed it. Without read-ahead, or after the first load, a prefetch reads nothing.
TEST_F(PhaseSpaceTest, PrefetchedFirstPieceLoadsTheSameParticles)
{
    PhaseSpaceInput in;
    in.file = this->write("prefetch.mcpl", {22, 11, -11}, 120000); // 80000 transported
    in.scan = scan_phase_space(in.file, 50);
    in.recycle = 3;
    GridGeometry const grid =
        make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{-4.5, -4.5, 0.5}});
    std::uint64_t const n = in.scan.transported;
    std::vector<Piece> const pieces = group_pieces(n, 3, 5, 1, 0);
    std::vector<Piece> const rest(pieces.begin() + 1, pieces.end());
    in.read_ahead = false;
    PhaseSpaceChunks<float> plain(in, grid);
    auto const expected = load_all(plain, pieces);
    Piece const first = pieces.front();
    std::uint64_t const first_particles = (first.end - 1) / 3 - first.first / 3 + 1;
    std::uint64_t const middle = (first.first + first.end) / 2;
    struct Guess
    {
        char const* what;
        Piece piece;
        bool read_ahead;
        std::uint64_t used; //!< the first piece's particles from the prefetch
    };
    Guess const guesses[] = {
        {"right", first, true, first_particles},
        {"short", {first.first, middle}, true, (middle - 1) / 3 + 1 - first.first / 3},
        {"missed", pieces[2], true, 0},
        {"no read-ahead", first, false, 0},
    };
    for (Guess const& g : guesses)
    {
        SCOPED_TRACE(g.what);
        in.read_ahead = g.read_ahead;
        PhaseSpaceChunks<float> chunks(in, grid);
        chunks.prefetch(g.piece.first, g.piece.end, -1);
        auto got = load_all(chunks, {first});
        EXPECT_EQ(g.used, chunks.read_ahead_used());
        auto const later = load_all(chunks, rest);
        got.insert(got.end(), later.begin(), later.end());
        ASSERT_EQ(expected.size(), got.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_TRUE(expected[i] == got[i]) << "piece " << i << ": " << got[i].substr(0, 200);
        std::uint64_t const used = chunks.read_ahead_used();
        if (g.read_ahead) // the pieces after the first from the read-ahead
            EXPECT_EQ(g.used + n - first_particles, used);
        else
            EXPECT_EQ(0u, used);
        // After the last piece no read-ahead runs; a prefetch then reads nothing either.
        chunks.prefetch(first.first, first.end, -1);
        EXPECT_TRUE(expected.front() == load_all(chunks, {first}).front());
        EXPECT_EQ(used, chunks.read_ahead_used());
    }
}

// A piece read in parts by several threads, each with the file open, holds the particles
// one reader gives, with and without read-ahead: pieces of one group, a group's share of
// each batch (every part a seek), and a piece too small to split.
TEST_F(PhaseSpaceTest, ReadingInPartsLoadsTheSameParticles)
{
    PhaseSpaceInput in;
    in.file = this->write("parts.mcpl", {22, 2112, 11, -11}, 600000); // 450000 transported
    in.scan = scan_phase_space(in.file, 50);
    in.placement.translation_cm = {{1, -2, 3}};
    in.placement.rotation_deg = {{0, 90, 15}};
    GridGeometry const grid =
        make_axis_aligned_geometry({{10, 10, 10}}, {{1, 1, 1}}, {{-4.5, -4.5, 0.5}});
    std::uint64_t const n = in.scan.transported;
    std::vector<Piece> pieces = group_pieces(n, 1, 2, 1, 0); // 225000 each: 3 parts
    auto const shares = group_pieces(n, 1, 3, 2, 1);         // 75000 each: 1 part
    pieces.insert(pieces.end(), shares.begin(), shares.end());
    pieces.push_back({1000, 1000 + 3 * 65536 + 7}); // 3 parts
    auto load = [&](PhaseSpaceChunks<double>& chunks)
    {
        std::vector<std::vector<Particle<double>>> out;
        for (Piece const& piece : pieces)
        {
            auto const v = chunks.load(piece.first, piece.end, false);
            out.emplace_back(v.particles.begin(), v.particles.end());
        }
        return out;
    };
    auto same = [](Particle<double> const& a, Particle<double> const& b)
    {
        return a.type == b.type && a.energy_MeV == b.energy_MeV && a.weight == b.weight &&
               a.position_cm == b.position_cm && a.direction == b.direction;
    };
    in.read_ahead = false;
    in.read_threads = 1;
    PhaseSpaceChunks<double> one(in, grid);
    auto const expected = load(one);
    for (bool ahead : {false, true})
    {
        SCOPED_TRACE(ahead ? "read-ahead" : "no read-ahead");
        in.read_ahead = ahead;
        in.read_threads = 4;
        PhaseSpaceChunks<double> parts(in, grid);
        auto const got = load(parts);
        for (std::size_t i = 0; i < pieces.size(); ++i)
        {
            ASSERT_EQ(pieces[i].end - pieces[i].first, got[i].size()) << "piece " << i;
            ASSERT_EQ(expected[i].size(), got[i].size()) << "piece " << i;
            std::size_t differ = 0;
            for (std::size_t k = 0; k < got[i].size(); ++k)
                differ += same(expected[i][k], got[i][k]) ? 0 : 1;
            EXPECT_EQ(0u, differ) << "piece " << i;
        }
    }
}

// A file that fails under the read-ahead (cut since the scan) fails at the same piece
// with the same message as without read-ahead, and not before: a read-ahead that fails
// on particles no piece asks for reports nothing, and its object ends without waiting.
TEST_F(PhaseSpaceTest, ReadAheadErrorsAreThoseOfReadingWithout)
{
    PhaseSpaceInput in;
    in.file = this->write("cut.mcpl", {22}, 200000);
    in.scan = scan_phase_space(in.file, 50);
    fs::resize_file(in.file, fs::file_size(in.file) * 6 / 10); // about 120000 particles left
    GridGeometry const grid = make_axis_aligned_geometry({{4, 4, 4}}, {{1, 1, 1}}, {{0, 0, 0}});
    std::vector<Piece> const pieces = group_pieces(200000, 1, 10, 1, 0);
    in.read_ahead = false;
    PhaseSpaceChunks<double> plain(in, grid);
    auto const expected = load_all(plain, pieces);
    ASSERT_NE(0u, expected[4].find("error: ")) << "piece 4 (from 80000) loads";
    ASSERT_EQ(0u, expected[5].find("error: ")) << "the cut is in piece 5 (from 100000)";
    EXPECT_NE(std::string::npos, expected[5].find(in.file)) << expected[5];
    for (std::size_t loaded : {pieces.size(), std::size_t(5)})
    {
        in.read_ahead = true;
        PhaseSpaceChunks<double> ahead(in, grid);
        auto const got =
            load_all(ahead, std::vector<Piece>(pieces.begin(), pieces.begin() + loaded));
        for (std::size_t i = 0; i < got.size(); ++i)
            EXPECT_TRUE(expected[i] == got[i]) << "piece " << i << ": " << got[i].substr(0, 300);
        EXPECT_GT(ahead.read_ahead_used(), 0u);
    }
}

// Through the source mix: the sampler of history h is the loaded particle h / recycle,
// drawing no random number.
TEST_F(PhaseSpaceTest, SourceMixSelectsByHistory)
{
    SourceInput in;
    in.pointer = "/sources/0";
    in.kind = SourceKind::phase_space;
    in.phase_space = PhaseSpaceInput{};
    in.phase_space->file = this->write("mix.mcpl", {22}, 100);
    in.phase_space->scan = scan_phase_space(in.phase_space->file, 50);
    in.phase_space->recycle = 2;
    GridGeometry const grid = make_axis_aligned_geometry({{4, 4, 4}}, {{1, 1, 1}}, {{0, 0, 0}});
    SourceMixParams<float> mix({in}, grid);
    auto const view = mix.load_phase_space(10, 20, false);
    TestEngine rng(1);
    for (std::uint64_t h = 10; h < 20; ++h)
    {
        Particle<float> const p = view(rng, h);
        EXPECT_FLOAT_EQ(float(particle(h / 2, 22).energy_MeV), p.energy_MeV);
        EXPECT_FLOAT_EQ(float(particle(h / 2, 22).weight), p.weight);
    }
    // Not in a mix with another source.
    SourceInput pencil;
    pencil.pointer = "/sources/1";
    pencil.energy_MeV = 1;
    EXPECT_THROW(SourceMixParams<float>({in, pencil}, grid), RuntimeError);
}

// The JSON reader: relative paths, placement fields, and errors naming the field.
TEST_F(PhaseSpaceTest, JsonFieldsAndErrors)
{
    this->write("beam.mcpl", {22, 2112}, 10);
    std::string const study = (dir_ / "study.json").string();
    auto parse = [&](nlohmann::json const& j)
    { return parse_source(JsonNode(j, study, "/sources/0")); };
    auto const j = nlohmann::json::parse(R"({"type": "phase_space", "file": "beam.mcpl",
        "translation_cm": [0, 0, -50], "rotation_deg": [0, 90, 0], "recycle": 4})");
    SourceInput const s = parse(j);
    ASSERT_TRUE(s.phase_space);
    EXPECT_EQ(SourceKind::phase_space, s.kind);
    EXPECT_EQ((dir_ / "beam.mcpl").string(), s.phase_space->file);
    EXPECT_EQ(4u, s.phase_space->recycle);
    EXPECT_EQ(-50, s.phase_space->placement.translation_cm[2]);
    EXPECT_EQ(90, s.phase_space->placement.rotation_deg[1]);
    EXPECT_EQ(5u, s.phase_space->scan.transported);
    EXPECT_EQ(5u, s.phase_space->scan.skipped.at(2112));
    EXPECT_TRUE(s.phase_space->read_ahead);
    auto plain = j;
    plain["read_ahead"] = false;
    EXPECT_FALSE(parse(plain).phase_space->read_ahead);
    EXPECT_EQ(0, s.phase_space->read_threads);
    plain["read_threads"] = 3;
    EXPECT_EQ(3, parse(plain).phase_space->read_threads);

    auto message = [&](nlohmann::json const& bad)
    {
        try
        {
            parse(bad);
        }
        catch (InputError const& e)
        {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    auto typo = j;
    typo["translation"] = typo["translation_cm"];
    typo.erase("translation_cm");
    std::string m = message(typo);
    EXPECT_NE(std::string::npos, m.find("translation_cm")) << m; // the suggestion
    auto missing = j;
    missing["file"] = "nowhere.mcpl";
    m = message(missing);
    EXPECT_NE(std::string::npos, m.find("/sources/0/file")) << m;
    EXPECT_NE(std::string::npos, m.find("nowhere.mcpl")) << m;
    std::ofstream((dir_ / "corrupt.mcpl").string()) << "MCPL but not really";
    auto corrupt = j;
    corrupt["file"] = "corrupt.mcpl";
    m = message(corrupt);
    EXPECT_NE(std::string::npos, m.find("/sources/0/file")) << m;
    auto zero = j;
    zero["recycle"] = 0;
    m = message(zero);
    EXPECT_NE(std::string::npos, m.find("/sources/0/recycle")) << m;
}
} // namespace mcdose::test
