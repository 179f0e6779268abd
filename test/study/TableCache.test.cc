//! \file test/study/TableCache.test.cc
//! The table cache: a hit gives the tables of a fresh build bit for bit; any change of an
//! input the tables depend on misses; a corrupt or truncated file is rebuilt with a
//! warning; the cache off, or unwritable, still gives the tables; entries or a directory
//! other users could have written are never read.
#include "study/TableCache.hh"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "phantoms/VoxelGrid.hh"
#include "phantoms/materials/MaterialCatalogue.hh"
#include "transport/engine/TransportParams.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
//! A 2-material phantom: water at its density and at `water_density_2`, bone.
VoxelGridParams two_material_grid(float water_density_2 = 1.0f)
{
    GridGeometry g;
    g.dims = {{2, 2, 2}};
    g.spacing_cm = {{1, 1, 1}};
    std::vector<MaterialIndex> material{0, 0, 0, 0, 1, 1, 1, 1};
    std::vector<float> density{1.0f, water_density_2, 1.0f, 1.0f, 1.85f, 1.85f, 1.85f, 1.85f};
    return VoxelGridParams(g, material, density, 2);
}

std::vector<Material> materials()
{
    return {find_material("water"), find_material("bone_cortical_icrp")};
}

//! Coarse grids: the tests need speed, not accuracy.
TransportOptions options()
{
    TransportOptions o;
    o.emax_MeV = 2;
    o.points_per_decade = 40;
    o.electron.points_per_decade = 20;
    return o;
}

class TableCacheTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        dir_ = fs::temp_directory_path() /
               ("mcdose_tablecache_" +
                std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    TableCacheSettings settings() const { return {true, dir_.string()}; }
    std::size_t files() const
    {
        if (!fs::exists(dir_))
            return 0;
        return std::distance(fs::directory_iterator(dir_), fs::directory_iterator{});
    }
    static void damage(std::string const& path, bool truncate)
    {
        std::string bytes;
        {
            std::ifstream in(path, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            bytes = ss.str();
        }
        if (truncate)
            bytes.resize(bytes.size() / 2);
        else
            bytes[bytes.size() / 3] ^= 0x01;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    }
    fs::path dir_;
};

TEST_F(TableCacheTest, HitGivesTheFreshTablesBitForBit)
{
    auto const grid = two_material_grid(0.9f);
    auto const inputs = transport_table_inputs(materials(), grid, options());
    TransportTables const fresh = build_transport_tables(inputs);

    auto const first = load_or_build_transport_tables(inputs, settings());
    EXPECT_EQ(first.outcome, TableCacheOutcome::stored);
    EXPECT_TRUE(first.warnings.empty());
    EXPECT_TRUE(fs::exists(first.path));
    EXPECT_EQ(files(), 1u);
    EXPECT_TRUE(*first.tables == fresh);

    auto const second = load_or_build_transport_tables(inputs, settings());
    EXPECT_EQ(second.outcome, TableCacheOutcome::loaded) << second.describe();
    EXPECT_EQ(second.path, first.path);
    EXPECT_TRUE(second.warnings.empty());
    EXPECT_TRUE(*second.tables == fresh);
    // A few values spelled out, so that == is not the only witness.
    ASSERT_EQ(second.tables->mu_rho.size(), fresh.mu_rho.size());
    EXPECT_EQ(second.tables->mu_rho.back(), fresh.mu_rho.back());
    EXPECT_EQ(second.tables->electron.stopping, fresh.electron.stopping);
    EXPECT_EQ(second.tables->electron.density_nodes.size(), 2u);
    EXPECT_NE(second.describe().find("read from the cache"), std::string::npos);

    // The params take the cached tables as they would the built ones.
    TransportParams const built(materials(), grid, options());
    TransportParams const cached(second.tables, grid, options());
    EXPECT_EQ(built.mu_rho(1), cached.mu_rho(1));
}

TEST_F(TableCacheTest, EveryTableInputChangesTheKey)
{
    auto const grid = two_material_grid();
    auto const base = transport_table_inputs(materials(), grid, options());
    std::string const key = transport_table_key(base);
    auto differs = [&](TransportTableInputs const& changed, char const* what)
    { EXPECT_NE(transport_table_key(changed), key) << what; };

    auto in = base;
    in.materials[1].components[0].mass_fraction += 1e-12;
    differs(in, "composition");
    in = base;
    in.materials[1].components[0].atomic_number = 2;
    differs(in, "element");
    in = base;
    in.materials[0].density_g_cm3 *= 1.01;
    differs(in, "material density");
    in = base;
    in.materials[0].mean_excitation_energy_eV = 78;
    differs(in, "I-value");
    in = base;
    in.materials[0].conductor = true;
    differs(in, "conductor");
    in = base;
    std::swap(in.materials[0], in.materials[1]);
    differs(in, "material order");

    auto with = [&](auto change, VoxelGridParams const& g = two_material_grid())
    {
        TransportOptions o = options();
        change(o);
        return transport_table_inputs(materials(), g, o);
    };
    differs(with([](TransportOptions&) {}, two_material_grid(0.5f)), "a voxel density");
    differs(with([](TransportOptions& o) { o.points_per_decade = 41; }), "photon grid");
    differs(with([](TransportOptions& o) { o.emax_MeV = 3; }), "table range");
    differs(with([](TransportOptions& o) { o.electron.points_per_decade = 21; }), "electron grid");
    differs(with([](TransportOptions& o) { o.electron.delta_cut_MeV = 0.1; }), "delta-ray cut");
    differs(with([](TransportOptions& o) { o.electron.brems_cut_MeV = 0.1; }), "brems cut");
    differs(with([](TransportOptions& o) { o.electron.max_loss_fraction = 0.05; }),
            "max step loss");
    differs(
        with([](TransportOptions& o) { o.electron.density_effect = DensityEffectModel::nominal; }),
        "density effect");
    differs(with([](TransportOptions& o) { o.compton_binding = false; }), "Compton model");
    differs(with([](TransportOptions& o) { o.electron.condensed_history = false; }),
            "electron transport");

    // Options the tables do not read share the tables.
    EXPECT_EQ(transport_table_key(with([](TransportOptions& o) { o.photon_cutoff_MeV = 0.05; })),
              key);
    EXPECT_EQ(
        transport_table_key(with([](TransportOptions& o) { o.electron.absorption_MeV = 0.5; })),
        key);
    // The key names the build: the table code's hash and the element data's version.
    EXPECT_NE(key.find("table code sha256 "), std::string::npos);
    EXPECT_NE(key.find("xraylib "), std::string::npos);
}

TEST_F(TableCacheTest, ChangedInputsMissAndBuildTheirOwnTables)
{
    auto const grid = two_material_grid();
    auto const first = load_or_build_transport_tables(
        transport_table_inputs(materials(), grid, options()), settings());
    ASSERT_EQ(first.outcome, TableCacheOutcome::stored);

    auto mats = materials();
    mats[1].density_g_cm3 = 1.5;
    TransportOptions cut = options();
    cut.electron.delta_cut_MeV = 0.1;
    for (auto const& changed :
         {transport_table_inputs(mats, grid, options()),
          transport_table_inputs(materials(), grid, cut),
          transport_table_inputs(materials(), two_material_grid(0.7f), options())})
    {
        auto const r = load_or_build_transport_tables(changed, settings());
        EXPECT_EQ(r.outcome, TableCacheOutcome::stored);
        EXPECT_NE(r.path, first.path);
        EXPECT_TRUE(*r.tables == build_transport_tables(changed));
    }
    EXPECT_EQ(files(), 4u);
    // The cut changes the electron tables, not only the key.
    auto const with_cut =
        load_or_build_transport_tables(transport_table_inputs(materials(), grid, cut), settings());
    EXPECT_EQ(with_cut.outcome, TableCacheOutcome::loaded);
    EXPECT_NE(with_cut.tables->electron.stopping, first.tables->electron.stopping);
}

TEST_F(TableCacheTest, CorruptOrTruncatedFileIsRebuiltWithAWarning)
{
    auto const inputs = transport_table_inputs(materials(), two_material_grid(), options());
    TransportTables const fresh = build_transport_tables(inputs);
    auto const first = load_or_build_transport_tables(inputs, settings());
    for (bool truncate : {false, true})
    {
        damage(first.path, truncate);
        auto const r = load_or_build_transport_tables(inputs, settings());
        EXPECT_EQ(r.outcome, TableCacheOutcome::stored) << r.describe();
        ASSERT_EQ(r.warnings.size(), 1u);
        EXPECT_NE(r.warnings[0].find("ignored the cached physics tables"), std::string::npos);
        EXPECT_NE(r.warnings[0].find("checksum mismatch"), std::string::npos) << r.warnings[0];
        EXPECT_TRUE(*r.tables == fresh);
        // The rebuilt file is whole again.
        auto const again = load_or_build_transport_tables(inputs, settings());
        EXPECT_EQ(again.outcome, TableCacheOutcome::loaded);
        EXPECT_TRUE(again.warnings.empty());
    }
}

TEST_F(TableCacheTest, TableBytesThatDoNotParseAreRejected)
{
    // A file whose checksum holds but whose tables end early (as from a build whose
    // serialisation differs) is not trusted either.
    auto const inputs = transport_table_inputs(materials(), two_material_grid(), options());
    TransportTables const fresh = build_transport_tables(inputs);
    std::string bytes = to_bytes(fresh);
    EXPECT_TRUE(transport_tables_from_bytes(bytes) == fresh);
    EXPECT_THROW(transport_tables_from_bytes(bytes.substr(0, bytes.size() - 8)), RuntimeError);
    EXPECT_THROW(transport_tables_from_bytes(bytes + "x"), RuntimeError);
}

TEST_F(TableCacheTest, OffOrUnwritableStillGivesTheTables)
{
    auto const inputs = transport_table_inputs(materials(), two_material_grid(), options());
    TransportTables const fresh = build_transport_tables(inputs);

    auto const off = load_or_build_transport_tables(inputs, {false, dir_.string()});
    EXPECT_EQ(off.outcome, TableCacheOutcome::built);
    EXPECT_TRUE(off.warnings.empty());
    EXPECT_TRUE(off.path.empty());
    EXPECT_EQ(files(), 0u);
    EXPECT_TRUE(*off.tables == fresh);
    EXPECT_NE(off.describe().find("not cached"), std::string::npos);

    fs::create_directories(dir_);
    std::ofstream((dir_ / "file").string()) << "a file where the cache directory would be";
    auto const unwritable =
        load_or_build_transport_tables(inputs, {true, (dir_ / "file" / "cache").string()});
    EXPECT_EQ(unwritable.outcome, TableCacheOutcome::built);
    ASSERT_EQ(unwritable.warnings.size(), 1u);
    EXPECT_NE(unwritable.warnings[0].find("not cached"), std::string::npos);
    EXPECT_TRUE(*unwritable.tables == fresh);
}

TEST_F(TableCacheTest, ConcurrentRunsShareOneValidFile)
{
    auto const inputs = transport_table_inputs(materials(), two_material_grid(), options());
    TransportTables const fresh = build_transport_tables(inputs);
    std::vector<TableCacheResult> results(3);
    std::vector<std::thread> runs;
    for (auto& r : results)
        runs.emplace_back([&] { r = load_or_build_transport_tables(inputs, settings()); });
    for (auto& t : runs)
        t.join();
    for (auto const& r : results)
    {
        EXPECT_TRUE(r.warnings.empty());
        EXPECT_TRUE(*r.tables == fresh);
    }
    EXPECT_EQ(files(), 1u);
    EXPECT_EQ(load_or_build_transport_tables(inputs, settings()).outcome,
              TableCacheOutcome::loaded);
}
} // namespace
} // namespace mcdose

namespace mcdose
{
// On a shared machine: an entry others could have written (forged tables change the dose)
// is ignored with one warning and replaced; a cache directory others can write is neither
// read nor written, with one warning; the tables are built in both cases.
TEST_F(TableCacheTest, EntriesOthersCouldHaveWrittenAreNeverRead)
{
    auto const inputs = transport_table_inputs(materials(), two_material_grid(), options());
    TransportTables const fresh = build_transport_tables(inputs);
    auto const first = load_or_build_transport_tables(inputs, settings());
    ASSERT_EQ(first.outcome, TableCacheOutcome::stored);
    fs::permissions(first.path, fs::perms::group_write, fs::perm_options::add);
    auto const forged = load_or_build_transport_tables(inputs, settings());
    EXPECT_EQ(forged.outcome, TableCacheOutcome::stored);
    ASSERT_EQ(forged.warnings.size(), 1u);
    EXPECT_NE(forged.warnings[0].find("other users can write it"), std::string::npos)
        << forged.warnings[0];
    EXPECT_TRUE(*forged.tables == fresh);
    EXPECT_EQ(load_or_build_transport_tables(inputs, settings()).outcome,
              TableCacheOutcome::loaded);

    fs::permissions(dir_, fs::perms::others_write | fs::perms::others_exec, fs::perm_options::add);
    auto const shared = load_or_build_transport_tables(inputs, settings());
    EXPECT_EQ(shared.outcome, TableCacheOutcome::built);
    ASSERT_EQ(shared.warnings.size(), 1u);
    EXPECT_NE(shared.warnings[0].find("is not used"), std::string::npos) << shared.warnings[0];
    EXPECT_TRUE(*shared.tables == fresh);
}
} // namespace mcdose
