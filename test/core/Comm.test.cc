//! \file test/core/Comm.test.cc
//! The serial path of the MPI wrapper (a test process is not started by
//! mpirun) and the --gpus selection rules.
#include "core/Comm.hh"

#include <vector>

#include <gtest/gtest.h>

#include "core/Assert.hh"
#include "core/Device.hh"

namespace mcdose::test
{
TEST(CommTest, SerialCollectivesLeaveValuesAsTheyAre)
{
    MpiSession const session; // no launcher variables: MPI stays off
    Comm const& c = Comm::world();
    EXPECT_EQ(0, c.rank());
    EXPECT_EQ(1, c.size());
    EXPECT_FALSE(c.distributed());
    std::vector<std::uint64_t> w = {1, ~0ull, 42};
    c.allreduce_sum(make_span(w));
    EXPECT_EQ((std::vector<std::uint64_t>{1, ~0ull, 42}), w);
    std::vector<double> d = {0.5, -2.0};
    c.sum_in_rank_order(make_span(d));
    EXPECT_EQ((std::vector<double>{0.5, -2.0}), d);
    std::string text = "unchanged";
    c.broadcast(text);
    EXPECT_EQ("unchanged", text);
    c.barrier();
}

TEST(CommTest, GpuSelection)
{
    EXPECT_EQ((std::vector<int>{0, 1, 2, 3}), select_gpus("", 4));
    EXPECT_EQ((std::vector<int>{0, 1, 2, 3}), select_gpus("all", 4));
    EXPECT_EQ((std::vector<int>{0, 1}), select_gpus("2", 4));
    EXPECT_EQ((std::vector<int>{2, 0}), select_gpus("2,0", 4));
    EXPECT_EQ((std::vector<int>{1}), select_gpus("1,", 4));
    EXPECT_THROW(select_gpus("5", 4), RuntimeError);   // more than visible
    EXPECT_THROW(select_gpus("0", 4), RuntimeError);   // a count of zero
    EXPECT_THROW(select_gpus("0,4", 4), RuntimeError); // no such index
    EXPECT_THROW(select_gpus("1,1", 4), RuntimeError); // twice
    EXPECT_THROW(select_gpus("x", 4), RuntimeError);
    EXPECT_THROW(select_gpus("", 0), RuntimeError); // no GPU at all
    try
    {
        select_gpus("0,7", 2);
        ADD_FAILURE() << "GPU 7 of 2 was accepted";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("GPU 7 does not exist"), std::string::npos)
            << e.what();
    }
}
} // namespace mcdose::test
