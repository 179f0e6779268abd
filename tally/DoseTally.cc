//! \file tally/DoseTally.cc
#include "tally/DoseTally.hh"

#include <cmath>
#include <cstring>
#include <limits>

#include "tally/accum/DoubleWord.hh"
#include "tally/accum/FixedPoint.hh"

namespace mcdose
{
HistoryRange batch_history_range(std::uint64_t histories, std::uint64_t batches, std::uint64_t b)
{
    MCDOSE_VALIDATE(batches > 0 && b < batches,
                    << "batch index " << b << " out of range for " << batches << " batches");
    // First (histories % batches) batches get one extra history.
    std::uint64_t const base = histories / batches;
    std::uint64_t const extra = histories % batches;
    std::uint64_t const begin = b * base + (b < extra ? b : extra);
    return {begin, begin + base + (b < extra ? 1 : 0)};
}

HistoryRange split_history_range(HistoryRange range, std::uint64_t parts, std::uint64_t i)
{
    MCDOSE_VALIDATE(range.end >= range.begin,
                    << "history range [" << range.begin << ", " << range.end << ") is reversed");
    HistoryRange const piece = batch_history_range(range.end - range.begin, parts, i);
    return {range.begin + piece.begin, range.begin + piece.end};
}

std::vector<double> decode_tally_words(TallyMethod m, int fx_quantum_exp2,
                                       std::vector<std::uint64_t> const& words, size_type voxels)
{
    double const quantum = accum::exp2_int(fx_quantum_exp2);
    std::vector<double> energy(voxels);
    dispatch_tally_method(
        m,
        [&](auto policy)
        {
            using P = decltype(policy);
            using word_type = typename P::word_type;
            MCDOSE_VALIDATE(words.size() * sizeof(std::uint64_t) >= voxels * sizeof(word_type),
                            << "tally words too short: " << words.size() << " words for " << voxels
                            << " voxels of method '" << P::name << "'");
            for (size_type i = 0; i < voxels; ++i)
            {
                word_type w;
                std::memcpy(&w, reinterpret_cast<unsigned char const*>(words.data()) + i * sizeof w,
                            sizeof w);
                energy[i] = P::decode(w, quantum);
            }
        });
    return energy;
}

namespace
{
size_type word_bytes(TallyMethod m)
{
    return dispatch_tally_method(
        m, [](auto policy) -> size_type { return sizeof(typename decltype(policy)::word_type); });
}
} // namespace

DoseTally::DoseTally(DoseTallyInput const& input)
    : method_(input.method), backend_(input.backend), voxels_(input.voxels)
{
    MCDOSE_VALIDATE(input.voxels > 0, << "dose tally 'voxels' must be positive (got 0)");
    MCDOSE_VALIDATE(std::isfinite(input.max_total_energy_MeV) && input.max_total_energy_MeV > 0,
                    << "dose tally 'max_total_energy_MeV' must be a positive upper bound on the "
                       "run's total deposited energy (got "
                    << input.max_total_energy_MeV << "); use histories x source energy");
    MCDOSE_VALIDATE(backend_ == Backend::cpu || backend_ == Backend::gpu,
                    << "dose tally backend must be 'cpu' or 'gpu' (resolve 'auto' first)");
    fx_quantum_exp2_ = accum::fixed_point_quantum_exp2(input.max_total_energy_MeV);
    words64_ = (voxels_ * word_bytes(method_) + 7) / 8;
    if (backend_ == Backend::gpu)
        device_words_ = DeviceBuffer<std::uint64_t>(words64_);
    else
        host_words_.resize(words64_);
    this->clear_batch();
    total_hi_.assign(voxels_, 0.0);
    total_lo_.assign(voxels_, 0.0);
    sum_sq_.assign(voxels_, 0.0);
}

double DoseTally::fx_quantum_MeV() const
{
    return accum::exp2_int(fx_quantum_exp2_);
}

double DoseTally::fx_scale_per_MeV() const
{
    return accum::exp2_int(-fx_quantum_exp2_);
}

std::uint64_t* DoseTally::batch_data()
{
    return backend_ == Backend::gpu ? device_words_.data() : host_words_.data();
}

void DoseTally::clear_batch()
{
    if (backend_ == Backend::gpu)
        device_words_.zero();
    else
        std::fill(host_words_.begin(), host_words_.end(), 0);
}

std::vector<std::uint64_t> DoseTally::batch_words() const
{
    return backend_ == Backend::gpu ? device_words_.to_host() : host_words_;
}

std::vector<double> DoseTally::batch_energy_MeV() const
{
    return decode_tally_words(method_, fx_quantum_exp2_, this->batch_words(), voxels_);
}

void DoseTally::end_batch(std::uint64_t histories)
{
    this->fold_batch(this->batch_energy_MeV(), histories);
    this->clear_batch();
}

void DoseTally::fold_batch(std::vector<double> const& batch, std::uint64_t histories)
{
    MCDOSE_VALIDATE(histories > 0, << "a tally batch must contain at least one history");
    MCDOSE_VALIDATE(batch.size() == voxels_, << "a folded batch has " << batch.size()
                                             << " voxels but the tally has " << voxels_);
    for (size_type i = 0; i < voxels_; ++i)
    {
        // Double-double running total: deterministic for a fixed batch
        // sequence, and no loss over many batches (accum::DoubleWordSum).
        accum::DoubleWordSum<double> total(total_hi_[i], total_lo_[i]);
        total.add(batch[i]);
        total_hi_[i] = total.hi();
        total_lo_[i] = total.lo();
        sum_sq_[i] += batch[i] * batch[i];
    }
    min_batch_histories_ = batches_ == 0 ? histories : std::min(min_batch_histories_, histories);
    max_batch_histories_ = std::max(max_batch_histories_, histories);
    ++batches_;
    histories_ += histories;
}

DoseTallyTotals DoseTally::totals() const
{
    return {total_hi_,           total_lo_, sum_sq_, batches_, histories_, min_batch_histories_,
            max_batch_histories_};
}

void DoseTally::restore(DoseTallyTotals t)
{
    MCDOSE_VALIDATE(
        t.total_hi.size() == voxels_ && t.total_lo.size() == voxels_ && t.sum_sq.size() == voxels_,
        << "restored tally totals have " << t.total_hi.size() << " voxels but the tally has "
        << voxels_);
    total_hi_ = std::move(t.total_hi);
    total_lo_ = std::move(t.total_lo);
    sum_sq_ = std::move(t.sum_sq);
    batches_ = t.batches;
    histories_ = t.histories;
    min_batch_histories_ = t.min_batch_histories;
    max_batch_histories_ = t.max_batch_histories;
}

DoseResult DoseTally::result() const
{
    // The batch estimator assumes equal batches; batch_history_range gives
    // sizes within one history of each other, so allow exactly that.
    MCDOSE_VALIDATE(max_batch_histories_ <= min_batch_histories_ + 1,
                    << "tally batches must have equal history counts (got " << min_batch_histories_
                    << " to " << max_batch_histories_
                    << "); split the run with batch_history_range()");
    DoseResult r;
    r.batches = batches_;
    r.histories = histories_;
    r.energy_MeV.resize(voxels_);
    r.energy_sigma_MeV.resize(voxels_);
    double const nb = double(batches_);
    for (size_type i = 0; i < voxels_; ++i)
    {
        double const total = total_hi_[i] + total_lo_[i];
        r.energy_MeV[i] = total;
        if (batches_ < 2)
        {
            r.energy_sigma_MeV[i] = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        // Batch method: B batch totals E_b with mean E/B; the total E = sum
        // E_b has variance B * var(E_b), estimated by
        //   s^2(E) = B/(B-1) * (sum E_b^2 - E^2/B).
        double const spread = std::max(0.0, sum_sq_[i] - total * total / nb);
        r.energy_sigma_MeV[i] = std::sqrt(nb / (nb - 1) * spread);
    }
    return r;
}
} // namespace mcdose
