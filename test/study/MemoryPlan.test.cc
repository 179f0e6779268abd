//! Memory known before it is spent: the estimate per voxel, the size syntax
//! of the limits, and a study too large for its limit refused with what it
//! needs, what is free and what to change, writing no file.
#include <filesystem>

#include <gtest/gtest.h>

#include "RunCommand.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "study/MemoryPlan.hh"

namespace mcdose::test
{
namespace
{
TEST(MemoryPlanTest, PerVoxelBytesFollowTheRun)
{
    StudyInput study;
    study.tally.method = TallyMethod::fx;
    study.outputs.image_format = ImageFormat::mha;
    size_type const voxels = 1000000;
    // One GPU folding in place: phantom 6, FX grid 8, totals 24 and final grids 16 B per
    // voxel on the device, with the final grids' mask and counts (0.25 B); the host keeps the
    // phantom, the final grids and at most 1.0625 B of the table of the voxels with energy
    // (MetaImages are filled and written piece by piece).
    MemoryPlan const gpu = plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1});
    EXPECT_DOUBLE_EQ((6 + 8 + 24 + 16 + 0.25) * 1e6 + 1e9, gpu.device_bytes());
    EXPECT_DOUBLE_EQ((6 + 16 + 1.0625) * 1e6 + 256e6, gpu.host_bytes());
    // The CPU backend holds the batch grid and the totals on the host, and by default
    // (history by history) the squares of the batch and of the run.
    MemoryPlan const cpu = plan_study_memory(study, {voxels, Backend::cpu, 0, 1, 1});
    EXPECT_TRUE(cpu.device.empty());
    EXPECT_DOUBLE_EQ((6 + 8 + 24 + 16 + 1.0625 + 16) * 1e6 + 256e6, cpu.host_bytes());
    study.tally.uncertainty = TallyUncertainty::batch;
    EXPECT_DOUBLE_EQ((6 + 8 + 24 + 16 + 1.0625) * 1e6 + 256e6,
                     plan_study_memory(study, {voxels, Backend::cpu, 0, 1, 1}).host_bytes());
    study.tally.uncertainty = TallyUncertainty::automatic;
    // Two worker groups: each group's squares, their copies, the sum and the host tally's.
    study.tally.uncertainty = TallyUncertainty::batch;
    double const batch_two = plan_study_memory(study, {voxels, Backend::cpu, 0, 2, 1}).host_bytes();
    study.tally.uncertainty = TallyUncertainty::automatic;
    EXPECT_DOUBLE_EQ(batch_two + 24 * 3 * 1e6,
                     plan_study_memory(study, {voxels, Backend::cpu, 0, 2, 1}).host_bytes());
    // Two GPUs reduce on the host: per group a copy of the grid, the sum and a host fold.
    MemoryPlan const two = plan_study_memory(study, {voxels, Backend::gpu, 2, 1, 1});
    EXPECT_DOUBLE_EQ((6 + 8) * 1e6 + 1e9, two.device_bytes());
    EXPECT_DOUBLE_EQ((2 * 6 + 2 * 8 + 8 + 24 + 16 + 1.0625) * 1e6 + 256e6, two.host_bytes());
    // NRRD and NIfTI images (ITK) take a float buffer and the image read back to check it.
    study.outputs.image_format = ImageFormat::nrrd;
    EXPECT_DOUBLE_EQ((6 + 16 + 1.0625 + 8) * 1e6 + 256e6,
                     plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1}).host_bytes());
    study.outputs.image_format = ImageFormat::none;
    EXPECT_DOUBLE_EQ((6 + 16 + 1.0625) * 1e6 + 256e6,
                     plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1}).host_bytes());
    // Source particles sampled ahead: 2^22 particles (36 B in single, 72 B in double
    // precision) and their draw counts (4 B) on the device.
    MemoryPlanInput ahead{voxels, Backend::gpu, 1, 1, 1};
    ahead.source_particles_ahead = 1u << 22;
    study.physics.precision = Precision::single_;
    EXPECT_DOUBLE_EQ(gpu.device_bytes() + 40.0 * (1u << 22),
                     plan_study_memory(study, ahead).device_bytes());
    study.physics.precision = Precision::double_;
    EXPECT_DOUBLE_EQ(gpu.device_bytes() + 76.0 * (1u << 22),
                     plan_study_memory(study, ahead).device_bytes());
}

// A phase-space source holds two pieces (read-ahead: the one transported and the next) of
// a batch's particles, with a margin of 16 on either side, on the host and on the GPU,
// and each reading thread's block of 2^12 placed particles (72 B) on the host, with, for
// a GPU, two pinned staging blocks of 2^12 particles.
TEST(MemoryPlanTest, PhaseSpacePiecesAreCounted)
{
    StudyInput study;
    study.tally.method = TallyMethod::fx;
    study.outputs.image_format = ImageFormat::mha;
    study.physics.precision = Precision::single_;
    size_type const voxels = 1000000;
    MemoryPlanInput how{voxels, Backend::gpu, 1, 1, 1};
    how.phase_space_piece = 1000000;
    MemoryPlan const without = plan_study_memory(study, how); // no phase-space source
    SourceInput source;
    source.kind = SourceKind::phase_space;
    source.phase_space = PhaseSpaceInput{};
    source.phase_space->read_threads = 3;
    study.sources = {source};
    MemoryPlan const with = plan_study_memory(study, how);
    double const pieces = 2 * (1000000 + 32) * 36.0;
    EXPECT_DOUBLE_EQ(without.device_bytes() + pieces, with.device_bytes());
    EXPECT_DOUBLE_EQ(without.host_bytes() + pieces + 3 * 4096 * (72.0 + 2 * 36.0),
                     with.host_bytes());
    // Without read-ahead one piece; on the CPU backend nothing on a device.
    study.sources[0].phase_space->read_ahead = false;
    EXPECT_DOUBLE_EQ(without.device_bytes() + pieces / 2,
                     plan_study_memory(study, how).device_bytes());
    how.backend = Backend::cpu;
    EXPECT_TRUE(plan_study_memory(study, how).device.empty());
}

TEST(MemoryPlanTest, GigavoxelGridOnOneGpu)
{
    // 1024^3 with HB on one 80 GB GPU: 59 GB on the device; 25.0 GB on the host with
    // MetaImages or none, 33.6 GB with NRRD images.
    StudyInput study;
    study.tally.method = TallyMethod::hb;
    study.outputs.image_format = ImageFormat::mha;
    size_type const voxels = size_type(1) << 30;
    MemoryPlan const plan = plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1});
    EXPECT_DOUBLE_EQ(54.25 * double(voxels) + 1e9, plan.device_bytes());
    EXPECT_LT(plan.device_bytes(), 80e9);
    EXPECT_DOUBLE_EQ(23.0625 * double(voxels) + 256e6, plan.host_bytes());
    study.outputs.image_format = ImageFormat::nrrd;
    EXPECT_DOUBLE_EQ(31.0625 * double(voxels) + 256e6,
                     plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1}).host_bytes());
    study.outputs.image_format = ImageFormat::none;
    EXPECT_DOUBLE_EQ(23.0625 * double(voxels) + 256e6,
                     plan_study_memory(study, {voxels, Backend::gpu, 1, 1, 1}).host_bytes());
}

TEST(MemoryPlanTest, LimitsAreReadInBinaryUnits)
{
    EXPECT_EQ(4096u, parse_memory_size("4096", "X"));
    EXPECT_EQ(512u << 20, parse_memory_size("512M", "X"));
    EXPECT_EQ(3ull << 30, parse_memory_size("3GiB", "X"));
    EXPECT_EQ(1536ull << 20, parse_memory_size("1.5G", "X"));
    EXPECT_THROW(parse_memory_size("lots", "X"), RuntimeError);
    EXPECT_THROW(parse_memory_size("2Q", "X"), RuntimeError);
}

using MemoryRefusalTest = StudyFixture;

TEST_F(MemoryRefusalTest, TooLargeStudyIsRefusedWithTheNumbersAndWritesNoFile)
{
    auto study = minimal();
    study["phantom"]["grid"] = {{"dimensions", {600, 600, 600}}, {"spacing_cm", {0.1, 0.1, 0.1}}};
    study["outputs"]["image_format"] = "nrrd";
    auto const path = write_json("large.json", study);
    auto const out = dir_ / "out";
    auto const r = run_command("MCDOSE_HOST_MEMORY_LIMIT=1G " + mcdose_exe() + " run " + path +
                               " --backend cpu --output-dir " + out.string());
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("needs about")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("216000000 voxels")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("but 1.07 GB is free")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("coarser grid")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("\"image_format\": \"mha\"")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("\"uncertainty\": \"batch\"")) << r.output;
    bool const wrote = std::filesystem::exists(out) && !std::filesystem::is_empty(out);
    EXPECT_FALSE(wrote) << "a refused study must write no file";
}

TEST_F(MemoryRefusalTest, GigavoxelStudyIsRefusedBeforeTheGridIsBuilt)
{
    // 1024^3 voxels of the CPU backend need about 76.6 GB (59.4 GB with the batch method):
    // refused at once, with the numbers, before the phantom is built (which alone would
    // take 6.4 GB).
    auto study = minimal();
    study["phantom"]["grid"] = {{"dimensions", {1024, 1024, 1024}},
                                {"spacing_cm", {0.04, 0.04, 0.04}}};
    auto const path = write_json("gigavoxel.json", study);
    auto const r = run_command("MCDOSE_HOST_MEMORY_LIMIT=30G " + mcdose_exe() + " run " + path +
                               " --backend cpu --output-dir " + (dir_ / "out").string());
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("needs about 76.6 GB")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("1073741824 voxels")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("but 32.2 GB is free")) << r.output;
}

TEST_F(MemoryRefusalTest, DeviceLimitIsCheckedOnEveryGpu)
{
    MCDOSE_SKIP_IF_NO_GPU();
    auto study = minimal();
    study["phantom"]["grid"] = {{"dimensions", {400, 400, 400}}, {"spacing_cm", {0.1, 0.1, 0.1}}};
    auto const path = write_json("large.json", study);
    auto const r = run_command("MCDOSE_DEVICE_MEMORY_LIMIT=2G " + mcdose_exe() + " run " + path +
                               " --backend gpu --gpus 1 --output-dir " + (dir_ / "out").string());
    EXPECT_EQ(1, r.exit_code) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("of memory on GPU 0")) << r.output;
    EXPECT_NE(std::string::npos, r.output.find("but 2.15 GB is free")) << r.output;
}
} // namespace
} // namespace mcdose::test
