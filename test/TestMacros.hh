//! \file test/TestMacros.hh
//! Helpers shared by tests (model: celeritas `test/TestMacros.hh`).
#pragma once

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "core/Device.hh"

//! Skip the current test, with a clear message, when no GPU can be used.
#define MCDOSE_SKIP_IF_NO_GPU()                                                                    \
    do                                                                                             \
    {                                                                                              \
        if (::mcdose::device_count() == 0)                                                         \
        {                                                                                          \
            GTEST_SKIP() << "GPU test skipped: " << ::mcdose::no_device_reason();                  \
        }                                                                                          \
    } while (0)

namespace mcdose::test
{
//! Source tree root (set by ctest), for reference data under the repository.
inline std::string source_dir()
{
    char const* s = std::getenv("MCDOSE_SOURCE_DIR");
    return s ? s : MCDOSE_TEST_SOURCE_DIR;
}

//! Path of the `mcdose` executable under test.
inline std::string mcdose_exe()
{
    char const* s = std::getenv("MCDOSE_EXE");
    return s ? s : MCDOSE_TEST_EXE;
}
} // namespace mcdose::test
