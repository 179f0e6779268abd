//! \file core/Comm.cc
#include "core/Comm.hh"

#include <cstdlib>
#include <vector>

#include "core/Assert.hh"
#include "core/Config.hh"

#if MCDOSE_USE_MPI
// The C API only (the deprecated C++ bindings would need libmpi_cxx).
#    define OMPI_SKIP_MPICXX 1
#    define MPICH_SKIP_MPICXX 1
#    include <mpi.h>
#endif

namespace mcdose
{
namespace
{
Comm& mutable_world()
{
    static Comm comm;
    return comm;
}

} // namespace

Comm const& Comm::world()
{
    return mutable_world();
}

bool MpiSession::launched_by_mpi()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") ||
           std::getenv("PMI_RANK");
}

#if MCDOSE_USE_MPI
namespace
{
void check_mpi(int err, char const* what)
{
    if (err == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(err, msg, &len);
    MCDOSE_VALIDATE(false, << what << " failed: " << std::string(msg, len));
}
} // namespace

MpiSession::MpiSession()
{
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!launched_by_mpi() || initialized)
        return;
    int provided = 0;
    // Only the main thread calls MPI (GPU and CPU worker threads never do).
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    started_ = true;
    Comm& c = mutable_world();
    c.mpi_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size_);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c.rank_, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &c.local_rank_);
    MPI_Comm_size(node, &c.local_size_);
    MPI_Comm_free(&node);
}

MpiSession::~MpiSession()
{
    if (!started_)
        return;
    MPI_Finalize();
    mutable_world() = Comm{};
}

void Comm::allreduce_sum(Span<std::uint64_t> values) const
{
    if (!mpi_ || size_ == 1 || values.empty())
        return;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()),
                            MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce (sum of 64-bit words)");
}

void Comm::sum_in_rank_order(Span<double> values) const
{
    if (!mpi_ || size_ == 1 || values.empty())
        return;
    int const n = static_cast<int>(values.size());
    std::vector<double> all(rank_ == 0 ? values.size() * size_ : 0);
    check_mpi(
        MPI_Gather(values.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD),
        "MPI_Gather (rank-ordered sum)");
    if (rank_ == 0)
    {
        for (int r = 1; r < size_; ++r)
        {
            double const* src = all.data() + std::size_t(r) * values.size();
            for (std::size_t i = 0; i < values.size(); ++i)
                values[i] += src[i];
        }
    }
    check_mpi(MPI_Bcast(values.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD),
              "MPI_Bcast (rank-ordered sum)");
}

void Comm::broadcast(std::string& text, int root) const
{
    if (!mpi_ || size_ == 1)
        return;
    unsigned long long len = text.size();
    check_mpi(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    text.resize(len);
    check_mpi(MPI_Bcast(text.data(), static_cast<int>(len), MPI_CHAR, root, MPI_COMM_WORLD),
              "MPI_Bcast");
}

void Comm::barrier() const
{
    if (mpi_ && size_ > 1)
        check_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

void Comm::abort(int code) const
{
    if (mpi_)
        MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}
#else
namespace
{
//! Ranks the launcher says the job has (0 when not launched by one).
int launcher_world_size()
{
    for (char const* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    {
        if (char const* v = std::getenv(var))
            return std::atoi(v);
    }
    return 0;
}
} // namespace

MpiSession::MpiSession()
{
    // Started by mpirun but unable to talk to the other ranks: every rank would
    // run the whole study and write the same files. Refuse instead.
    int const n = launcher_world_size();
    MCDOSE_VALIDATE(n <= 1, << "mcdose was started by an MPI launcher with " << n
                            << " ranks but was built without MPI; rebuild with "
                               "-DMCDOSE_USE_MPI=ON (needs libopenmpi-dev) or run without mpirun");
}
MpiSession::~MpiSession() = default;
void Comm::allreduce_sum(Span<std::uint64_t>) const
{
}
void Comm::sum_in_rank_order(Span<double>) const
{
}
void Comm::broadcast(std::string&, int) const
{
}
void Comm::barrier() const
{
}
void Comm::abort(int code) const
{
    std::exit(code);
}
#endif
} // namespace mcdose
