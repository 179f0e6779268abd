//! \file tally/DoseTally.cc
#include "tally/DoseTally.hh"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "core/Device.hh"
#include "core/DeviceMemory.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "tally/EnergyMask.hh"
#include "tally/accum/FixedPoint.hh"
#include "tally/detail/BatchFold.hh"

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

//! A batch's history squares (FX units) and their running total, or none.
struct HistorySquares
{
    std::uint64_t* batch{nullptr};
    std::uint64_t* total{nullptr};
};

//! Strips per block a thread of the host fold takes in turn (2^15 voxels).
constexpr size_type fold_block_strips = 1024;

/*!
 * Fold a host batch grid into the totals on `threads` threads and zero it
 * (and the batch's history squares, if kept, into theirs);
 * returns the batch's slab sums [MeV] if `slabs` is enabled. With `touched`
 * only the flagged strips of 2^tally_strip_shift voxels are visited (and
 * their flags cleared), and in them only the voxels with a deposit: the others
 * hold zeros, whose fold changes no bit of the totals. FX slab sums add the raw
 * words as integers (exact, so the same for any thread count); the other
 * methods add doubles, each piece's blocks in order, the pieces in order.
 */
template <class Policy>
std::vector<double> fold_on_host(std::uint64_t* raw_words, size_type voxels, double quantum,
                                 detail::TotalsArrays totals, SlabSpec const& slabs,
                                 std::uint8_t* touched, HistorySquares squares, double sq_weight,
                                 int threads)
{
    using word_type = typename Policy::word_type;
    constexpr bool fixed_point = std::is_same<Policy, FxPolicy>::value;
    constexpr size_type strip = size_type(1) << tally_strip_shift;
    auto* words = reinterpret_cast<word_type*>(raw_words);
    size_type const num_slabs = slabs.count();
    size_type const strips = (voxels + strip - 1) / strip;
    size_type const pieces = parallel_pieces(strips, threads);
    std::vector<std::uint64_t> slab_units(fixed_point ? pieces * num_slabs : 0, 0);
    std::vector<double> slab_energy(fixed_point ? 0 : pieces * num_slabs, 0.0);
    auto fold_strip = [&](size_type s, size_type piece)
    {
        for (size_type v = s * strip, end = std::min(voxels, v + strip); v < end; ++v)
        {
            word_type const w = words[v];
            if (w == 0 && !(squares.batch && squares.batch[v] != 0))
                continue; // adds zeros: no bit of the totals (or slab sums) would change
            words[v] = 0;
            double const e = Policy::decode(w, quantum);
            detail::fold_voxel(e, totals, v, sq_weight);
            if (squares.batch)
            {
                squares.total[v] += squares.batch[v]; // integers: exact in any order
                squares.batch[v] = 0;
            }
            if (num_slabs == 0)
                continue;
            size_type const k = piece * num_slabs + slabs.slab_of(v);
            if constexpr (fixed_point)
                slab_units[k] += w; // modulo 2^64: exact int64 sum
            else
                slab_energy[k] += e;
        }
    };
    // Piece t folds the blocks t, t + pieces, ...: a dose confined to part of the grid
    // (a beam's first centimetres) is shared by all threads.
    size_type const blocks = (strips + fold_block_strips - 1) / fold_block_strips;
    parallel_for_pieces(
        pieces, threads,
        [&](size_type piece, size_type, size_type)
        {
            for (size_type b = piece; b < blocks; b += pieces)
            {
                for (size_type s = b * fold_block_strips,
                               s_end = std::min(strips, s + fold_block_strips);
                     s < s_end; ++s)
                {
                    if (touched && touched[s] == 0)
                        continue;
                    fold_strip(s, piece);
                    if (touched)
                        touched[s] = 0;
                }
            }
        },
        1);
    std::vector<double> result(num_slabs, 0.0);
    for (size_type s = 0; s < num_slabs; ++s)
    {
        if constexpr (fixed_point)
        {
            word_type units = 0;
            for (size_type p = 0; p < pieces; ++p)
                units += slab_units[p * num_slabs + s];
            result[s] = Policy::decode(units, quantum);
        }
        else
        {
            for (size_type p = 0; p < pieces; ++p)
                result[s] += slab_energy[p * num_slabs + s];
        }
    }
    return result;
}

std::vector<std::uint64_t> bits_of(std::vector<double> const& values)
{
    std::vector<std::uint64_t> words(values.size());
    std::memcpy(words.data(), values.data(), values.size() * sizeof(double));
    return words;
}
} // namespace

DoseTally::DoseTally(DoseTallyInput const& input, DoseFoldOptions const& fold)
    : method_(input.method), backend_(input.backend), voxels_(input.voxels), slots_(input.slots),
      host_threads_(fold.host_threads), slabs_(fold.slabs)
{
    MCDOSE_VALIDATE(input.voxels > 0, << "dose tally 'voxels' must be positive (got 0)");
    MCDOSE_VALIDATE(input.slots > 0, << "dose tally 'slots' must be positive (got 0)");
    history_moments_ = input.history_moments;
    // Benchmarking the touched-strip flags: no flags, every voxel of every batch folded
    // (docs/tally.md). The history moments always keep them.
    char const* dense = std::getenv("MCDOSE_DENSE_FOLD");
    dense_fold_ = !history_moments_ && dense && *dense && std::string(dense) != "0";
    MCDOSE_VALIDATE(!history_moments_ || (backend_ == Backend::cpu && slots_ == 1),
                    << "history-by-history moments are kept on the CPU backend, one batch per "
                       "launch");
    MCDOSE_VALIDATE(std::isfinite(input.max_total_energy_MeV) && input.max_total_energy_MeV > 0,
                    << "dose tally 'max_total_energy_MeV' must be a positive upper bound on the "
                       "run's total deposited energy (got "
                    << input.max_total_energy_MeV << "); use histories x source energy");
    MCDOSE_VALIDATE(backend_ == Backend::cpu || backend_ == Backend::gpu,
                    << "dose tally backend must be 'cpu' or 'gpu' (resolve 'auto' first)");
    MCDOSE_VALIDATE(
        !slabs_.enabled() ||
            (slabs_.axis < 3 && slabs_.dims[0] * slabs_.dims[1] * slabs_.dims[2] == voxels_),
        << "slab sums need an axis 0-2 and grid dimensions whose product is the " << voxels_
        << " voxels of the tally");
    fx_quantum_exp2_ = accum::fixed_point_quantum_exp2(input.max_total_energy_MeV);
    // Sum over histories of x^2 <= sum of (history energy)^2 <= total x largest.
    double const largest = input.max_history_energy_MeV > 0 ? input.max_history_energy_MeV
                                                            : input.max_total_energy_MeV;
    sq_quantum_exp2_ = accum::fixed_point_quantum_exp2(input.max_total_energy_MeV * largest);
    size_type const wb = word_bytes(method_);
    size_type const slot_words64 = (voxels_ * wb + 7) / 8;
    slot_words_ = slot_words64 * 8 / wb;
    slot_strips_ = (voxels_ + (size_type(1) << tally_strip_shift) - 1) >> tally_strip_shift;
    words64_ = slots_ * slot_words64;
    if (on_device())
    {
        device_words_ = DeviceBuffer<std::uint64_t>(words64_);
        device_touched_ = DeviceBuffer<std::uint8_t>(slots_ * slot_strips_);
        this->clear_batch();
        return;
    }
    // The host grids, zero: all at once (each mapped on all cores, then zeroed by a thread of
    // its own; a patient CT's six are 3.8 GB), and so already clear.
    host_touched_.resize(slots_ * slot_strips_);
    history_slab_sq_batch_.assign(history_moments_ ? slabs_.count() : 0, 0);
    history_slab_sq_total_.assign(history_moments_ ? slabs_.count() : 0, 0);
    std::vector<std::vector<std::uint64_t>*> words{&host_words_};
    std::vector<std::vector<double>*> const totals{&total_hi_, &total_lo_, &sum_sq_};
    if (history_moments_)
        words.insert(words.end(), {&history_sq_batch_, &history_sq_total_});
    parallel_for_each(words.size() + totals.size(),
                      [&](size_type k)
                      {
                          if (k < words.size())
                              resize_on_all_cores(*words[k], k == 0 ? words64_ : voxels_,
                                                  std::uint64_t(0), host_threads_);
                          else
                              resize_on_all_cores(*totals[k - words.size()], voxels_, 0.0,
                                                  host_threads_);
                      });
}

double DoseTally::fx_quantum_MeV() const
{
    return accum::exp2_int(fx_quantum_exp2_);
}

double DoseTally::fx_scale_per_MeV() const
{
    return accum::exp2_int(-fx_quantum_exp2_);
}

double DoseTally::sq_scale_per_MeV2() const
{
    return accum::exp2_int(-sq_quantum_exp2_);
}

std::uint64_t* DoseTally::batch_data()
{
    return on_device() ? device_words_.data() : host_words_.data();
}

std::uint8_t* DoseTally::touched_data()
{
    if (dense_fold_)
        return nullptr;
    return on_device() ? device_touched_.data() : host_touched_.data();
}

std::uint64_t* DoseTally::slot_data(size_type k)
{
    return this->batch_data() + k * (words64_ / slots_);
}

void DoseTally::clear_batch()
{
    if (on_device())
    {
        device_words_.zero();
        device_touched_.zero();
    }
    else
    {
        std::fill(host_words_.begin(), host_words_.end(), 0);
        std::fill(host_touched_.begin(), host_touched_.end(), 0);
        std::fill(history_sq_batch_.begin(), history_sq_batch_.end(), 0);
        std::fill(history_slab_sq_batch_.begin(), history_slab_sq_batch_.end(), 0);
    }
}

BatchHistorySquares DoseTally::batch_history_squares() const
{
    return {history_sq_batch_, history_slab_sq_batch_};
}

void DoseTally::set_batch_history_squares(BatchHistorySquares squares)
{
    MCDOSE_VALIDATE(history_moments_ && squares.voxels.size() == history_sq_batch_.size() &&
                        squares.slabs.size() == history_slab_sq_batch_.size(),
                    << "history squares of " << squares.voxels.size() << " voxels and "
                    << squares.slabs.size() << " slabs set on a tally of "
                    << history_sq_batch_.size() << " and " << history_slab_sq_batch_.size());
    history_sq_batch_ = std::move(squares.voxels);
    history_slab_sq_batch_ = std::move(squares.slabs);
}

void DoseTally::release_batch_grids()
{
    std::vector<std::uint64_t>().swap(host_words_);
    std::vector<std::uint8_t>().swap(host_touched_);
    std::vector<std::uint64_t>().swap(history_sq_batch_);
    std::vector<std::uint64_t>().swap(history_slab_sq_batch_);
}

std::vector<std::uint64_t> DoseTally::batch_words() const
{
    return on_device() ? device_words_.to_host() : host_words_;
}

BatchEnergyView DoseTally::batch_view(size_type k, std::uint64_t histories, size_type first,
                                      size_type count, std::vector<std::uint64_t>& staging) const
{
    MCDOSE_EXPECT(k < slots_ && first + count <= voxels_);
    size_type const bytes = word_bytes(method_);
    if (!on_device())
    {
        auto const* slot =
            reinterpret_cast<unsigned char const*>(host_words_.data() + k * slot_words_);
        return {reinterpret_cast<std::uint64_t const*>(slot + first * bytes),
                method_,
                fx_quantum_exp2_,
                first,
                count,
                histories};
    }
    staging.assign((count * bytes + 7) / 8, 0);
    auto const* slot =
        reinterpret_cast<unsigned char const*>(device_words_.data() + k * slot_words_);
    device_copy_to_host(staging.data(), slot + first * bytes, count * bytes);
    return {staging.data(), method_, fx_quantum_exp2_, first, count, histories};
}

BatchEnergyView batch_energy_view(std::vector<double> const& batch_MeV, std::uint64_t histories)
{
    // The doubles are the words of a double-storage method (HB), as fold_batch takes them.
    return {reinterpret_cast<std::uint64_t const*>(batch_MeV.data()),
            TallyMethod::hb,
            0,
            0,
            batch_MeV.size(),
            histories};
}

std::vector<double> DoseTally::batch_energy_MeV() const
{
    return decode_tally_words(method_, fx_quantum_exp2_, this->batch_words(), voxels_);
}

void DoseTally::set_batch_words(std::vector<std::uint64_t> const& words)
{
    MCDOSE_VALIDATE(words.size() == words64_,
                    << words.size() << " batch words for a grid of " << words64_);
    // Words set from outside carry no touched flags: every strip is folded.
    std::vector<std::uint8_t> const all(slots_ * slot_strips_, 1);
    if (on_device())
    {
        device_words_.copy_to_device(make_span(words));
        device_touched_.copy_to_device(make_span(all));
    }
    else
    {
        host_words_ = words;
        host_touched_ = all;
    }
}

void DoseTally::ensure_device_totals()
{
    if (!device_hi_.empty())
        return;
    device_hi_ = DeviceBuffer<double>(voxels_);
    device_lo_ = DeviceBuffer<double>(voxels_);
    device_sum_sq_ = DeviceBuffer<double>(voxels_);
    device_hi_.zero();
    device_lo_.zero();
    device_sum_sq_.zero();
    if (slabs_.enabled())
        device_slabs_ = DeviceBuffer<std::uint64_t>(slots_ * slabs_.count()); // per batch grid
}

DeviceTotals DoseTally::device_totals()
{
    this->ensure_device_totals();
    return {device_hi_.data(), device_lo_.data(), device_sum_sq_.data()};
}

std::vector<double> DoseTally::square_weights(std::vector<std::uint64_t> const& histories)
{
    if (reference_batch_histories_ == 0)
        reference_batch_histories_ = histories.at(0);
    std::vector<double> weights;
    for (std::uint64_t h : histories)
        weights.push_back(double(reference_batch_histories_) / double(h));
    return weights;
}

void DoseTally::fold_words(TallyMethod method, std::uint64_t* words, std::uint8_t* touched,
                           std::vector<std::uint64_t> const& histories)
{
    double const quantum = accum::exp2_int(fx_quantum_exp2_);
    size_type const stride = words64_ / slots_;
    size_type const count = histories.size();
    std::vector<double> const weights = this->square_weights(histories);
    if (!on_device())
    {
        for (size_type k = 0; k < count; ++k)
            this->fold_host_words(method, words + k * stride,
                                  touched ? touched + k * slot_strips_ : nullptr, weights[k]);
        return;
    }
    DeviceTotals const totals = this->device_totals();
    if (slabs_.enabled())
        device_slabs_.zero();
    // The weights cross only where the batches differ in size (otherwise all are 1).
    DeviceBuffer<double> device_weights;
    if (std::any_of(weights.begin(), weights.end(), [](double w) { return w != 1.0; }))
    {
        device_weights = DeviceBuffer<double>(count);
        device_weights.copy_to_device(make_span(weights));
    }
    fold_batches_device(method, quantum,
                        {words, stride, count, touched, slot_strips_, device_weights.data()},
                        voxels_, totals, slabs_, device_slabs_.data());
    if (touched)
        device_memset_zero(touched, count * slot_strips_);
    if (!slabs_.enabled())
    {
        folded_slabs_.resize(folded_slabs_.size() + count);
        return;
    }
    std::vector<std::uint64_t> const sums = device_slabs_.to_host();
    TallyMethod const slab_method = method == TallyMethod::fx ? method : TallyMethod::hb;
    size_type const n = slabs_.count();
    for (size_type k = 0; k < count; ++k)
    {
        std::vector<std::uint64_t> const batch(sums.begin() + k * n, sums.begin() + (k + 1) * n);
        folded_slabs_.push_back(decode_tally_words(slab_method, fx_quantum_exp2_, batch, n));
    }
}

void DoseTally::fold_host_words(TallyMethod method, std::uint64_t* words, std::uint8_t* touched,
                                double sq_weight)
{
    double const quantum = accum::exp2_int(fx_quantum_exp2_);
    detail::TotalsArrays const totals{total_hi_.data(), total_lo_.data(), sum_sq_.data()};
    HistorySquares squares;
    if (history_moments_) // the batch's squares (deposited, or set with the words)
    {
        squares = {history_sq_batch_.data(), history_sq_total_.data()};
        for (size_type s = 0; s < history_slab_sq_batch_.size(); ++s)
        {
            history_slab_sq_total_[s] += history_slab_sq_batch_[s]; // exact integers
            history_slab_sq_batch_[s] = 0;
        }
    }
    folded_slabs_.push_back(dispatch_tally_method(
        method,
        [&](auto policy)
        {
            return fold_on_host<decltype(policy)>(words, voxels_, quantum, totals, slabs_, touched,
                                                  squares, sq_weight, host_threads_);
        }));
}

void DoseTally::count_batch(std::uint64_t histories)
{
    min_batch_histories_ = batches_ == 0 ? histories : std::min(min_batch_histories_, histories);
    max_batch_histories_ = std::max(max_batch_histories_, histories);
    ++batches_;
    histories_ += histories;
}

void DoseTally::end_batch(std::uint64_t histories)
{
    this->end_batches({histories});
}

void DoseTally::end_batches(std::vector<std::uint64_t> const& histories)
{
    MCDOSE_VALIDATE(!histories.empty() && histories.size() <= slots_,
                    << histories.size() << " batches to fold from a tally of " << slots_
                    << " batch grids");
    for (std::uint64_t h : histories)
        MCDOSE_VALIDATE(h > 0, << "a tally batch must contain at least one history");
    folded_slabs_.clear();
    // The grids in batch order, in one pass on a device.
    this->fold_words(method_, this->slot_data(0), this->touched_data(), histories);
    for (std::uint64_t h : histories)
        this->count_batch(h);
}

void DoseTally::fold_batch(std::vector<double> const& batch, std::uint64_t histories)
{
    MCDOSE_VALIDATE(histories > 0, << "a tally batch must contain at least one history");
    MCDOSE_VALIDATE(batch.size() == voxels_, << "a folded batch has " << batch.size()
                                             << " voxels but the tally has " << voxels_);
    // The decoded doubles are the words of a double-storage method (HB).
    std::vector<std::uint64_t> words = bits_of(batch);
    folded_slabs_.clear();
    if (on_device())
    {
        DeviceBuffer<std::uint64_t> device_words(words);
        this->fold_words(TallyMethod::hb, device_words.data(), nullptr, {histories});
    }
    else
    {
        this->fold_words(TallyMethod::hb, words.data(), nullptr, {histories});
    }
    this->count_batch(histories);
}

DoseTallyTotals DoseTally::totals() const
{
    DoseTallyTotals t;
    if (on_device() && !device_hi_.empty())
    {
        t.total_hi = device_hi_.to_host();
        t.total_lo = device_lo_.to_host();
        t.sum_sq = device_sum_sq_.to_host();
    }
    else if (on_device())
    {
        t.total_hi.assign(voxels_, 0.0);
        t.total_lo.assign(voxels_, 0.0);
        t.sum_sq.assign(voxels_, 0.0);
    }
    else
    {
        t.total_hi = total_hi_;
        t.total_lo = total_lo_;
        t.sum_sq = sum_sq_;
        t.history_sum_sq = history_sq_total_;
        t.history_slab_sum_sq = history_slab_sq_total_;
    }
    t.batches = batches_;
    t.histories = histories_;
    t.min_batch_histories = min_batch_histories_;
    t.max_batch_histories = max_batch_histories_;
    t.reference_batch_histories = reference_batch_histories_;
    return t;
}

void DoseTally::restore(DoseTallyTotals t)
{
    MCDOSE_VALIDATE(
        t.total_hi.size() == voxels_ && t.total_lo.size() == voxels_ && t.sum_sq.size() == voxels_,
        << "restored tally totals have " << t.total_hi.size() << " voxels but the tally has "
        << voxels_);
    if (on_device())
    {
        this->ensure_device_totals();
        device_hi_.copy_to_device(make_span(t.total_hi));
        device_lo_.copy_to_device(make_span(t.total_lo));
        device_sum_sq_.copy_to_device(make_span(t.sum_sq));
    }
    else
    {
        MCDOSE_VALIDATE(t.history_sum_sq.size() == history_sq_total_.size(),
                        << "restored tally totals " << (history_moments_ ? "lack" : "have")
                        << " history-by-history moments, unlike this run");
        MCDOSE_VALIDATE(t.history_slab_sum_sq.size() == history_slab_sq_total_.size(),
                        << "restored tally totals have " << t.history_slab_sum_sq.size()
                        << " history moments of slab sums but this run keeps "
                        << history_slab_sq_total_.size());
        total_hi_ = std::move(t.total_hi);
        total_lo_ = std::move(t.total_lo);
        sum_sq_ = std::move(t.sum_sq);
        history_sq_total_ = std::move(t.history_sum_sq);
        history_slab_sq_total_ = std::move(t.history_slab_sum_sq);
    }
    batches_ = t.batches;
    histories_ = t.histories;
    min_batch_histories_ = t.min_batch_histories;
    max_batch_histories_ = t.max_batch_histories;
    reference_batch_histories_ = t.reference_batch_histories;
}

std::vector<double> DoseTally::history_slab_sum_sq() const
{
    double const sq_quantum = accum::exp2_int(sq_quantum_exp2_);
    std::vector<double> sq(history_slab_sq_total_.size());
    for (size_type s = 0; s < sq.size(); ++s)
        sq[s] = FxPolicy::decode(history_slab_sq_total_[s], sq_quantum);
    return sq;
}

namespace
{
/*!
 * Write the values of the voxels of `mask`, in voxel order in device memory (`values`:
 * the energies and the uncertainties), into those voxels of `grids`, a chunk of at most
 * 2^22 values of each (32 MiB) at a time: copied to host buffers, then written by the
 * host threads, each a piece of 4096 mask words.
 */
void write_device_voxels(Span<std::uint64_t const> mask, DeviceBuffer<double> const* values[2],
                         Span<double> grids[2], int threads)
{
    constexpr size_type piece_words = 4096;
    constexpr size_type chunk_values = size_type(1) << 22;
    size_type const words = mask.size();
    size_type const pieces = (words + piece_words - 1) / piece_words;
    // first[p]: the values before piece p.
    std::vector<size_type> const first = mask_piece_offsets(mask, piece_words, threads);
    std::vector<double> buffers[2];
    for (size_type p0 = 0; p0 < pieces;)
    {
        size_type p1 = p0 + 1;
        while (p1 < pieces && first[p1 + 1] - first[p0] <= chunk_values)
            ++p1;
        size_type const o0 = first[p0], n = first[p1] - o0;
        for (int k = 0; k < 2; ++k)
        {
            buffers[k].resize(n);
            if (n > 0)
                device_copy_to_host_parallel(buffers[k].data(), values[k]->data() + o0,
                                             n * sizeof(double), threads);
        }
        parallel_for_each(
            p1 - p0,
            [&](size_type i)
            {
                size_type const p = p0 + i;
                size_type o = first[p] - o0;
                for (size_type w = p * piece_words; w < std::min(words, (p + 1) * piece_words); ++w)
                {
                    for_each_set_bit(mask[w], 64 * w,
                                     [&](size_type v)
                                     {
                                         grids[0][v] = buffers[0][o];
                                         grids[1][v] = buffers[1][o];
                                         ++o;
                                     });
                }
            },
            threads);
        p0 = p1;
    }
}
} // namespace

BatchCount DoseTally::batch_count() const
{
    double const b = double(batches_);
    return {b, reference_batch_histories_ > 0
                   ? double(histories_) / double(reference_batch_histories_)
                   : b};
}

bool DoseTally::result_voxels_into(DoseGrids& into) const
{
    size_type const words = mask_words(voxels_);
    DeviceBuffer<std::uint64_t> mask(words), offsets(words);
    std::optional<size_type> const count =
        result_mask_device(device_hi_.data(), device_lo_.data(), device_sum_sq_.data(), voxels_,
                           this->batch_count(), mask.data(), offsets.data());
    if (!count)
        return false;
    DeviceBuffer<double> energy(*count), sigma(*count);
    if (*count > 0)
    {
        result_voxels_device(device_hi_.data(), device_lo_.data(), device_sum_sq_.data(), voxels_,
                             this->batch_count(), mask.data(), offsets.data(), energy.data(),
                             sigma.data());
    }
    resize_on_all_cores(into.has_energy, words, std::uint64_t(0), host_threads_);
    mask.copy_to_host_parallel(make_span(into.has_energy), host_threads_);
    DeviceBuffer<double> const* values[2] = {&energy, &sigma};
    Span<double> grids[2] = {into.energy_MeV.span(), into.energy_sigma_MeV.span()};
    // Each grid in 2 MiB pages where at least half of a 2 MiB stretch's 4 KiB pages hold a
    // voxel of the mask (core/HostMemory.hh), before the voxels are written.
    for (Span<double> const grid : grids)
    {
        advise_huge_pages_where_written(
            grid.data(), grid.size() * sizeof(double),
            [&](std::size_t offset)
            {
                size_type const v0 = offset / sizeof(double);
                size_type const v1 = std::min<size_type>(
                    grid.size(), (offset + 4096 + sizeof(double) - 1) / sizeof(double));
                return any_bit_in(into.has_energy.data(), v0, v1);
            },
            host_threads_);
    }
    write_device_voxels(make_span(into.has_energy), values, grids, host_threads_);
    return true;
}

DoseResult DoseTally::result(DoseGrids* into) const
{
    DoseResult r;
    r.batches = batches_;
    r.histories = histories_;
    r.history_moments = history_moments_;
    if (into)
    {
        MCDOSE_VALIDATE(
            into->energy_MeV.size() == voxels_ && into->energy_sigma_MeV.size() == voxels_,
            << "result grids of " << into->energy_MeV.size() << " and "
            << into->energy_sigma_MeV.size() << " voxels for a tally of " << voxels_);
    }
    bool const from_device = on_device() && !device_hi_.empty();
    // From the GPU with at least 2 batches, only the voxels with energy cross.
    if (from_device && into && batches_ >= 2 && this->result_voxels_into(*into))
        return r;
    // Otherwise both grids are written whole: into `into`'s, or into the result's, made at
    // once, each on a thread of its own (a new vector is filled on one thread, after its
    // pages are mapped on all cores: core/HostMemory.hh); from the GPU, both are computed
    // there first and each thread copies its grid.
    std::vector<double>* vectors[2] = {&r.energy_MeV, &r.energy_sigma_MeV};
    Span<double> grids[2];
    if (into)
    {
        // Every page is written: 2 MiB pages where the kernel has them (see
        // core/HostMemory.hh advise_huge_pages_where_written).
        grids[0] = into->energy_MeV.span();
        grids[1] = into->energy_sigma_MeV.span();
        for (Span<double> grid : grids)
            advise_huge_pages(grid.data(), grid.size() * sizeof(double));
    }
    DeviceBuffer<double> device_grids[2];
    int const device = from_device ? active_device() : -1;
    if (from_device)
    {
        device_grids[0] = DeviceBuffer<double>(voxels_);
        device_grids[1] = DeviceBuffer<double>(voxels_);
        batch_result_device(device_hi_.data(), device_lo_.data(), device_sum_sq_.data(), voxels_,
                            this->batch_count(), device_grids[0].data(), device_grids[1].data());
    }
    parallel_for_each(2,
                      [&](size_type k)
                      {
                          if (!into)
                          {
                              resize_on_all_cores(*vectors[k], voxels_, 0.0, host_threads_);
                              grids[k] = make_span(*vectors[k]);
                          }
                          if (from_device)
                          {
                              activate_device(device);
                              device_grids[k].copy_to_host_parallel(grids[k], host_threads_);
                          }
                      });
    if (on_device() && !from_device)
    {
        // Nothing folded yet: no totals on the device (the energies are zero already).
        std::fill(grids[1].begin(), grids[1].end(), std::numeric_limits<double>::quiet_NaN());
    }
    else if (!on_device())
    {
        this->host_result(grids[0], grids[1]);
    }
    if (into)
        into->has_energy = energy_mask(grids[0], host_threads_);
    return r;
}

void DoseTally::host_result(Span<double> energy, Span<double> sigma) const
{
    // The same estimator over histories instead of batches: s^2 = N/(N-1) (sum x^2 - E^2/N).
    std::uint64_t const samples = history_moments_ ? histories_ : batches_;
    BatchCount const count =
        history_moments_ ? BatchCount{double(samples), double(samples)} : this->batch_count();
    double const sq_quantum = accum::exp2_int(sq_quantum_exp2_);
    parallel_for_pieces(
        voxels_, host_threads_,
        [&](size_type begin, size_type end, size_type)
        {
            for (size_type i = begin; i < end; ++i)
            {
                double const sum_sq = history_moments_
                                          ? FxPolicy::decode(history_sq_total_[i], sq_quantum)
                                          : sum_sq_[i];
                detail::VoxelTotals const t{total_hi_[i], total_lo_[i], sum_sq};
                energy[i] = detail::total_energy(t);
                sigma[i] = samples < 2 ? std::numeric_limits<double>::quiet_NaN()
                                       : detail::batch_sigma(t, count.batches, count.effective);
            }
        });
}
} // namespace mcdose
