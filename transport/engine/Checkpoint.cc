//! \file transport/engine/Checkpoint.cc
#include "transport/engine/Checkpoint.hh"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/Hash.hh"
#include "core/RegularFile.hh"

namespace mcdose
{
namespace
{
constexpr char const magic[] = "MCDOSE-CHECKPOINT 4\n";

class Writer
{
  public:
    template <class T>
    void pod(T const& v)
    {
        static_assert(std::is_trivially_copyable<T>::value, "plain data only");
        out_.append(reinterpret_cast<char const*>(&v), sizeof v);
    }
    void text(std::string const& s)
    {
        this->pod(std::uint64_t(s.size()));
        out_ += s;
    }
    template <class T>
    void array(std::vector<T> const& v)
    {
        this->pod(std::uint64_t(v.size()));
        out_.append(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(T));
    }
    std::string& bytes() { return out_; }

  private:
    std::string out_;
};

class Reader
{
  public:
    Reader(std::string const& bytes, std::size_t end, std::string const& source)
        : bytes_(bytes), end_(end), source_(source)
    {
    }
    template <class T>
    T pod()
    {
        T v;
        this->raw(&v, sizeof v);
        return v;
    }
    std::string text()
    {
        std::uint64_t const n = this->pod<std::uint64_t>();
        this->need(n);
        std::string s = bytes_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    template <class T>
    std::vector<T> array()
    {
        std::uint64_t const n = this->pod<std::uint64_t>();
        // Divide rather than multiply: a corrupt count must not wrap n * sizeof(T).
        MCDOSE_VALIDATE(n <= (end_ - pos_) / sizeof(T), << "checkpoint '" << source_
                                                        << "' is truncated or corrupt; start "
                                                           "the run again without --resume");
        std::vector<T> v(n);
        this->raw(v.data(), n * sizeof(T));
        return v;
    }
    void skip(std::size_t n)
    {
        this->need(n);
        pos_ += n;
    }
    bool at_end() const { return pos_ == end_; }

  private:
    std::string const& bytes_;
    std::size_t end_;
    std::string const& source_;
    std::size_t pos_{0};

    void need(std::uint64_t n) const
    {
        MCDOSE_VALIDATE(n <= end_ - pos_, << "checkpoint '" << source_
                                          << "' is truncated or corrupt; start the run again "
                                             "without --resume");
    }
    void raw(void* dst, std::size_t n)
    {
        this->need(n);
        if (n > 0) // an empty array's data() may be null, which memcpy must not get
            std::memcpy(dst, bytes_.data() + pos_, n);
        pos_ += n;
    }
};

//! Refuse a field of checkpoint `source` that no run writes: `what` names it.
void refuse_field(bool ok, std::string const& source, char const* what)
{
    MCDOSE_VALIDATE(ok, << "checkpoint '" << source << "' is inconsistent (" << what
                        << "); it was not written by this run as it is, so it cannot be "
                           "resumed: start the run again without --resume");
}

//! Whether every element of `v` is finite (and >= 0 with `non_negative`).
bool all_finite(std::vector<double> const& v, bool non_negative = false)
{
    return std::all_of(v.begin(), v.end(),
                       [&](double x) { return std::isfinite(x) && (!non_negative || x >= 0); });
}

//! The batch counts a run writes: B batches of min to max histories (the first
//! batch's count among them), N histories in all, and the batch loop's own counts.
void check_batch_counts(TransportCheckpoint const& ck, std::string const& source)
{
    DoseTallyTotals const& t = ck.tally;
    refuse_field(t.batches == ck.batches_done && t.histories == ck.histories_done, source,
                 "the tally's batch and history counts differ from the batches done");
    if (t.batches == 0)
    {
        refuse_field(t.histories == 0 && t.reference_batch_histories == 0, source,
                     "histories without a batch");
        return;
    }
    refuse_field(0 < t.min_batch_histories && t.min_batch_histories <= t.max_batch_histories &&
                     t.min_batch_histories <= t.reference_batch_histories &&
                     t.reference_batch_histories <= t.max_batch_histories,
                 source, "batch history counts");
    // B min <= N <= B max, without overflow: N / B lies between min and max.
    refuse_field(t.histories / t.batches >= t.min_batch_histories &&
                     t.histories / t.batches <= t.max_batch_histories,
                 source, "the history count against the batch sizes");
}

/*!
 * Refuse a checkpoint whose fields no run writes (a forged or damaged file with a valid
 * checksum): non-finite or negative sums, counts that contradict each other, a time or
 * energy balance that is not a finite number. Each field is named.
 */
void check_checkpoint_fields(TransportCheckpoint const& ck, std::string const& source)
{
    DoseTallyTotals const& t = ck.tally;
    refuse_field(all_finite(t.total_hi) && all_finite(t.total_lo), source,
                 "a dose total that is not a finite number");
    refuse_field(all_finite(t.sum_sq, true), source,
                 "a sum of squares that is negative or not a finite number");
    refuse_field(std::isfinite(ck.transport_time_s) && ck.transport_time_s >= 0, source,
                 "transport time");
    EnergyBalance const& b = ck.balance;
    for (double x : {b.emitted_MeV, b.deposited_MeV, b.escaped_MeV, b.below_cutoff_MeV,
                     b.overflow_MeV, b.rest_mass_MeV})
        refuse_field(std::isfinite(x), source, "an energy balance that is not a finite number");
    for (auto const& d : ck.batch_digests)
        refuse_field(all_finite(d), source, "a batch digest that is not a finite number");
    check_batch_counts(ck, source);
}

std::string first_line_of(std::string const& text, std::size_t pos)
{
    std::size_t const begin = text.rfind('\n', pos == 0 ? 0 : pos - 1);
    std::size_t const from = (begin == std::string::npos || pos == 0) ? 0 : begin + 1;
    std::size_t const end = text.find('\n', from);
    return text.substr(from, end == std::string::npos ? std::string::npos : end - from);
}
} // namespace

std::string serialize_checkpoint(TransportCheckpoint const& ck)
{
    Writer w;
    w.bytes() = magic;
    w.text(ck.fingerprint);
    w.pod(ck.batches_done);
    w.pod(ck.histories_done);
    w.pod(std::uint8_t(ck.finished ? 1 : 0));
    w.pod(ck.transport_time_s);
    w.array(ck.tally.total_hi);
    w.array(ck.tally.total_lo);
    w.array(ck.tally.sum_sq);
    w.array(ck.tally.history_sum_sq);
    w.array(ck.tally.history_slab_sum_sq);
    w.pod(ck.tally.batches);
    w.pod(ck.tally.histories);
    w.pod(ck.tally.min_batch_histories);
    w.pod(ck.tally.max_batch_histories);
    w.pod(ck.tally.reference_batch_histories);
    w.pod(ck.balance);
    w.pod(std::uint64_t(ck.batch_digests.size()));
    for (auto const& d : ck.batch_digests)
        w.array(d);
    std::uint64_t const sum = fnv1a64(w.bytes());
    w.pod(sum);
    return std::move(w.bytes());
}

TransportCheckpoint deserialize_checkpoint(std::string const& bytes, std::string const& source)
{
    std::size_t const magic_len = sizeof(magic) - 1;
    MCDOSE_VALIDATE(bytes.size() >= magic_len + sizeof(std::uint64_t) &&
                        bytes.compare(0, magic_len, magic) == 0,
                    << "'" << source << "' is not an mcdose checkpoint (version 4); give the "
                    << "file written by --checkpoint");
    std::size_t const body = bytes.size() - sizeof(std::uint64_t);
    std::uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + body, sizeof stored);
    MCDOSE_VALIDATE(stored == fnv1a64(bytes.substr(0, body)),
                    << "checkpoint '" << source
                    << "' fails its checksum (truncated or corrupt); start the run again "
                       "without --resume");
    Reader r(bytes, body, source);
    r.skip(magic_len);
    TransportCheckpoint ck;
    ck.fingerprint = r.text();
    ck.batches_done = r.pod<std::uint64_t>();
    ck.histories_done = r.pod<std::uint64_t>();
    ck.finished = r.pod<std::uint8_t>() != 0;
    ck.transport_time_s = r.pod<double>();
    ck.tally.total_hi = r.array<double>();
    ck.tally.total_lo = r.array<double>();
    ck.tally.sum_sq = r.array<double>();
    ck.tally.history_sum_sq = r.array<std::uint64_t>();
    ck.tally.history_slab_sum_sq = r.array<std::uint64_t>();
    ck.tally.batches = r.pod<std::uint64_t>();
    ck.tally.histories = r.pod<std::uint64_t>();
    ck.tally.min_batch_histories = r.pod<std::uint64_t>();
    ck.tally.max_batch_histories = r.pod<std::uint64_t>();
    ck.tally.reference_batch_histories = r.pod<std::uint64_t>();
    ck.balance = r.pod<EnergyBalance>();
    std::uint64_t const digests = r.pod<std::uint64_t>();
    MCDOSE_VALIDATE(digests <= ck.batches_done, << "checkpoint '" << source << "' is corrupt ("
                                                << digests << " batch digests for "
                                                << ck.batches_done << " batches)");
    for (std::uint64_t b = 0; b < digests; ++b)
        ck.batch_digests.push_back(r.array<double>());
    MCDOSE_VALIDATE(r.at_end(), << "checkpoint '" << source
                                << "' has trailing data (corrupt); start again without --resume");
    check_checkpoint_fields(ck, source);
    return ck;
}

void write_checkpoint(std::string const& path, TransportCheckpoint const& ck)
{
    write_text_atomically(path, serialize_checkpoint(ck));
}

std::string read_checkpoint_bytes(std::string const& path)
{
    // A FIFO, device or directory is refused without waiting on it.
    char const what[] = "checkpoint given to --resume";
    try
    {
        return read_opened_file(open_regular_file(path, what, std::uint64_t(64) << 30), what);
    }
    catch (RegularFileError const& e)
    {
        MCDOSE_VALIDATE(false, << "--resume '" << path << "': " << e.what());
    }
    return {};
}

void check_checkpoint_fingerprint(TransportCheckpoint const& ck, std::string const& expected,
                                  std::string const& path)
{
    std::size_t pos = 0;
    while (pos < ck.fingerprint.size() && pos < expected.size() &&
           ck.fingerprint[pos] == expected[pos])
        ++pos;
    bool const same = ck.fingerprint == expected;
    MCDOSE_VALIDATE(same, << "--resume '" << path
                          << "': the checkpoint was written for a different study or options ("
                             "checkpoint has '"
                          << first_line_of(ck.fingerprint, pos) << "', this run has '"
                          << first_line_of(expected, pos)
                          << "'); resume with the same study file and options (histories, "
                             "batches, tally, rng, precision; history by history, one CPU "
                             "worker group on one rank), or start without --resume");
}
std::string run_fingerprint(TransportRunOptions const& options, TransportChoice const& choice,
                            size_type voxels, int fx_quantum_exp2)
{
    std::string s = options.input_fingerprint;
    if (!s.empty() && s.back() != '\n')
        s += '\n';
    s += "histories=" + std::to_string(options.histories) +
         "\nbatches=" + std::to_string(options.histories ? options.batches : 0) +
         "\nbatch_histories=" + std::to_string(options.histories ? 0 : options.batch_histories) +
         "\nmax_histories=" + std::to_string(options.histories ? 0 : options.max_histories) +
         "\nhistory_granule=" + std::to_string(options.history_granule) +
         "\ntally=" + to_cstring(choice.method) + "\nrng=" + to_cstring(options.rng.kind) +
         "\nseed=" + std::to_string(options.rng.seed) +
         "\nstream=" + std::to_string(options.rng.stream) +
         "\nprecision=" + (choice.precision == Precision::single_ ? "float" : "double") +
         "\nvoxels=" + std::to_string(voxels) +
         "\nfx_quantum_exp2=" + std::to_string(fx_quantum_exp2) +
         "\nuncertainty=" + (options.history_uncertainty ? "history" : "batch") + "\n";
    return s;
}

} // namespace mcdose
