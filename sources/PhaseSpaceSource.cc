//! \file sources/PhaseSpaceSource.cc
#include "sources/PhaseSpaceSource.hh"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <sstream>
#include <system_error>
#include <thread>
#include <utility>

#include "core/Assert.hh"
#include "core/Constants.hh"
#include "core/Device.hh"
#include "core/DeviceMemory.hh"
#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "core/VectorMath.hh"
#include "io/McplFile.hh"

namespace mcdose
{
std::array<Real3, 3> rotation_matrix(PhaseSpacePlacement const& placement)
{
    double const deg = constants::pi / 180;
    double const a = placement.rotation_deg[0] * deg;
    double const b = placement.rotation_deg[1] * deg;
    double const c = placement.rotation_deg[2] * deg;
    double const ca = std::cos(a), sa = std::sin(a);
    double const cb = std::cos(b), sb = std::sin(b);
    double const cc = std::cos(c), sc = std::sin(c);
    // Rz(c) Ry(b) Rx(a)
    return {{{{cc * cb, cc * sb * sa - sc * ca, cc * sb * ca + sc * sa}},
             {{sc * cb, sc * sb * sa + cc * ca, sc * sb * ca - cc * sa}},
             {{-sb, cb * sa, cb * ca}}}};
}

std::string pdg_name(std::int32_t code)
{
    char const* name = nullptr;
    switch (code)
    {
    case 22:
        name = "photon";
        break;
    case 11:
        name = "electron";
        break;
    case -11:
        name = "positron";
        break;
    case 2112:
        name = "neutron";
        break;
    case 2212:
        name = "proton";
        break;
    case 13:
        name = "muon";
        break;
    case -13:
        name = "antimuon";
        break;
    case 211:
        name = "pi+";
        break;
    case -211:
        name = "pi-";
        break;
    case 1000020040:
        name = "alpha";
        break;
    default:
        break;
    }
    return name ? std::string(name) + " (" + std::to_string(code) + ")"
                : "PDG " + std::to_string(code);
}

namespace
{
//! Which transported type a PDG code is (false for the others).
bool transported_type(std::int32_t pdg, ParticleType& type)
{
    switch (pdg)
    {
    case PdgCode::photon:
        type = ParticleType::photon;
        return true;
    case PdgCode::electron:
        type = ParticleType::electron;
        return true;
    case PdgCode::positron:
        type = ParticleType::positron;
        return true;
    default:
        return false;
    }
}

//! Whether a particle is transported: a photon, electron or positron at or above the
//! physics tables' lowest energy (below it, it is counted and skipped).
bool is_used(McplParticle const& p, ParticleType& type)
{
    return transported_type(p.pdg_code, type) && p.energy_MeV >= PhaseSpaceScan::min_energy_MeV;
}

//! Refuse a particle the transport cannot start; `i` is its index in the file.
void check_particle(McplParticle const& p, std::uint64_t i, std::string const& path,
                    double max_energy_MeV)
{
    auto const where = [&] { return path + ": particle " + std::to_string(i) + " (from 0): "; };
    MCDOSE_VALIDATE(
        std::isfinite(p.energy_MeV) && p.energy_MeV >= 0 && p.energy_MeV <= max_energy_MeV,
        << where() << "kinetic energy " << p.energy_MeV
        << " MeV is outside the physics tables (0 to " << max_energy_MeV
        << " MeV); remove or correct the particle (mcpltool --extract selects "
           "particles)");
    MCDOSE_VALIDATE(std::isfinite(p.weight) && p.weight >= 0,
                    << where() << "weight " << p.weight
                    << " is not a finite number >= 0; correct the file");
    double const n2 = p.direction[0] * p.direction[0] + p.direction[1] * p.direction[1] +
                      p.direction[2] * p.direction[2];
    MCDOSE_VALIDATE(std::isfinite(n2) && std::fabs(n2 - 1) < 1e-3,
                    << where() << "the direction (" << p.direction[0] << ", " << p.direction[1]
                    << ", " << p.direction[2] << ") is not a unit vector; correct the file");
    MCDOSE_VALIDATE(std::isfinite(p.position_cm[0]) && std::isfinite(p.position_cm[1]) &&
                        std::isfinite(p.position_cm[2]),
                    << where() << "the position is not finite; correct the file");
}
} // namespace

namespace
{
//! What scanning one block of the file's particles found: its counts and sums (not the
//! index), and the first particle whose reading or check failed, if any.
struct ScanBlock
{
    PhaseSpaceScan scan;
    std::exception_ptr error;
};

//! Scan particles [begin, end) of the file into `b`, setting the bit of each transported
//! one in `used` (blocks start at multiples of 64, so blocks share no word); stop at the
//! first error, which `b` keeps.
void scan_block(std::string const& path, double max_energy_MeV, bool recover, std::uint64_t begin,
                std::uint64_t end, std::vector<std::uint64_t>& used, ScanBlock& b)
{
    PhaseSpaceScan& scan = b.scan;
    scan.min_weight = std::numeric_limits<double>::infinity();
    try
    {
        McplReader file(path, true, recover);
        file.seek(begin);
        McplParticle p;
        for (std::uint64_t i = begin; i < end; ++i)
        {
            bool const read = file.read(p); // a file shorter than its header is refused there
            MCDOSE_ASSERT(read);            // (false only past the header's count)
            ParticleType type;
            if (!transported_type(p.pdg_code, type))
            {
                ++scan.skipped[p.pdg_code];
                continue;
            }
            check_particle(p, i, path, max_energy_MeV);
            if (!is_used(p, type))
            {
                ++scan.below_min;
                scan.below_min_MeV += p.weight * p.energy_MeV;
                continue;
            }
            used[i / 64] |= std::uint64_t(1) << (i % 64);
            ++scan.transported;
            (type == ParticleType::photon     ? scan.photons
             : type == ParticleType::electron ? scan.electrons
                                              : scan.positrons)++;
            double const rest =
                type == ParticleType::positron ? 2 * constants::electron_mass_MeV : 0;
            scan.max_energy_MeV = std::max(scan.max_energy_MeV, p.energy_MeV);
            scan.max_history_energy_MeV =
                std::max(scan.max_history_energy_MeV, p.weight * (p.energy_MeV + rest));
            scan.total_weight += p.weight;
            scan.min_weight = std::min(scan.min_weight, p.weight);
            scan.max_weight = std::max(scan.max_weight, p.weight);
        }
    }
    catch (...)
    {
        b.error = std::current_exception();
    }
}

//! Add block `b` to the blocks before it in `total`; the first block with an error ends
//! the scan (its error is the file's first).
void merge_block(ScanBlock& total, ScanBlock const& b)
{
    if (total.error)
        return;
    PhaseSpaceScan& t = total.scan;
    PhaseSpaceScan const& s = b.scan;
    t.transported += s.transported;
    for (auto const& [code, n] : s.skipped)
        t.skipped[code] += n;
    t.photons += s.photons;
    t.electrons += s.electrons;
    t.positrons += s.positrons;
    t.below_min += s.below_min;
    t.below_min_MeV += s.below_min_MeV;
    t.max_energy_MeV = std::max(t.max_energy_MeV, s.max_energy_MeV);
    t.max_history_energy_MeV = std::max(t.max_history_energy_MeV, s.max_history_energy_MeV);
    t.total_weight += s.total_weight;
    t.min_weight = std::min(t.min_weight, s.min_weight);
    t.max_weight = std::max(t.max_weight, s.max_weight);
    total.error = b.error;
}

//! File position of every index_stride-th transported particle, from their bits.
std::vector<std::uint64_t> transported_index(std::vector<std::uint64_t> const& used)
{
    std::vector<std::uint64_t> index;
    std::uint64_t counted = 0; // transported particles before the word
    for (std::size_t w = 0; w < used.size(); ++w)
    {
        std::uint64_t bits = used[w];
        auto const in_word = std::uint64_t(__builtin_popcountll(bits));
        std::uint64_t next = (counted + PhaseSpaceScan::index_stride - 1) /
                             PhaseSpaceScan::index_stride * PhaseSpaceScan::index_stride;
        for (; next < counted + in_word; next += PhaseSpaceScan::index_stride)
        {
            // The (next - counted)-th set bit of the word.
            std::uint64_t b = bits;
            for (std::uint64_t k = 0; k < next - counted; ++k)
                b &= b - 1;
            index.push_back(64 * w + std::uint64_t(__builtin_ctzll(b)));
        }
        counted += in_word;
    }
    return index;
}
} // namespace

PhaseSpaceScan scan_phase_space(std::string const& path, double max_energy_MeV, int threads,
                                bool recover)
{
    McplReader const header(path, true, recover);
    std::uint64_t const particles = header.size();
    MCDOSE_VALIDATE(particles > 0, << path
                                   << ": the phase-space file holds no "
                                      "particles; give a file with particles");
    std::vector<std::uint64_t> used((particles + 63) / 64, 0);
    ScanBlock zero;
    zero.scan.min_weight = std::numeric_limits<double>::infinity();
    ScanBlock const all = parallel_block_sum(
        particles, threads, zero,
        [&](size_type begin, size_type end, ScanBlock& b)
        { scan_block(path, max_energy_MeV, recover, begin, end, used, b); },
        merge_block,
        header.compressed() ? std::max<std::uint64_t>(particles, 1) : scan_block_particles);
    if (all.error)
        std::rethrow_exception(all.error);
    PhaseSpaceScan scan = all.scan;
    scan.file_particles = particles;
    scan.primary_histories = header.primary_histories();
    scan.compressed = header.compressed();
    scan.index = transported_index(used);
    MCDOSE_VALIDATE(scan.transported > 0,
                    << path << ": none of the file's " << scan.file_particles
                    << " particles is a photon, electron or positron of at least 1 keV, the "
                       "particles mcdose transports; "
                    << describe_scan(scan, path));
    MCDOSE_VALIDATE(scan.total_weight > 0,
                    << path << ": all " << scan.transported
                    << " photons, electrons and positrons of the file weigh 0, so they would "
                       "deposit nothing; give a file with positive weights");
    return scan;
}

std::string describe_scan(PhaseSpaceScan const& scan, std::string const& file)
{
    std::ostringstream os;
    os << "phase space '" << file << "': " << scan.file_particles << " particles, "
       << scan.transported << " transported (" << scan.photons << " photons, " << scan.electrons
       << " electrons, " << scan.positrons << " positrons)";
    if (scan.primary_histories > 0)
        os << ", made by " << scan.primary_histories << " primary histories";
    std::uint64_t skipped = 0;
    for (auto const& [code, n] : scan.skipped)
        skipped += n;
    if (skipped > 0)
    {
        os << ", " << skipped << " skipped (types mcdose does not transport:";
        bool first = true;
        for (auto const& [code, n] : scan.skipped)
        {
            os << (first ? " " : ", ") << n << " " << pdg_name(code);
            first = false;
        }
        os << ")";
    }
    if (scan.below_min > 0)
    {
        os << ", " << scan.below_min << " below " << PhaseSpaceScan::min_energy_MeV * 1e3
           << " keV skipped (the physics tables' lowest energy; " << scan.below_min_MeV
           << " MeV in all, weights included)";
    }
    return os.str();
}

PhaseSpaceReader::PhaseSpaceReader(PhaseSpaceInput input)
    : input_(std::move(input)),
      file_(std::make_unique<McplReader>(input_.file, true, input_.recover, true)),
      rotation_(rotation_matrix(input_.placement))
{
}

PhaseSpaceReader::~PhaseSpaceReader() = default;

void PhaseSpaceReader::read(std::uint64_t first, std::uint64_t count,
                            std::vector<Particle<double>>& out)
{
    PhaseSpaceScan const& scan = input_.scan;
    MCDOSE_VALIDATE(first + count <= scan.transported,
                    << input_.file << ": particles " << first << " to " << first + count
                    << " asked for, but the file has " << scan.transported << " to transport");
    if (first != next_)
    {
        // Seek to the indexed particle at or before `first`, then read on.
        std::uint64_t const k = first / PhaseSpaceScan::index_stride;
        file_->seek(scan.index.at(k));
        next_ = k * PhaseSpaceScan::index_stride;
    }
    out.clear();
    out.reserve(count);
    McplParticle p;
    ParticleType type;
    auto const& r = rotation_;
    Real3 const& t = input_.placement.translation_cm;
    while (out.size() < count)
    {
        MCDOSE_VALIDATE(file_->read(p), << input_.file
                                        << ": the file ended early (it changed "
                                           "since the run started?)");
        if (!is_used(p, type))
            continue;
        if (next_++ < first)
            continue;
        Real3 const x{{p.position_cm[0], p.position_cm[1], p.position_cm[2]}};
        Real3 const d = normalized(Real3{{p.direction[0], p.direction[1], p.direction[2]}});
        Particle<double> q;
        q.type = type;
        q.energy_MeV = p.energy_MeV;
        q.weight = p.weight;
        for (int i = 0; i < 3; ++i)
        {
            q.position_cm[i] = dot(r[i], x) + t[i];
            q.direction[i] = dot(r[i], d);
        }
        out.push_back(q);
    }
}

namespace
{
//! A placed particle in the grid's local frame, in the transport's precision.
template <class Real>
Particle<Real> to_grid_frame(Particle<double> const& p, GridGeometry const& grid)
{
    Particle<Real> q;
    q.type = p.type;
    q.energy_MeV = Real(p.energy_MeV);
    q.weight = Real(p.weight);
    Real3 const x = grid.to_local(p.position_cm);
    Real3 const d = grid.direction_to_local(p.direction);
    for (int c = 0; c < 3; ++c)
    {
        q.position_cm[c] = Real(x[c]);
        q.direction[c] = Real(d[c]);
    }
    return q;
}

//! The least particles of a part that a thread of its own reads.
constexpr std::uint64_t min_part = std::uint64_t(1) << 16;
//! Particles placed and converted at a time by a reading thread: a block of placed
//! particles (288 KiB in double precision) stays in the core's cache between being placed
//! and being converted into the piece. A stop of the read-ahead waits for one block.
constexpr std::uint64_t read_block = std::uint64_t(1) << 12;

//! Part k of `parts` of [first, end): the transported particles one reader reads.
std::pair<std::uint64_t, std::uint64_t> piece_part(std::uint64_t first, std::uint64_t end,
                                                   std::size_t k, std::size_t parts)
{
    std::uint64_t const n = end - first;
    return {first + n * k / parts, first + n * (k + 1) / parts};
}
//! Particles the read-ahead reads before and after its guess of the next piece: a
//! group's pieces of near-equal batches move by a particle or two from batch to batch.
constexpr std::uint64_t read_ahead_margin = 16;
//! The memory a piece of n particles is given (host and device): room for a read-ahead
//! piece (the margins on either side), so that the two pieces' memory, taken in turn,
//! is not allocated again (freeing device memory would wait for the running kernel).
constexpr std::uint64_t piece_room(std::uint64_t n)
{
    return n + 2 * read_ahead_margin;
}
} // namespace

std::size_t phase_space_read_threads(PhaseSpaceInput const& input)
{
    return input.read_threads > 0
               ? std::size_t(input.read_threads)
               : std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
}

PhaseSpaceMemory phase_space_memory(PhaseSpaceInput const& input, std::uint64_t piece,
                                    Precision precision, bool gpu)
{
    double const particle =
        precision == Precision::single_ ? sizeof(Particle<float>) : sizeof(Particle<double>);
    double const pieces = (input.read_ahead ? 2.0 : 1.0) * double(piece_room(piece));
    PhaseSpaceMemory m;
    // Each reading thread's block of placed particles and, for a GPU, its two pinned
    // staging blocks.
    double const per_thread =
        double(read_block) * (sizeof(Particle<double>) + (gpu ? 2 * particle : 0.0));
    m.host_bytes = pieces * particle + double(phase_space_read_threads(input)) * per_thread;
    m.device_bytes = gpu ? pieces * particle : 0.0;
    return m;
}

template <class Real>
PhaseSpaceChunks<Real>::PhaseSpaceChunks(PhaseSpaceInput const& input, GridGeometry const& grid)
    : input_(input), grid_(grid), recycle_(input.recycle), read_ahead_(input.read_ahead),
      transported_(input.scan.transported)
{
    MCDOSE_VALIDATE(recycle_ >= 1, << input.file << ": recycle must be at least 1");
    readers_.push_back(std::make_unique<PhaseSpaceReader>(input));
    max_readers_ = input.scan.compressed ? 1 : phase_space_read_threads(input);
    uploads_.resize(max_readers_);
}

template <class Real>
PhaseSpaceChunks<Real>::~PhaseSpaceChunks()
{
    cancel_.store(true);
    if (ahead_.valid())
        ahead_.wait(); // the reader thread uses this object's reader
    if (next_memory_.valid())
        next_memory_.wait();
}

template <class Real>
PhaseSpaceView<Real> PhaseSpaceChunks<Real>::load(std::uint64_t first_history,
                                                  std::uint64_t end_history, bool device)
{
    PhaseSpaceView<Real> view;
    view.recycle = recycle_;
    if (end_history <= first_history)
        return view;
    std::uint64_t const first = first_history / recycle_;
    std::uint64_t const end = (end_history - 1) / recycle_ + 1;
    bool const new_piece = first != loaded_first_ || end != loaded_end_; // else a re-run
    if (new_piece)
        this->fill(first, end, device);
    view.first_particle = first;
    if (device)
        view.particles = this->on_device(first, end);
    else
        view.particles = {current_.particles.data() + (first - current_.first), end - first};
    // Into the other piece's memory (host and device), while this one is transported.
    if (new_piece && read_ahead_)
        this->start_read_ahead(first, end, device);
    return view;
}

template <class Real>
void PhaseSpaceChunks<Real>::prefetch(std::uint64_t first_history, std::uint64_t end_history,
                                      int gpu)
{
    if (!read_ahead_ || end_history <= first_history || ahead_.valid() ||
        loaded_end_ > loaded_first_)
        return;
    std::uint64_t const first = first_history / recycle_;
    std::uint64_t const end = std::min(transported_, (end_history - 1) / recycle_ + 1);
    this->read_ahead_async(first, end, gpu, true);
}

//! Read [from, to) on a thread as the read-ahead, for `gpu` (-1: host only); with
//! `then_next_memory`, then make the next piece's memory (start_next_memory). Without
//! a thread, nothing is read ahead: the particles are read when they are asked for.
template <class Real>
void PhaseSpaceChunks<Real>::read_ahead_async(std::uint64_t from, std::uint64_t to, int gpu,
                                              bool then_next_memory)
{
    if (from >= to)
        return;
    try
    {
        ahead_ = std::async(std::launch::async,
                            [this, from, to, gpu, then_next_memory]
                            {
                                Piece piece = this->read_piece(from, to, gpu);
                                if (then_next_memory && !cancel_.load())
                                    this->start_next_memory(to - from, gpu);
                                return piece;
                            });
    }
    catch (std::system_error const&)
    {
    }
}

/*!
 * After a prefetch: on a thread, the memory of a piece of n particles (with the margins'
 * room) on the host and, with a `gpu`, on it, which the second piece's read-ahead would
 * otherwise map while the first batch runs; the first load does not wait for it (the
 * next read_piece does, take_next_memory).
 */
template <class Real>
void PhaseSpaceChunks<Real>::start_next_memory(std::size_t n, int gpu)
{
    std::size_t const room = piece_room(n);
    try
    {
        next_memory_ = std::async(std::launch::async,
                                  [this, room, gpu]
                                  {
                                      resize_on_all_cores(next_host_, room, Particle<Real>{},
                                                          int(max_readers_));
                                      if (gpu >= 0)
                                      {
                                          activate_device(gpu);
                                          next_device_ = DeviceBuffer<Particle<Real>>(room);
                                      }
                                  });
    }
    catch (std::system_error const&)
    {
        // No thread to be had: the memory is made when a piece needs it.
    }
}

//! The memory start_next_memory made, as the piece memory and read-ahead device buffer to
//! reuse (none if it failed: then they are made as needed).
template <class Real>
void PhaseSpaceChunks<Real>::take_next_memory()
{
    if (!next_memory_.valid())
        return;
    try
    {
        next_memory_.get();
    }
    catch (std::exception const&)
    {
    }
    if (next_host_.capacity() > spare_.capacity())
        spare_ = std::move(next_host_);
    if (next_device_.size() > device_ahead_.size())
        device_ahead_ = std::move(next_device_);
    next_host_ = {};
    next_device_ = {};
}

template <class Real>
Span<Particle<Real> const> PhaseSpaceChunks<Real>::on_device(std::uint64_t first, std::uint64_t end)
{
    if (current_.on_device)
    {
        // Its reading threads copied this piece (the read-ahead's: while the one before
        // was transported).
        std::swap(device_, device_ahead_);
        device_first_ = current_.first;
        device_end_ = current_.end();
        current_.on_device = false;
    }
    if (first < device_first_ || end > device_end_)
    {
        std::size_t const n = end - first;
        if (device_.size() < n)
            device_ = DeviceBuffer<Particle<Real>>(piece_room(n));
        device_copy_to_device(device_.data(), current_.particles.data() + (first - current_.first),
                              n * sizeof(Particle<Real>));
        device_first_ = first;
        device_end_ = end;
    }
    return {device_.data() + (first - device_first_), end - first};
}

//! Transported particles [first, end) from the file, placed and converted, in parts
//! read at once (on the read-ahead thread: until cancel_, so a piece cut short keeps
//! the particles before the first part left unfinished). With a `gpu` (>= 0), each
//! part is also copied into device_ahead_ by its thread, a block at a time while it
//! reads the next (through pinned staging memory: DeviceUploadStream).
template <class Real>
auto PhaseSpaceChunks<Real>::read_piece(std::uint64_t first, std::uint64_t end, int gpu) -> Piece
{
    this->take_next_memory();
    Piece piece;
    piece.first = first;
    piece.particles = std::move(spare_); // the memory of a piece no longer needed, if any
    std::size_t const n = end - first;
    if (piece.particles.capacity() >= n)
    {
        piece.particles.resize(n); // no fill: the parts write every particle
    }
    else
    {
        resize_on_all_cores(piece.particles, piece_room(n), Particle<Real>{}, int(max_readers_));
        piece.particles.resize(n);
    }
    std::size_t const parts = std::clamp<std::size_t>(n / min_part, 1, max_readers_);
    while (readers_.size() < parts)
        readers_.push_back(std::make_unique<PhaseSpaceReader>(input_));
    DeviceTarget target;
    if (gpu >= 0)
    {
        activate_device(gpu);
        if (device_ahead_.size() < n)
            device_ahead_ = DeviceBuffer<Particle<Real>>(piece_room(n));
        target = {device_ahead_.data(), gpu};
    }
    std::vector<std::uint64_t> done(parts, 0);
    std::vector<std::future<std::uint64_t>> others;
    for (std::size_t k = 1; k < parts; ++k)
    {
        try
        {
            others.push_back(std::async(std::launch::async, [this, &piece, end, k, parts, target]
                                        { return read_part(piece, end, k, parts, target); }));
        }
        catch (std::system_error const&)
        {
            break; // no thread to be had: this thread reads the rest
        }
    }
    std::exception_ptr error;
    auto run = [&](std::size_t k, auto&& f)
    {
        try
        {
            done[k] = f();
        }
        catch (...)
        {
            readers_[k]->forget_position();
            if (!error)
                error = std::current_exception();
        }
    };
    run(0, [&] { return read_part(piece, end, 0, parts, target); });
    for (std::size_t k = 1; k < parts; ++k)
    {
        if (k <= others.size())
            run(k, [&] { return others[k - 1].get(); });
        else
            run(k, [&] { return read_part(piece, end, k, parts, target); });
    }
    if (error)
        std::rethrow_exception(error);
    // A cut read keeps the parts before the first unfinished one, and what it read.
    std::uint64_t kept = 0;
    for (std::size_t k = 0; k < parts; ++k)
    {
        kept += done[k];
        auto const [from, to] = piece_part(first, end, k, parts);
        if (done[k] < to - from)
            break;
    }
    piece.particles.resize(kept);
    piece.on_device = target.particles && kept == n;
    return piece;
}

template <class Real>
std::uint64_t PhaseSpaceChunks<Real>::read_part(Piece& piece, std::uint64_t end, std::size_t k,
                                                std::size_t parts, DeviceTarget target)
{
    auto const [from, to] = piece_part(piece.first, end, k, parts);
    DeviceUploadStream* upload = nullptr;
    if (target.particles)
    {
        activate_device(target.gpu);
        if (!uploads_[k])
            uploads_[k] = std::make_unique<DeviceUploadStream>(read_block * sizeof(Particle<Real>));
        upload = uploads_[k].get();
    }
    std::vector<Particle<double>> placed;
    std::uint64_t at = from;
    try
    {
        for (; at < to && !cancel_.load(); at += placed.size())
        {
            readers_[k]->read(at, std::min(read_block, to - at), placed);
            Particle<Real>* out = piece.particles.data() + (at - piece.first);
            for (std::size_t j = 0; j < placed.size(); ++j)
                out[j] = to_grid_frame<Real>(placed[j], grid_);
            if (upload) // to the GPU while the next block is read
                upload->copy(target.particles + (at - piece.first), out,
                             placed.size() * sizeof(Particle<Real>));
        }
    }
    catch (...)
    {
        uploads_[k].reset(); // waits for its copies
        throw;
    }
    if (upload)
        upload->finish();
    return at - from;
}

//! current_ holds particles [first, end): those the read-ahead has (it may hold a few
//! more on either side), the rest from the file. The memory of the piece before is reused.
//! With read-ahead, a piece read whole for the `device` is copied to the GPU by its reading
//! threads (into device_ahead_; without read-ahead one device buffer is kept, which
//! on_device fills).
template <class Real>
void PhaseSpaceChunks<Real>::fill(std::uint64_t first, std::uint64_t end, bool device)
{
    last_first_ = loaded_first_;
    last_end_ = loaded_end_;
    loaded_first_ = loaded_end_ = 0;
    Piece ahead = this->take_read_ahead(); // its thread is done with spare_
    // At most two pieces in memory: this one and the read-ahead's.
    spare_ = std::move(current_.particles);
    current_ = Piece{};
    if (ahead.first <= first && first < ahead.end())
    {
        read_ahead_used_ += std::min(ahead.end(), end) - first;
        if (ahead.end() < end)
        {
            Piece const rest = this->read_piece(ahead.end(), end);
            ahead.particles.insert(ahead.particles.end(), rest.particles.begin(),
                                   rest.particles.end());
            ahead.on_device = false; // the device holds only a part
        }
        current_ = std::move(ahead);
    }
    else
    {
        ahead = Piece{};
        current_ = this->read_piece(first, end, device && read_ahead_ ? active_device() : -1);
    }
    loaded_first_ = first;
    loaded_end_ = end;
}

//! The read-ahead's particles (none if there is none or it failed: load() then reads them).
template <class Real>
auto PhaseSpaceChunks<Real>::take_read_ahead() -> Piece
{
    if (!ahead_.valid())
        return {};
    try
    {
        return ahead_.get();
    }
    catch (std::exception const&)
    {
        for (auto& reader : readers_)
            reader->forget_position();
        return {};
    }
}

/*!
 * Start reading the group's next piece after [first, end): right after it (one
 * group: batches follow each other), or as far on as this piece is from the last
 * one when there is a gap between them (several groups or ranks: each reads its
 * share of every batch). With `device`, the piece is copied to the calling thread's
 * GPU as it is read (into device_ahead_, on streams beside the transport's kernel:
 * the GPU's work waits for neither the reading nor the copies).
 */
template <class Real>
void PhaseSpaceChunks<Real>::start_read_ahead(std::uint64_t first, std::uint64_t end, bool device)
{
    bool const strided = last_end_ > last_first_ && last_end_ < first;
    std::uint64_t const guess = strided ? first + (first - last_first_) : end;
    std::uint64_t const from = std::max(end, guess - std::min(guess, read_ahead_margin));
    std::uint64_t const to =
        std::min(transported_, std::max(from, guess + (end - first) + read_ahead_margin));
    this->read_ahead_async(from, to, device ? active_device() : -1, false);
}

template class PhaseSpaceChunks<float>;
template class PhaseSpaceChunks<double>;
} // namespace mcdose
