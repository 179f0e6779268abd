//! \file validation/crosscheck/md/InvSqrtScan.cu
//! GPU launch of the inverse-square-root scan; adds the rsqrtf intrinsic
//! (CUDA C Programming Guide, maximum error 2 ulp).
#include "InvSqrtScan.hh"

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "validation/crosscheck/DeviceTimer.hh"

namespace mcdose::crosscheck
{
namespace
{
//! Maxima kept as the bit patterns of non-negative doubles, which order like
//! the unsigned integers, so atomicMax on the bits is a max on the values.
struct ScanMaxima
{
    unsigned long long table, seed, division, rsqrt;
};

MCDOSE_DEVICE_FUNCTION void atomic_max_double(unsigned long long* target, double v)
{
    atomicMax(target, static_cast<unsigned long long>(__double_as_longlong(v)));
}

MCDOSE_KERNEL void scan_kernel(InvSqrtTableView tables, std::uint32_t first, std::uint32_t stride,
                               std::uint64_t count, ScanMaxima* maxima)
{
    double m_table = 0, m_seed = 0, m_div = 0, m_rsqrt = 0;
    std::uint64_t const step = std::uint64_t(gridDim.x) * blockDim.x;
    for (std::uint64_t k = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
         k += step)
    {
        float const x = bits_to_float(std::uint32_t(first + k * stride));
        InvSqrtErrors const e = inv_sqrt_errors(tables, x);
        m_table = fmax(m_table, e.table);
        m_seed = fmax(m_seed, e.seed);
        m_div = fmax(m_div, e.division);
        m_rsqrt = fmax(m_rsqrt, relative_error(rsqrtf(x), 1.0 / sqrt(double(x))));
    }
    atomic_max_double(&maxima->table, m_table);
    atomic_max_double(&maxima->seed, m_seed);
    atomic_max_double(&maxima->division, m_div);
    atomic_max_double(&maxima->rsqrt, m_rsqrt);
}

double bits_to_double(unsigned long long b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}
} // namespace

InvSqrtScanResult scan_inv_sqrt_device(std::uint32_t first_bits, std::uint32_t last_bits,
                                       std::uint32_t stride)
{
    MCDOSE_VALIDATE(first_bits >= first_normal_float_bits && last_bits <= last_normal_float_bits &&
                        first_bits <= last_bits && stride >= 1,
                    << "inverse-square-root scan range must lie within the positive normal "
                       "floats [0x00800000, 0x7f7fffff] with stride >= 1");
    InvSqrtTables const host_tables = make_inv_sqrt_tables();
    DeviceBuffer<std::uint32_t> exponent(host_tables.exponent), fraction(host_tables.fraction);
    DeviceBuffer<ScanMaxima> maxima(1);
    maxima.zero();
    std::uint64_t const count = (std::uint64_t(last_bits) - first_bits) / stride + 1;

    InvSqrtScanResult result;
    result.backend = Backend::gpu;
    result.inputs = count;
    DeviceTimer timer;
    scan_kernel<<<4096, 256>>>({exponent.device_span(), fraction.device_span()}, first_bits, stride,
                               count, maxima.data());
    MCDOSE_CUDA_CHECK_LAUNCH();
    result.seconds = timer.stop_seconds();
    ScanMaxima const m = maxima.to_host().front();
    result.max_table = bits_to_double(m.table);
    result.max_seed = bits_to_double(m.seed);
    result.max_division = bits_to_double(m.division);
    result.max_rsqrtf = bits_to_double(m.rsqrt);
    return result;
}
} // namespace mcdose::crosscheck
