//! \file test/StderrToFile.hh
//! stderr redirected to a file while a test runs inputs, to check that nothing (a library's
//! warning, say) was printed there.
#pragma once

#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

namespace mcdose::test
{
//! stderr redirected to a file while alive; restore() returns what was printed.
class StderrToFile
{
  public:
    explicit StderrToFile(std::string path) : path_(std::move(path))
    {
        std::fflush(stderr);
        saved_ = ::dup(STDERR_FILENO);
        int const fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, STDERR_FILENO);
        ::close(fd);
    }
    ~StderrToFile() { this->restore(); }
    StderrToFile(StderrToFile const&) = delete;
    StderrToFile& operator=(StderrToFile const&) = delete;

    std::string restore()
    {
        if (saved_ >= 0)
        {
            std::fflush(stderr);
            ::dup2(saved_, STDERR_FILENO);
            ::close(saved_);
            saved_ = -1;
        }
        std::ifstream in(path_, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }

  private:
    std::string path_;
    int saved_{-1};
};
} // namespace mcdose::test
