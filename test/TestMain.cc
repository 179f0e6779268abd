//! \file test/TestMain.cc
//! Test main: prints whether GPU tests will run, then runs GoogleTest.
#include <iostream>

#include <gtest/gtest.h>

#include "core/Device.hh"

int main(int argc, char** argv)
{
    ::testing::InitGoogleTest(&argc, argv);
    if (mcdose::device_count() == 0)
        std::cerr << "mcdose tests: no GPU (" << mcdose::no_device_reason()
                  << "): GPU tests will be skipped\n";
    return RUN_ALL_TESTS();
}
