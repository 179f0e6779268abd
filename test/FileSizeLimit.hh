//! \file test/FileSizeLimit.hh
//! A full disk for one test: run a function in a child process whose files
//! cannot grow beyond a size (RLIMIT_FSIZE; a write past it fails with EFBIG,
//! as on a full disk, and SIGXFSZ is ignored).
#pragma once

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace mcdose::test
{
//! Run `f` (returning an exit code) in a child with files limited to
//! `max_bytes`. The child ends with std::exit, so exit-time handlers (e.g.
//! HDF5's library shutdown) run as at the end of a real run. Returns the
//! child's exit status, or 128 + the signal that killed it.
template <class F>
int run_with_file_size_limit(rlim_t max_bytes, F&& f)
{
    std::fflush(nullptr);
    pid_t const pid = ::fork();
    if (pid == 0)
    {
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit const limit{max_bytes, max_bytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        std::exit(f());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
} // namespace mcdose::test
