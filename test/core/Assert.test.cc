#include "core/Assert.hh"

#include <gtest/gtest.h>

#include "core/Types.hh"

namespace mcdose
{
TEST(AssertTest, ValidateThrowsWithMessage)
{
    int const histories = -5;
    try
    {
        MCDOSE_VALIDATE(histories > 0, << "'histories' must be positive (got " << histories
                                       << "); give a count above zero");
        FAIL() << "expected RuntimeError";
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("'histories' must be positive (got -5)"),
                  std::string::npos)
            << e.what();
    }
}

TEST(AssertTest, ValidatePassesSilently)
{
    EXPECT_NO_THROW(MCDOSE_VALIDATE(1 + 1 == 2, << "arithmetic"));
}

TEST(AssertTest, ContractsMatchBuildMode)
{
    auto violate = [] { MCDOSE_EXPECT(false); };
    if (MCDOSE_DEBUG)
        EXPECT_THROW(violate(), DebugError);
    else
        EXPECT_NO_THROW(violate());
}

TEST(AssertTest, PrecisionAndBackendParsing)
{
    EXPECT_EQ(Precision::single_, to_precision("float"));
    EXPECT_EQ(Precision::double_, to_precision("double"));
    EXPECT_THROW(to_precision("half"), RuntimeError);
    EXPECT_EQ(Backend::cpu, to_backend("cpu"));
    EXPECT_EQ(Backend::automatic, to_backend("auto"));
    try
    {
        to_backend("tpu");
        FAIL();
    }
    catch (RuntimeError const& e)
    {
        EXPECT_NE(std::string(e.what()).find("'auto', 'gpu' or 'cpu'"), std::string::npos);
    }
    auto bytes = dispatch_precision(Precision::single_,
                                    [](auto p) { return sizeof(Real<decltype(p)::value>); });
    EXPECT_EQ(4u, bytes);
}
} // namespace mcdose
