//! \file app/commands/Crosscheck.cc
//! `mcdose crosscheck md|rsqrt|gemm`: the cross-check studies of the
//! project's compensated-sum primitives (validation/crosscheck/). Prints
//! a table; --json writes the records (atomically). GPU when present, CPU
//! otherwise, or as --backend says.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/CommandRegistry.hh"
#include "core/AtomicFile.hh"
#include "core/Config.hh"
#include "core/Device.hh"
#include "core/Types.hh"
#include "validation/crosscheck/gemm/GemmStudy.hh"
#include "validation/crosscheck/md/InvSqrtScan.hh"
#include "validation/crosscheck/md/MdStudy.hh"
#include "validation/crosscheck/md/MolShift.hh"
#include "validation/crosscheck/md/Virial.hh"

namespace mcdose::app
{
namespace
{
using namespace mcdose::crosscheck;
using json = nlohmann::json;

Backend resolve_backend(std::string const& name)
{
    Backend b = to_backend(name);
    if (b == Backend::automatic)
        b = device_count() > 0 ? Backend::gpu : Backend::cpu;
    MCDOSE_VALIDATE(b == Backend::cpu || device_count() > 0, << "--backend gpu needs a GPU ("
                                                             << no_device_reason()
                                                             << "); use --backend cpu");
    return b;
}

json run_header(Backend backend, std::string const& study)
{
    json h;
    h["study"] = study;
    h["backend"] = to_cstring(backend);
    h["mcdose_git"] = BuildInfo::git_describe;
    auto const devices = backend == Backend::gpu ? device_infos() : std::vector<DeviceInfo>{};
    h["device"] = devices.empty() ? std::string("CPU") : devices.front().name;
    return h;
}

void write_json(std::string const& path, json const& j)
{
    if (!path.empty())
        write_text_atomically(path, j.dump(2) + '\n');
}

std::string sci(double v, int digits = 2)
{
    std::ostringstream s;
    s << std::scientific << std::setprecision(digits) << v;
    return s.str();
}

//---------------------------------------------------------------------------//
struct MdArgs
{
    std::string backend{"auto"};
    std::string system{"both"};
    size_type particles{0}; // 0: 65536 on the GPU, 4096 on the CPU
    size_type chains{0};    // 0: 512 on the GPU, 128 on the CPU
    size_type chain_length{8};
    std::string methods{"ABCDEFGH"};
    unsigned threads{0};
    std::uint64_t seed{20080313};
    std::string json_path;
};

void run_md(MdArgs const& args)
{
    Backend const backend = resolve_backend(args.backend);
    MCDOSE_VALIDATE(args.system == "cloud" || args.system == "chains" || args.system == "both",
                    << "--system must be cloud, chains or both (got '" << args.system << "')");
    MdStudyOptions opts;
    opts.backend = backend;
    opts.threads = args.threads;
    for (char c : args.methods)
        opts.methods.push_back(to_accum_method(std::string(1, c)));
    bool const gpu = backend == Backend::gpu;

    std::vector<MdRecord> records;
    json out = run_header(backend, "md");
    if (args.system != "chains")
    {
        LJCloudOptions co;
        co.num_particles = args.particles ? args.particles : (gpu ? 65536 : 4096);
        co.seed = args.seed;
        auto const sys = make_lj_cloud(co);
        auto r = run_md_study(sys, "cloud", {ExclusionMode::none}, opts);
        records.insert(records.end(), r.begin(), r.end());
    }
    if (args.system != "cloud")
    {
        LJChainOptions ch;
        ch.num_chains = args.chains ? args.chains : (gpu ? 512 : 128);
        ch.chain_length = args.chain_length;
        ch.seed = args.seed + 1;
        auto const sys = make_lj_chains(ch);
        auto r = run_md_study(sys, "chains",
                              {ExclusionMode::on_the_fly, ExclusionMode::subtract_after}, opts);
        records.insert(records.end(), r.begin(), r.end());
        // GROMACS details on the same bonded periodic system (double, host).
        auto const shifts = make_molecule_shifts(sys);
        auto const vir = compare_virials(sys, shifts);
        double diff = 0, scale = 0;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
            {
                diff = std::max(diff, std::abs(vir.single_sum[a][b] - vir.pair_sum[a][b]));
                scale = std::max(scale, std::abs(vir.pair_sum[a][b]));
            }
        std::cout << "chains: " << sys.size() << " atoms in a periodic box of edge "
                  << sys.box_length << " sigma; virial max |single - pairwise| = " << sci(diff)
                  << " (max |entry| " << sci(scale) << ", rounding bound "
                  << sci(vir.rounding_bound) << ", " << vir.shifted_pairs
                  << " ordered pairs across the boundary)\n";
        out["virial"] = {{"max_abs_difference", diff},
                         {"max_abs_entry", scale},
                         {"rounding_bound", vir.rounding_bound},
                         {"shifted_pairs", vir.shifted_pairs}};
    }

    std::cout << std::left << std::setw(7) << "system" << std::setw(15) << "exclusions"
              << std::setw(3) << "m" << std::setw(48) << "method" << std::right << std::setw(11)
              << "force err" << std::setw(11) << "accum err" << std::setw(11) << "offset"
              << std::setw(11) << "max rel" << std::setw(12) << "inter/s" << '\n';
    out["records"] = json::array();
    for (auto const& r : records)
    {
        std::cout << std::left << std::setw(7) << r.system << std::setw(15)
                  << to_cstring(r.exclusions) << std::setw(3) << to_cstring(r.method)
                  << std::setw(48) << describe(r.method) << std::right << std::setw(11)
                  << sci(r.metrics.avg_error) << std::setw(11) << sci(r.metrics.accum_error)
                  << std::setw(11) << sci(r.metrics.offset) << std::setw(11)
                  << sci(r.metrics.max_rel_error) << std::setw(12) << sci(r.interactions_per_s)
                  << '\n';
        out["records"].push_back({{"system", r.system},
                                  {"exclusions", to_cstring(r.exclusions)},
                                  {"method", to_cstring(r.method)},
                                  {"description", describe(r.method)},
                                  {"backend", to_cstring(r.backend)},
                                  {"particles", r.particles},
                                  {"time_s", r.seconds},
                                  {"interactions_per_s", r.interactions_per_s},
                                  {"avg_force_error", r.metrics.avg_error},
                                  {"accumulation_error", r.metrics.accum_error},
                                  {"force_offset", r.metrics.offset},
                                  {"max_rel_error", r.metrics.max_rel_error}});
    }
    write_json(args.json_path, out);
}

//---------------------------------------------------------------------------//
struct RsqrtArgs
{
    std::string backend{"auto"};
    std::uint32_t stride{1};
    unsigned threads{0};
    std::string json_path;
};

void run_rsqrt(RsqrtArgs const& args)
{
    Backend const backend = resolve_backend(args.backend);
    InvSqrtScanResult const r =
        backend == Backend::gpu
            ? scan_inv_sqrt_device(first_normal_float_bits, last_normal_float_bits, args.stride)
            : scan_inv_sqrt_host(first_normal_float_bits, last_normal_float_bits, args.stride,
                                 args.threads);
    std::cout << "inverse square root over " << r.inputs
              << " positive normal float32 inputs (stride " << args.stride << ") on "
              << to_cstring(backend) << " in " << std::fixed << std::setprecision(2) << r.seconds
              << " s\n"
              << "  table + 1 Newton-Raphson : max rel error " << sci(r.max_table, 3) << " (claim "
              << sci(inv_sqrt_table_claimed_rel_error, 1) << ": "
              << (r.max_table <= inv_sqrt_table_claimed_rel_error ? "met" : "NOT met") << ")\n"
              << "  table seed only           : max rel error " << sci(r.max_seed, 3) << '\n'
              << "  1.0f / sqrtf              : max rel error " << sci(r.max_division, 3) << '\n';
    if (r.max_rsqrtf >= 0)
        std::cout << "  rsqrtf (device)           : max rel error " << sci(r.max_rsqrtf, 3) << '\n';
    if (backend == Backend::cpu)
        std::cout << "  worst table input: " << std::hexfloat << r.worst_table_input
                  << std::defaultfloat << '\n';
    json out = run_header(backend, "rsqrt");
    out["inputs"] = r.inputs;
    out["stride"] = args.stride;
    out["time_s"] = r.seconds;
    out["claimed_rel_error"] = inv_sqrt_table_claimed_rel_error;
    out["max_rel_error"] = {{"table_newton", r.max_table},
                            {"table_seed", r.max_seed},
                            {"one_over_sqrtf", r.max_division}};
    if (r.max_rsqrtf >= 0)
        out["max_rel_error"]["rsqrtf"] = r.max_rsqrtf;
    write_json(args.json_path, out);
}

//---------------------------------------------------------------------------//
struct GemmArgs
{
    std::string backend{"auto"};
    std::vector<size_type> sizes; // empty: 1024..16384 on the GPU, 256 and 512 on the CPU
    std::string matrix{"salted"};
    double large_fraction{0.01};
    double salt{1e4};
    double decades{12};
    std::vector<double> deltas; // empty: per matrix kind
    double memory_budget_mib{256};
    unsigned threads{0};
    int repeats{5};
    std::uint64_t seed{2010};
    std::string json_path;
};

void run_gemm(GemmArgs const& args)
{
    Backend const backend = resolve_backend(args.backend);
    GemmStudyOptions o;
    o.backend = backend;
    o.matrix.kind = to_matrix_kind(args.matrix);
    o.matrix.salt_fraction = args.large_fraction;
    o.matrix.salt_magnitude = args.salt;
    o.matrix.decades = args.decades;
    o.matrix.seed = args.seed;
    // Default cutoffs: on the GPU (n up to 16384) only splits that leave the
    // large parts sparse (<~30% of the elements), since those run on the host.
    bool const gpu = backend == Backend::gpu;
    bool const salted = o.matrix.kind == MatrixKind::salted;
    if (!args.deltas.empty())
        o.deltas = args.deltas;
    else if (salted)
        o.deltas = gpu ? std::vector<double>{2 * args.salt, 100, 0.99, 0.9}
                       : std::vector<double>{2 * args.salt, 100, 0.99, 0.9, 0.5, 0.1, 0.01};
    else
        o.deltas = gpu ? std::vector<double>{1, 1e-1, 1e-2}
                       : std::vector<double>{1, 1e-1, 1e-2, 1e-4, 1e-6, 1e-8};
    MCDOSE_VALIDATE(args.memory_budget_mib > 0, << "--memory-budget-mib must be positive");
    o.memory_budget_bytes = args.memory_budget_mib * 1024 * 1024;
    o.threads = args.threads;
    o.repeats = args.repeats;
    std::vector<size_type> sizes = args.sizes;
    if (sizes.empty())
        sizes = gpu ? std::vector<size_type>{1024, 2048, 4096, 8192, 16384}
                    : std::vector<size_type>{256, 512};

    json out = run_header(backend, "gemm");
    out["matrix"] = args.matrix;
    out["records"] = json::array();
    std::cout << std::right << std::setw(6) << "n" << std::setw(8) << "method" << std::setw(10)
              << "delta" << std::setw(10) << "large %" << std::setw(7) << "tiles" << std::setw(13)
              << "max abs err" << std::setw(11) << "max |C|" << std::setw(11) << "time s"
              << std::setw(11) << "vs DGEMM" << '\n';
    for (size_type n : sizes)
    {
        o.n = n;
        for (auto const& r : run_gemm_study(o))
        {
            bool const mg = r.method == GemmMethod::mgemm;
            std::cout << std::setw(6) << r.n << std::setw(8) << to_cstring(r.method)
                      << std::setw(10) << (mg ? sci(r.delta, 1) : std::string("-")) << std::setw(10)
                      << (mg ? sci(100 * r.large_fraction, 1) : std::string("-")) << std::setw(7)
                      << (mg ? std::to_string(r.tiles) : std::string("-")) << std::setw(13)
                      << sci(r.max_abs_error) << std::setw(11) << sci(r.max_abs_reference)
                      << std::setw(11) << sci(r.seconds) << std::setw(11) << sci(r.speedup_vs_dgemm)
                      << '\n';
            json rec{{"n", r.n},
                     {"method", to_cstring(r.method)},
                     {"backend", to_cstring(r.backend)},
                     {"matrix", to_cstring(r.matrix)},
                     {"max_abs_error", r.max_abs_error},
                     {"max_abs_reference", r.max_abs_reference},
                     {"time_s", r.seconds},
                     {"speedup_vs_dgemm", r.speedup_vs_dgemm}};
            if (mg)
            {
                rec["delta"] = r.delta;
                rec["large_fraction"] = r.large_fraction;
                rec["tiles"] = r.tiles;
            }
            out["records"].push_back(rec);
        }
    }
    write_json(args.json_path, out);
}

void setup(CLI::App& sub, GlobalOptions const&)
{
    sub.require_subcommand(1);

    auto md = std::make_shared<MdArgs>();
    auto* m = sub.add_subcommand(
        "md",
        "MD force accumulation (Narumi et al. 2008): methods A-H on an LJ cloud and on "
        "bonded chains (exclusions on the fly vs subtracted afterwards), plus the virial check");
    m->add_option("--backend", md->backend, "auto, cpu or gpu")->capture_default_str();
    m->add_option("--system", md->system, "cloud, chains or both")->capture_default_str();
    m->add_option("--particles", md->particles, "cloud size (default 65536 GPU, 4096 CPU)");
    m->add_option("--chains", md->chains, "number of chains (default 512 GPU, 128 CPU)");
    m->add_option("--chain-length", md->chain_length, "atoms per chain")->capture_default_str();
    m->add_option("--methods", md->methods, "letters of the methods to run")->capture_default_str();
    m->add_option("--threads", md->threads, "CPU threads (0: all)");
    m->add_option("--seed", md->seed, "system seed")->capture_default_str();
    m->add_option("--json", md->json_path, "write the records to this JSON file");
    m->callback([md] { run_md(*md); });

    auto rs = std::make_shared<RsqrtArgs>();
    auto* r = sub.add_subcommand(
        "rsqrt", "Table-driven 1/sqrt (GROMACS style) vs 1/sqrtf and rsqrtf over every positive "
                 "normal float32 (2^31 - 2^24 inputs; --stride to sample)");
    r->add_option("--backend", rs->backend, "auto, cpu or gpu")->capture_default_str();
    r->add_option("--stride", rs->stride, "scan every stride-th bit pattern")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    r->add_option("--threads", rs->threads, "CPU threads (0: all)");
    r->add_option("--json", rs->json_path, "write the result to this JSON file");
    r->callback([rs] { run_rsqrt(*rs); });

    auto gm = std::make_shared<GemmArgs>();
    auto* g = sub.add_subcommand(
        "gemm", "Mixed-precision GEMM (Olivares-Amaya et al. 2010) vs DGEMM, SGEMM, TF32 and "
                "compensated 3xTF32");
    g->add_option("--backend", gm->backend, "auto, cpu or gpu")->capture_default_str();
    g->add_option("--sizes", gm->sizes, "matrix sizes n (n x n), e.g. 1024,4096")->delimiter(',');
    g->add_option("--matrix", gm->matrix, "salted or decaying")->capture_default_str();
    g->add_option("--large-fraction", gm->large_fraction, "salted: fraction of large elements")
        ->capture_default_str();
    g->add_option("--salt", gm->salt, "salted: largest element magnitude")->capture_default_str();
    g->add_option("--decades", gm->decades, "decaying: orders of magnitude diagonal to corner")
        ->capture_default_str();
    g->add_option("--deltas", gm->deltas, "MGEMM cutoffs, e.g. 100,1,0.1")->delimiter(',');
    g->add_option("--memory-budget-mib", gm->memory_budget_mib,
                  "MGEMM: memory for one SGEMM tile (A, B and C tiles in float)")
        ->capture_default_str();
    g->add_option("--repeats", gm->repeats, "GPU: timed calls per baseline (median)")
        ->capture_default_str();
    g->add_option("--threads", gm->threads, "CPU threads (0: all)");
    g->add_option("--seed", gm->seed, "matrix seed")->capture_default_str();
    g->add_option("--json", gm->json_path, "write the records to this JSON file");
    g->callback([gm] { run_gemm(*gm); });
}

bool const registered = register_command(
    {"crosscheck",
     "Cross-check studies on the compensated-sum primitives: MD force accumulation (md), "
     "table 1/sqrt (rsqrt), mixed-precision GEMM (gemm)",
     setup, /*developer=*/true});
} // namespace
} // namespace mcdose::app
