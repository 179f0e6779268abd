//! \file dose/BatchFigures.cc
#include "dose/BatchFigures.hh"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "core/Assert.hh"
#include "dose/Dvh.hh"

namespace mcdose
{
namespace
{
//! The figures the bootstrap gives, in order (not D_min: the bootstrap of an extreme
//! value is unsound; it keeps the independent-voxel sigma).
constexpr std::size_t figure_count = 6;

std::array<double, figure_count> values_of(DvhFigures const& f)
{
    return {f.d_mean.value, f.d_003cc.value, f.d98.value, f.d95.value, f.d50.value, f.d2.value};
}

std::array<FigureWithSigma*, figure_count> figures_of(DvhFigures& f)
{
    return {&f.d_mean, &f.d_003cc, &f.d98, &f.d95, &f.d50, &f.d2};
}
} // namespace

StructureBatchFigures::StructureBatchFigures(DoseGridData materials,
                                             std::vector<StructureMask const*> structures,
                                             size_type voxel_limit)
    : materials_(std::move(materials)), structures_(std::move(structures))
{
    size_type end = 0;
    first_ = materials_.geometry.num_voxels();
    for (StructureMask const* s : structures_)
    {
        bool const keep = s->size() > 0 && s->size() <= voxel_limit;
        kept_.push_back(keep);
        if (!keep)
            continue;
        first_ = std::min(first_, s->voxel(0));
        end = std::max(end, s->voxel(s->size() - 1) + 1);
    }
    count_ = end > first_ ? end - first_ : 0;
    if (count_ == 0)
        first_ = 0;
}

std::vector<double> StructureBatchFigures::operator()(BatchEnergyView const& batch) const
{
    std::vector<double> digest{double(batch.histories())};
    double const voxel_volume = materials_.geometry.voxel_volume_cm3();
    for (std::size_t k = 0; k < structures_.size(); ++k)
    {
        if (!kept_[k])
            continue;
        StructureMask const& s = *structures_[k];
        for (size_type i = 0; i < s.size(); ++i)
        {
            // The batch's own dose [Gy] (voxel_dose_gy_per_particle's rule).
            size_type const v = s.voxel(i);
            double const e = batch.energy_MeV(v);
            double const mass_g = double(materials_.density_g_cm3[v]) * voxel_volume;
            double const factor = materials_.material_dose_factor.empty()
                                      ? 1.0
                                      : materials_.material_dose_factor[materials_.material[v]];
            digest.push_back(e != 0 && mass_g > 0 ? e / mass_g * constants::gray_per_MeV_g * factor
                                                  : 0.0);
        }
    }
    return digest;
}

void StructureBatchFigures::set_sigmas(std::vector<DvhFigures>& dvhs,
                                       std::vector<std::vector<double>> const& digests,
                                       std::size_t offset, double dose_scale) const
{
    MCDOSE_EXPECT(dvhs.size() == structures_.size());
    if (digests.size() < 2 || count_ == 0)
        return;
    std::size_t width = 1;
    for (std::size_t k = 0; k < structures_.size(); ++k)
        width += kept_[k] ? structures_[k]->size() : 0;
    std::vector<std::uint64_t> histories;
    for (auto const& d : digests)
    {
        if (d.size() != offset + width)
            return; // batches resumed from a checkpoint that kept no doses: the model's sigmas
        histories.push_back(std::uint64_t(d[offset]));
    }
    std::size_t at = offset + 1;
    for (std::size_t k = 0; k < structures_.size(); ++k)
    {
        if (!kept_[k])
            continue;
        std::size_t const n = structures_[k]->size();
        std::vector<std::vector<double>> doses;
        for (auto const& d : digests)
            doses.emplace_back(d.begin() + std::ptrdiff_t(at), d.begin() + std::ptrdiff_t(at + n));
        std::vector<double> const sigma = this->bootstrap(*structures_[k], doses, histories);
        auto const figures = figures_of(dvhs[k]);
        for (std::size_t f = 0; f < figure_count; ++f)
            figures[f]->sigma = dose_scale * sigma[f];
        at += n;
    }
}

/*!
 * Resamples of the B batches with replacement (fixed seed), each the figures of the
 * resampled dose per source particle (dose sums over histories sums); sigma^2 = B / (B - 1)
 * x their variance (the factor makes it unbiased for the mean dose).
 */
std::vector<double>
StructureBatchFigures::bootstrap(StructureMask const& s,
                                 std::vector<std::vector<double>> const& doses,
                                 std::vector<std::uint64_t> const& histories) const
{
    size_type const count = s.size();
    std::size_t const batches = doses.size();
    std::vector<double> volume(count);
    for (size_type i = 0; i < count; ++i)
        volume[i] = double(s.fraction_at(i)) * materials_.geometry.voxel_volume_cm3();
    std::mt19937_64 engine(20261129);
    std::uniform_int_distribution<std::size_t> pick(0, batches - 1);
    std::vector<std::array<double, figure_count>> theta;
    std::array<double, figure_count> mean{};
    for (int r = 0; r < batch_bootstrap_replicas; ++r)
    {
        std::vector<double> dose(count, 0.0);
        double n = 0;
        for (std::size_t j = 0; j < batches; ++j)
        {
            std::size_t const b = pick(engine);
            n += double(histories[b]);
            for (size_type i = 0; i < count; ++i)
                dose[i] += doses[b][i];
        }
        for (double& d : dose)
            d = n > 0 ? d / n : 0.0;
        theta.push_back(values_of(dvh_figures(dose, volume, {}, 1)));
        for (std::size_t f = 0; f < figure_count; ++f)
            mean[f] += theta.back()[f] / batch_bootstrap_replicas;
    }
    std::vector<double> sigma(figure_count, 0.0);
    for (auto const& t : theta)
        for (std::size_t f = 0; f < figure_count; ++f)
            sigma[f] += (t[f] - mean[f]) * (t[f] - mean[f]);
    for (double& x : sigma)
        x = std::sqrt(x / (batch_bootstrap_replicas - 1) * double(batches) / double(batches - 1));
    return sigma;
}

void add_common_relative_sigma(std::vector<DvhFigures>& dvhs, double relative)
{
    if (relative <= 0)
        return;
    for (DvhFigures& f : dvhs)
    {
        f.d_min.sigma = std::hypot(f.d_min.sigma, relative * f.d_min.value);
        for (FigureWithSigma* x : figures_of(f))
            x->sigma = std::hypot(x->sigma, relative * x->value);
    }
}
} // namespace mcdose
