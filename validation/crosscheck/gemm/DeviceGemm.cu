//! \file validation/crosscheck/gemm/DeviceGemm.cu
//! cuBLAS calls of the MGEMM study (host API only; no kernels of our own).
//! cuBLAS is loaded when a study first calls it, not when the program starts:
//! its libraries (over half a gigabyte with cuBLASLt) take a tenth of a second
//! or more to load and initialise, which every other command would pay.
#include "DeviceGemm.hh"

#include <algorithm>
#include <vector>

#include <cublas_v2.h>
#include <dlfcn.h>

#include "core/DeviceBuffer.hh"
#include "core/DeviceCall.hh"
#include "validation/crosscheck/DeviceTimer.hh"

namespace mcdose::crosscheck
{
namespace
{
// cublas_v2.h maps the API names onto versioned symbols (cublasCreate ->
// cublasCreate_v2): the symbol to look up is the expanded name (and the
// library's version the expanded CUBLAS_VER_MAJOR).
#define MCDOSE_CUBLAS_NAME(NAME) MCDOSE_CUBLAS_NAME_EXPANDED(NAME)
#define MCDOSE_CUBLAS_NAME_EXPANDED(NAME) #NAME

//! The cuBLAS entry points the study uses, resolved from the library of the
//! toolkit's major version (the one whose headers this file was built with).
struct CublasLibrary
{
    decltype(&cublasCreate) create{};
    decltype(&cublasDestroy) destroy{};
    decltype(&cublasGetStatusString) status_string{};
    decltype(&cublasDgemm) dgemm{};
    decltype(&cublasSgemm) sgemm{};
    // cublasGemmEx is overloaded (an inline wrapper takes the old compute type).
    using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                      int, int, void const*, void const*, cudaDataType, int,
                                      void const*, cudaDataType, int, void const*, void*,
                                      cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
    decltype(static_cast<GemmEx>(&cublasGemmEx)) gemm_ex{};

    static CublasLibrary const& get()
    {
        static CublasLibrary const library = load();
        return library;
    }

  private:
    static CublasLibrary load()
    {
        char const* const name = "libcublas.so." MCDOSE_CUBLAS_NAME(CUBLAS_VER_MAJOR);
        // Kept loaded for the process: the handle below is never destroyed.
        void* const lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        MCDOSE_VALIDATE(lib, << "the GEMM cross-check needs cuBLAS (" << name
                             << "), which could not be loaded: " << dlerror()
                             << ". Install the CUDA toolkit's cuBLAS of this major version or "
                                "add its directory to LD_LIBRARY_PATH");
        CublasLibrary l;
        l.create = resolve<decltype(l.create)>(lib, MCDOSE_CUBLAS_NAME(cublasCreate), name);
        l.destroy = resolve<decltype(l.destroy)>(lib, MCDOSE_CUBLAS_NAME(cublasDestroy), name);
        l.status_string = resolve<decltype(l.status_string)>(
            lib, MCDOSE_CUBLAS_NAME(cublasGetStatusString), name);
        l.dgemm = resolve<decltype(l.dgemm)>(lib, MCDOSE_CUBLAS_NAME(cublasDgemm), name);
        l.sgemm = resolve<decltype(l.sgemm)>(lib, MCDOSE_CUBLAS_NAME(cublasSgemm), name);
        l.gemm_ex = resolve<decltype(l.gemm_ex)>(lib, MCDOSE_CUBLAS_NAME(cublasGemmEx), name);
        return l;
    }

    template <class F>
    static F resolve(void* lib, char const* symbol, char const* library)
    {
        void* const f = dlsym(lib, symbol);
        MCDOSE_VALIDATE(f, << library << " has no " << symbol
                           << ": it is not the cuBLAS this program was built against (CUDA "
                           << CUBLAS_VER_MAJOR << ")");
        return reinterpret_cast<F>(f);
    }
};

void check_cublas(cublasStatus_t status, char const* call)
{
    MCDOSE_VALIDATE(status == CUBLAS_STATUS_SUCCESS,
                    << "cuBLAS call " << call << " failed with status " << int(status) << " ("
                    << CublasLibrary::get().status_string(status) << ")");
}
#define MCDOSE_CUBLAS_CALL(STMT) check_cublas((STMT), #STMT)

//! RAII cuBLAS handle.
class CublasHandle
{
  public:
    CublasHandle() { MCDOSE_CUBLAS_CALL(CublasLibrary::get().create(&h_)); }
    ~CublasHandle() { CublasLibrary::get().destroy(h_); }
    CublasHandle(CublasHandle const&) = delete;
    CublasHandle& operator=(CublasHandle const&) = delete;
    operator cublasHandle_t() const { return h_; }

  private:
    cublasHandle_t h_{};
};

//! One handle for the process (MGEMM calls one SGEMM per tile). Deliberately
//! never destroyed: destroying it from a static destructor after the CUDA
//! runtime has shut down is undefined.
cublasHandle_t shared_handle()
{
    static CublasHandle* const handle = new CublasHandle();
    return *handle;
}

int as_int(size_type n)
{
    MCDOSE_VALIDATE(n < (size_type(1) << 31),
                    << "matrix dimension " << n << " exceeds cuBLAS's 32-bit int");
    return int(n);
}

//! One warm-up call, then the median of `repeats` event-timed calls.
template <class F>
void time_calls(F&& call, int repeats, DeviceGemmTiming* timing)
{
    if (!timing)
    {
        call(); // untimed (MGEMM tiles: their time is measured end to end)
        return;
    }
    call();
    MCDOSE_CUDA_CALL(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < std::max(1, repeats); ++r)
    {
        DeviceTimer timer;
        call();
        t.push_back(timer.stop_seconds());
    }
    std::sort(t.begin(), t.end());
    timing->seconds = t[t.size() / 2];
    timing->repeats = int(t.size());
}

template <class T>
Matrix<T> download(DeviceBuffer<T> const& d, size_type rows, size_type cols)
{
    Matrix<T> m(rows, cols);
    d.copy_to_host(make_span(m.values()));
    return m;
}

//! C = alpha A B + beta C in FP32 storage with a given compute type.
void gemm_ex(cublasHandle_t h, DeviceBuffer<float> const& a, DeviceBuffer<float> const& b,
             DeviceBuffer<float>& c, size_type m, size_type k, size_type n, float beta,
             cublasComputeType_t compute)
{
    float const alpha = 1.0f;
    MCDOSE_CUBLAS_CALL(CublasLibrary::get().gemm_ex(
        h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &alpha, a.data(), CUDA_R_32F,
        as_int(m), b.data(), CUDA_R_32F, as_int(k), &beta, c.data(), CUDA_R_32F, as_int(m), compute,
        CUBLAS_GEMM_DEFAULT));
}
} // namespace

Matrix<double> device_dgemm(Matrix<double> const& a, Matrix<double> const& b, int repeats,
                            DeviceGemmTiming* timing)
{
    MCDOSE_VALIDATE(a.cols() == b.rows(), << "DGEMM shapes do not match");
    size_type const m = a.rows(), k = a.cols(), n = b.cols();
    cublasHandle_t const h = shared_handle();
    DeviceBuffer<double> da(a.values()), db(b.values()), dc(m * n);
    double const alpha = 1, beta = 0;
    time_calls(
        [&]
        {
            MCDOSE_CUBLAS_CALL(CublasLibrary::get().dgemm(
                h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &alpha, da.data(),
                as_int(m), db.data(), as_int(k), &beta, dc.data(), as_int(m)));
        },
        repeats, timing);
    return download(dc, m, n);
}

Matrix<float> device_sgemm(Matrix<float> const& a, Matrix<float> const& b, bool tf32, int repeats,
                           DeviceGemmTiming* timing)
{
    MCDOSE_VALIDATE(a.cols() == b.rows(), << "SGEMM shapes do not match");
    size_type const m = a.rows(), k = a.cols(), n = b.cols();
    cublasHandle_t const h = shared_handle();
    DeviceBuffer<float> da(a.values()), db(b.values()), dc(m * n);
    time_calls(
        [&]
        {
            if (tf32)
            {
                gemm_ex(h, da, db, dc, m, k, n, 0.0f, CUBLAS_COMPUTE_32F_FAST_TF32);
            }
            else
            {
                float const alpha = 1, beta = 0;
                MCDOSE_CUBLAS_CALL(CublasLibrary::get().sgemm(
                    h, CUBLAS_OP_N, CUBLAS_OP_N, as_int(m), as_int(n), as_int(k), &alpha, da.data(),
                    as_int(m), db.data(), as_int(k), &beta, dc.data(), as_int(m)));
            }
        },
        repeats, timing);
    return download(dc, m, n);
}

std::pair<Matrix<float>, Matrix<float>> device_tf32x3(Tf32Split const& a, Tf32Split const& b,
                                                      int repeats, DeviceGemmTiming* timing)
{
    MCDOSE_VALIDATE(a.hi.cols() == b.hi.rows(), << "3xTF32 shapes do not match");
    size_type const m = a.hi.rows(), k = a.hi.cols(), n = b.hi.cols();
    cublasHandle_t const h = shared_handle();
    DeviceBuffer<float> ahi(a.hi.values()), alo(a.lo_scaled.values()), bhi(b.hi.values()),
        blo(b.lo_scaled.values()), hh(m * n), cross(m * n);
    time_calls(
        [&]
        {
            auto const tc = CUBLAS_COMPUTE_32F_FAST_TF32;
            gemm_ex(h, ahi, bhi, hh, m, k, n, 0.0f, tc);
            gemm_ex(h, ahi, blo, cross, m, k, n, 0.0f, tc);
            gemm_ex(h, alo, bhi, cross, m, k, n, 1.0f, tc);
        },
        repeats, timing);
    return {download(hh, m, n), download(cross, m, n)};
}

void device_sgemm_tile(Matrix<float> const& a, Matrix<float> const& b, Matrix<float>& c)
{
    c = device_sgemm(a, b, /*tf32=*/false, /*repeats=*/1, /*timing=*/nullptr);
}
} // namespace mcdose::crosscheck
