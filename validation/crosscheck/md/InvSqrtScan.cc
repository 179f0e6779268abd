//! \file validation/crosscheck/md/InvSqrtScan.cc
#include "InvSqrtScan.hh"

#include "validation/crosscheck/HostThreads.hh"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace mcdose::crosscheck
{
InvSqrtScanResult scan_inv_sqrt_host(std::uint32_t first_bits, std::uint32_t last_bits,
                                     std::uint32_t stride, unsigned threads)
{
    MCDOSE_VALIDATE(first_bits >= first_normal_float_bits && last_bits <= last_normal_float_bits &&
                        first_bits <= last_bits,
                    << "inverse-square-root scan range must lie within the positive normal "
                       "floats [0x00800000, 0x7f7fffff]");
    MCDOSE_VALIDATE(stride >= 1, << "scan stride must be at least 1");
    threads = resolve_threads(threads);
    InvSqrtTables const tables = make_inv_sqrt_tables();
    InvSqrtTableView const view = tables.view();
    std::uint64_t const count = (std::uint64_t(last_bits) - first_bits) / stride + 1;

    std::vector<InvSqrtScanResult> partial(threads);
    auto const start = std::chrono::steady_clock::now();
    auto worker = [&](unsigned t)
    {
        InvSqrtScanResult& r = partial[t];
        // Contiguous slices: thread t scans inputs [t count / threads, (t+1) count / threads).
        for (std::uint64_t k = t * count / threads; k < (t + 1) * count / threads; ++k)
        {
            float const x = bits_to_float(std::uint32_t(first_bits + k * stride));
            InvSqrtErrors const e = inv_sqrt_errors(view, x);
            if (e.table > r.max_table)
            {
                r.max_table = e.table;
                r.worst_table_input = x;
            }
            r.max_seed = std::max(r.max_seed, e.seed);
            r.max_division = std::max(r.max_division, e.division);
        }
    };
    run_on_threads(threads, worker);

    InvSqrtScanResult result;
    result.backend = Backend::cpu;
    result.inputs = count;
    for (auto const& r : partial)
    {
        if (r.max_table > result.max_table)
        {
            result.max_table = r.max_table;
            result.worst_table_input = r.worst_table_input;
        }
        result.max_seed = std::max(result.max_seed, r.max_seed);
        result.max_division = std::max(result.max_division, r.max_division);
    }
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}
} // namespace mcdose::crosscheck
