//! \file core/Comm.hh
//! The only door to MPI: rank and size of the job, the few collectives a
//! distributed run needs, and abort. Transport and tally code include this,
//! never mpi.h. In a build without MPI (MCDOSE_USE_MPI=0), or in a process not
//! started by mpirun, every call takes the serial path (one rank, collectives
//! are copies), so the same code runs in both cases.
#pragma once

#include <cstdint>
#include <string>

#include "core/Span.hh"

namespace mcdose
{
class Comm
{
  public:
    //! The job's communicator (MPI_COMM_WORLD once MpiSession started MPI;
    //! one rank otherwise).
    static Comm const& world();

    int rank() const { return rank_; }
    int size() const { return size_; }
    //! Rank and number of ranks on this node (to give each rank its own GPU).
    int local_rank() const { return local_rank_; }
    int local_size() const { return local_size_; }
    bool distributed() const { return size_ > 1; }

    //! Element-wise sum over ranks, in place, result on every rank. Integer
    //! addition modulo 2^64 is associative, so the result does not depend on
    //! the reduction order (used for FX words, two's-complement int64).
    void allreduce_sum(Span<std::uint64_t> values) const;
    //! Element-wise sum over ranks in rank order, ((r0 + r1) + r2) + ...,
    //! result on every rank: the order is fixed, so floating-point sums are
    //! reproducible for a given number of ranks (gathered on rank 0, summed,
    //! broadcast; MPI_Allreduce leaves the order to the library).
    void sum_in_rank_order(Span<double> values) const;
    //! Replace `text` on every rank by rank `root`'s.
    void broadcast(std::string& text, int root = 0) const;
    void barrier() const;
    //! End every rank of the job with `code` (MPI_Abort); exits in serial runs.
    [[noreturn]] void abort(int code) const;

  private:
    friend class MpiSession;
    int rank_{0};
    int size_{1};
    int local_rank_{0};
    int local_size_{1};
    bool mpi_{false};
};

//! RAII start and finish of MPI for one command. MPI is started only when the
//! process was launched by an MPI launcher (OpenMPI, PMI or PMIx environment
//! variables), so a plain `mcdose run` never pays for, or depends on, MPI.
class MpiSession
{
  public:
    MpiSession();
    ~MpiSession();
    MpiSession(MpiSession const&) = delete;
    MpiSession& operator=(MpiSession const&) = delete;

    //! True when this process runs under an MPI launcher.
    static bool launched_by_mpi();

  private:
    bool started_{false};
};
} // namespace mcdose
