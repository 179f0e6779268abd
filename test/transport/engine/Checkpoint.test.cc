//! Checkpoints read back (transport/engine/Checkpoint.hh): a forged checkpoint with a
//! valid checksum but fields no run writes is refused by field, and a seeded corpus of
//! mutated checkpoints is refused or read back consistent.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string_view>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "core/Hash.hh"
#include "transport/engine/Checkpoint.hh"

namespace mcdose::test
{
namespace
{
//! A checkpoint as a run of 3 batches (10, 10 and 9 histories) over 4 voxels writes it.
TransportCheckpoint valid_checkpoint()
{
    TransportCheckpoint ck;
    ck.fingerprint = "study=x\nhistories=29\n";
    ck.batches_done = 3;
    ck.histories_done = 29;
    ck.transport_time_s = 1.5;
    ck.tally.total_hi = {1, 2, 0, 4};
    ck.tally.total_lo = {0, 1e-17, 0, 0};
    ck.tally.sum_sq = {0.5, 1.5, 0, 6};
    ck.tally.batches = 3;
    ck.tally.histories = 29;
    ck.tally.min_batch_histories = 9;
    ck.tally.max_batch_histories = 10;
    ck.tally.reference_batch_histories = 10;
    ck.balance.emitted_MeV = 29;
    ck.balance.deposited_MeV = 7;
    ck.batch_digests = {{1, 2}, {3, 4}, {5, 6}};
    return ck;
}

//! The checksum of `bytes` set again over its body (a forger's file).
void reseal(std::string& bytes)
{
    std::size_t const body = bytes.size() - sizeof(std::uint64_t);
    std::uint64_t const sum = fnv1a64(std::string_view(bytes).substr(0, body));
    std::memcpy(&bytes[body], &sum, sizeof sum);
}

std::string refusal(std::string const& bytes)
{
    try
    {
        deserialize_checkpoint(bytes, "forged.ckpt");
        return "";
    }
    catch (RuntimeError const& e)
    {
        return e.what();
    }
}
} // namespace

TEST(CheckpointTest, ValidReadsBack)
{
    TransportCheckpoint const ck = valid_checkpoint();
    TransportCheckpoint const back = deserialize_checkpoint(serialize_checkpoint(ck), "ok.ckpt");
    EXPECT_EQ(ck.tally.sum_sq, back.tally.sum_sq);
    EXPECT_EQ(10u, back.tally.reference_batch_histories);
    EXPECT_EQ(ck.batch_digests, back.batch_digests);
}

// NaN or infinite totals (once an all-NaN dose with exit code 0), negative squares and
// contradictory counts are refused, naming what is wrong, before any work.
TEST(CheckpointTest, ForgedFieldsAreRefusedByName)
{
    double const nan = std::numeric_limits<double>::quiet_NaN();
    double const inf = std::numeric_limits<double>::infinity();
    struct Forgery
    {
        void (*forge)(TransportCheckpoint&, double, double);
        char const* named;
    };
    Forgery const forgeries[] = {
        {[](TransportCheckpoint& c, double n, double) { c.tally.total_hi.assign(4, n); },
         "dose total"},
        {[](TransportCheckpoint& c, double, double i) { c.tally.total_lo[1] = i; }, "dose total"},
        {[](TransportCheckpoint& c, double n, double) { c.tally.sum_sq[0] = n; }, "squares"},
        {[](TransportCheckpoint& c, double, double) { c.tally.sum_sq[3] = -1; }, "squares"},
        {[](TransportCheckpoint& c, double n, double) { c.transport_time_s = n; }, "time"},
        {[](TransportCheckpoint& c, double, double i) { c.balance.emitted_MeV = i; }, "balance"},
        {[](TransportCheckpoint& c, double n, double) { c.batch_digests[2][0] = n; }, "digest"},
        {[](TransportCheckpoint& c, double, double) { c.tally.histories = 5; }, "counts"},
        {[](TransportCheckpoint& c, double, double) { c.tally.histories = c.histories_done = 300; },
         "history count"},
        {[](TransportCheckpoint& c, double, double) { c.tally.min_batch_histories = 11; },
         "batch history counts"},
        {[](TransportCheckpoint& c, double, double) { c.tally.reference_batch_histories = 0; },
         "batch history counts"},
    };
    for (Forgery const& f : forgeries)
    {
        TransportCheckpoint ck = valid_checkpoint();
        f.forge(ck, nan, inf);
        std::string const m = refusal(serialize_checkpoint(ck));
        EXPECT_NE(std::string::npos, m.find("forged.ckpt")) << m;
        EXPECT_NE(std::string::npos, m.find(f.named)) << f.named << ": " << m;
        EXPECT_NE(std::string::npos, m.find("without --resume")) << m;
    }
}

/*!
 * A seeded corpus of 400 mutants of a valid checkpoint, resealed with a valid checksum so
 * that they reach the field checks: bytes overwritten with 0, 0xff, random bytes or the
 * bytes of a NaN, or the file cut. Each is refused with a message naming it, or read back
 * with finite totals and consistent counts: never a crash, a huge allocation or a silent
 * accept of a field no run writes.
 */
TEST(CheckpointTest, MutatedCheckpointsCorpus)
{
    std::string const good = serialize_checkpoint(valid_checkpoint());
    std::mt19937_64 engine(53);
    double const nan = std::numeric_limits<double>::quiet_NaN();
    int refused = 0;
    for (int k = 0; k < 400; ++k)
    {
        std::string bytes = good;
        std::size_t const body = bytes.size() - sizeof(std::uint64_t);
        int const kind = int(engine() % 4);
        std::size_t const at = engine() % (body - sizeof(double));
        if (kind == 0)
            std::memcpy(&bytes[at], &nan, sizeof nan);
        else
            bytes[at] = kind == 1 ? char(0xff) : kind == 2 ? char(0) : char(engine() & 0xff);
        if (engine() % 6 == 0)
            bytes.resize(sizeof(std::uint64_t) + engine() % body);
        if (bytes.size() > sizeof(std::uint64_t))
            reseal(bytes);
        std::string const m = refusal(bytes);
        if (!m.empty())
        {
            ++refused;
            EXPECT_NE(std::string::npos, m.find("forged.ckpt")) << k << ": " << m;
            continue;
        }
        TransportCheckpoint const ck = deserialize_checkpoint(bytes, "forged.ckpt");
        for (double x : ck.tally.total_hi)
            EXPECT_TRUE(std::isfinite(x)) << k;
        for (double x : ck.tally.sum_sq)
            EXPECT_TRUE(std::isfinite(x) && x >= 0) << k;
        EXPECT_EQ(ck.batches_done, ck.tally.batches) << k;
        EXPECT_EQ(ck.histories_done, ck.tally.histories) << k;
    }
    EXPECT_GT(refused, 100);
}
} // namespace mcdose::test
