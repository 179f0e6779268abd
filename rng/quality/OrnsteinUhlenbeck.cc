//! \file rng/quality/OrnsteinUhlenbeck.cc
#include "rng/quality/OrnsteinUhlenbeck.hh"

#include <algorithm>
#include <chrono>

#include "core/Assert.hh"
#include "rng/quality/OrnsteinUhlenbeckDevice.hh"

namespace mcdose
{
OuSetup make_ou_setup(OuInput const& in)
{
    MCDOSE_VALIDATE(
        in.spring_pN_nm > 0 && in.temperature_K > 0 && in.diffusion_nm2_ns > 0 && in.dt_ns > 0,
        << "OU: spring constant, temperature, diffusion coefficient and time step "
           "must all be positive");
    MCDOSE_VALIDATE(in.oscillators >= 2, << "OU: need at least 2 oscillators (got "
                                         << in.oscillators << ") for a standard error");
    MCDOSE_VALIDATE(in.checkpoints >= 1 && in.steps % in.checkpoints == 0 && in.steps > 0,
                    << "OU: 'steps' (" << in.steps << ") must be a positive multiple of "
                    << "'checkpoints' (" << in.checkpoints << ")");
    OuSetup s;
    // kB T in pN nm: 1 pN nm = 1e-21 J.
    s.kT_pN_nm = constants::boltzmann_J_K * in.temperature_K * 1e21;
    double const xi = s.kT_pN_nm / in.diffusion_nm2_ns; // pN ns / nm
    s.tau_ns = xi / in.spring_pN_nm;
    MCDOSE_VALIDATE(in.dt_ns < 0.01 * s.tau_ns, << "OU: time step " << in.dt_ns
                                                << " ns is not small against tau = " << s.tau_ns
                                                << " ns; use dt < tau/100");
    s.dt_ns = in.dt_ns;
    s.decay = 1 - in.dt_ns / s.tau_ns;
    s.noise_nm = std::sqrt(2 * s.kT_pN_nm * in.dt_ns / xi);
    s.x0_nm = in.x0_nm;
    s.equilibrium_sd_nm = std::sqrt(s.kT_pN_nm / in.spring_pN_nm);
    s.steps = static_cast<std::uint32_t>(in.steps);
    s.checkpoints = static_cast<std::uint32_t>(in.checkpoints);
    s.steps_per_checkpoint = static_cast<std::uint32_t>(in.steps / in.checkpoints);
    return s;
}

OuResult evaluate_ou(OuSetup const& s, size_type n, std::vector<double> const& a,
                     std::vector<double> const& c, double z_limit)
{
    OuResult r;
    r.setup = s;
    r.oscillators = n;
    r.z_limit = z_limit;
    r.max_abs_z = 0;
    auto mean_se = [n](double const* v)
    {
        // Two-pass mean and standard error of the mean.
        double sum = 0;
        for (size_type j = 0; j < n; ++j)
            sum += v[j];
        double const mean = sum / n;
        double ss = 0;
        for (size_type j = 0; j < n; ++j)
            ss += (v[j] - mean) * (v[j] - mean);
        return std::make_pair(mean, std::sqrt(ss / (n - 1) / n));
    };
    for (std::uint32_t m = 0; m < s.checkpoints; ++m)
    {
        OuCheckpoint row;
        row.t_ns = s.dt_ns * double(m + 1) * s.steps_per_checkpoint;
        double const decay = std::exp(-row.t_ns / s.tau_ns);
        auto const [ma, sa] = mean_se(a.data() + m * n);
        auto const [mc, sc] = mean_se(c.data() + m * n);
        row.mean_nm = ma;
        row.mean_se_nm = sa;
        row.mean_expected_nm = s.x0_nm * decay;
        row.mean_z = (ma - row.mean_expected_nm) / sa;
        row.corr_nm2 = mc;
        row.corr_se_nm2 = sc;
        row.corr_expected_nm2 = s.equilibrium_sd_nm * s.equilibrium_sd_nm * decay;
        row.corr_z = (mc - row.corr_expected_nm2) / sc;
        r.max_abs_z = std::max({r.max_abs_z, std::abs(row.mean_z), std::abs(row.corr_z)});
        r.rows.push_back(row);
    }
    r.passed = r.max_abs_z < z_limit;
    return r;
}

OuResult run_ou(RngKind kind, RngOptions const& options, OuInput const& input, MemSpace where)
{
    auto const s = make_ou_setup(input);
    size_type const n = input.oscillators;
    std::vector<double> a(n * s.checkpoints), c(n * s.checkpoints);
    auto const start = std::chrono::steady_clock::now();
    visit_rng(kind,
              [&](auto tag)
              {
                  using Engine = typename decltype(tag)::type;
                  auto store = make_rng_store<Engine>(options, n, where);
                  // Steps per batch: as many as the generator's round allows (one extra
                  // pair for the equilibrium start in the first batch).
                  size_type const pairs_per_batch = store.words_per_batch() / ou_words_per_step;
                  MCDOSE_VALIDATE(pairs_per_batch >= 2,
                                  << "OU: the " << Engine::name << " store gives only "
                                  << store.words_per_batch()
                                  << " words per thread per round; a step needs "
                                  << 2 * ou_words_per_step << "; use fewer oscillators");
                  size_type const per_batch = std::min<size_type>(s.steps, pairs_per_batch - 1);
                  OuWork work(n, s.checkpoints, where);
                  for (std::uint32_t begin = 0; begin < s.steps;)
                  {
                      auto const end = static_cast<std::uint32_t>(
                          std::min<size_type>(s.steps, begin + per_batch));
                      auto view = store.begin_batch();
                      if (where == MemSpace::device)
                      {
                          ou_advance_device<Engine>(s, view, n, begin, end, work.view());
                      }
                      else
                      {
                          for (size_type j = 0; j < n; ++j)
                          {
                              Engine rng(view, j);
                              ou_advance(s, rng, j, n, begin, end, work.view());
                          }
                      }
                      store.end_batch();
                      begin = end;
                  }
                  work.copy_checkpoints(a, c);
              });
    auto const stop = std::chrono::steady_clock::now();
    auto r = evaluate_ou(s, n, a, c);
    r.generator = to_cstring(kind);
    r.seconds = std::chrono::duration<double>(stop - start).count();
    return r;
}
} // namespace mcdose
