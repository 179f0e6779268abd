//! \file study/PhaseSpaceOutput.cc
#include "study/PhaseSpaceOutput.hh"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/DeviceMemory.hh"
#include "io/InputError.hh"
#include "io/McplFile.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
std::string phase_space_output_path(OutputInput const& outputs)
{
    return (std::filesystem::path(outputs.directory) / (outputs.name + "_phase_space.mcpl"))
        .string();
}

SourceInput const* phase_space_source(StudyInput const& study)
{
    for (SourceInput const& s : study.sources)
    {
        if (s.kind == SourceKind::phase_space && s.phase_space)
            return &s;
    }
    return nullptr;
}

std::uint64_t primary_histories_of(StudyInput const& study, std::uint64_t histories)
{
    SourceInput const* s = phase_space_source(study);
    if (!s || s->phase_space->scan.primary_histories == 0)
        return histories;
    PhaseSpaceScan const& scan = s->phase_space->scan;
    return std::uint64_t(std::llround(double(histories) * double(scan.primary_histories) /
                                      double(scan.transported)));
}

void check_phase_space_sources(StudyInput const& study)
{
    SourceInput const* s = phase_space_source(study);
    if (!s)
        return;
    PhaseSpaceScan const& scan = s->phase_space->scan;
    if (scan.electrons + scan.positrons > 0 && !study.physics.transport.electron.condensed_history)
    {
        throw InputError(study.study_file, s->pointer + "/file",
                         "the phase space holds " + std::to_string(scan.electrons) +
                             " electrons and " + std::to_string(scan.positrons) +
                             " positrons, which need \"electron_transport\": \"condensed\" in "
                             "'physics'; set it, or keep only photons in the file (mcpltool "
                             "--extract -p22)");
    }
    if (study.sources.size() > 1)
    {
        throw InputError(study.study_file, s->pointer,
                         "a phase-space source must be the study's only source (its histories "
                         "follow the file); remove the others or run them as a separate study");
    }
    check_phase_space_batches(study, *s->phase_space);
}

void check_phase_space_batches(StudyInput const& study, PhaseSpaceInput const& ps)
{
    if (study.run.target_uncertainty && !study.run.histories)
        return; // batches of whole particles up to the file (RunSetup)
    // The histories run refuses (not a multiple of recycle, more than the file holds).
    std::uint64_t const histories = phase_space_histories(study, study.run.histories.value_or(0));
    // Recycled particles take the batch method (100 batches unless given).
    if (study.tally.batches == 0 && ps.recycle == 1)
        return;
    auto const batches = std::uint64_t(
        study.tally.run_batches(study.tally.uncertainty == TallyUncertainty::history));
    if (batches > histories / ps.recycle)
    {
        throw InputError(study.study_file, "/tally/batches",
                         std::to_string(batches) + " batches for the " +
                             std::to_string(histories / ps.recycle) +
                             " particles of the phase space used: each batch needs a particle "
                             "of its own (all uses of a particle stay in one batch); give at "
                             "most that many batches");
    }
}

std::uint64_t phase_space_histories(StudyInput const& study, std::uint64_t requested)
{
    SourceInput const* s = phase_space_source(study);
    MCDOSE_EXPECT(s);
    PhaseSpaceInput const& ps = *s->phase_space;
    std::uint64_t const all = ps.scan.transported * ps.recycle;
    if (requested == 0)
        return all;
    if (requested % ps.recycle != 0 || requested > all)
    {
        std::ostringstream os;
        os << requested << " histories: with a phase space of " << ps.scan.transported
           << " transported particles, each used " << ps.recycle
           << " times (recycle), give a multiple of " << ps.recycle << " up to " << all
           << ", or leave 'histories' out to use the whole file";
        throw InputError(study.study_file, "/run/histories", os.str());
    }
    return requested;
}

void check_phase_space_output(StudyInput const& study, GridGeometry const& grid)
{
    if (!study.outputs.phase_space)
        return;
    PhaseSpaceOutputInput const& plane = *study.outputs.phase_space;
    if (!mcpl_available())
    {
        throw InputError(study.study_file, "/outputs/phase_space",
                         "this mcdose was built without MCPL, so it cannot write phase-space "
                         "files; install libmcpl-dev and rebuild with -DMCDOSE_USE_MCPL=ON");
    }
    if (study.rng.generator != RngKind::philox)
    {
        throw InputError(study.study_file, "/rng/generator",
                         "a run that writes a phase space needs \"philox\" (a batch piece whose "
                         "crossings overflow their buffer is run again and must repeat its "
                         "histories); use \"philox\" or remove outputs.phase_space");
    }
    // Signed distances of the grid's corners from the plane: all on one side.
    double lo = 1e300, hi = -1e300;
    for (int c = 0; c < 8; ++c)
    {
        Real3 local;
        for (int a = 0; a < 3; ++a)
            local[a] = ((c >> a) & 1) ? grid.dims[a] * grid.spacing_cm[a] : 0.0;
        Real3 const x = grid.to_physical(local);
        double d = 0;
        for (int a = 0; a < 3; ++a)
            d += (x[a] - plane.point_cm[a]) * plane.normal[a];
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    double const margin_cm = 1e-4;
    if (!(lo > margin_cm || hi < -margin_cm))
    {
        std::ostringstream os;
        os << "the scoring plane cuts the phantom's grid (its corners lie " << lo << " to " << hi
           << " cm from the plane): mcdose scores a phase space in the vacuum around the grid, "
              "where particles fly straight; move the plane at least 1 um outside the grid";
        throw InputError(study.study_file, "/outputs/phase_space/point_cm", os.str());
    }
}

template <class Real>
PhaseSpaceRecorder<Real>::PhaseSpaceRecorder(std::string const& path,
                                             PhaseSpaceOutputInput const& plane,
                                             GridGeometry const& grid,
                                             std::vector<std::string> const& comments)
    : path_(path), grid_(grid), writer_(std::make_unique<McplWriter>(path, "mcdose", comments))
{
    Real3 const p = grid.to_local(plane.point_cm);
    Real3 const n = grid.direction_to_local(plane.normal);
    for (int a = 0; a < 3; ++a)
    {
        point_local_[a] = Real(p[a]);
        normal_local_[a] = Real(n[a]);
    }
}

template <class Real>
PhaseSpaceRecorder<Real>::~PhaseSpaceRecorder() = default;

template <class Real>
typename PhaseSpaceRecorder<Real>::Buffer& PhaseSpaceRecorder<Real>::add_group(bool device)
{
    std::lock_guard<std::mutex> lock(mutex_);
    buffers_.push_back(std::make_unique<Buffer>());
    buffers_.back()->device = device;
    if (device)
        buffers_.back()->device_count = DeviceBuffer<unsigned long long>(1);
    return *buffers_.back();
}

template <class Real>
void PhaseSpaceRecorder<Real>::before_piece(Buffer& b, HistoryRange const& piece,
                                            TransportView<Real>& physics)
{
    // A first guess: two crossings per history, at most 2^20 (grown on overflow).
    std::size_t const guess = std::min<std::size_t>(
        std::size_t(1) << 20, std::size_t(2 * (piece.end - piece.begin) + 1024));
    PlaneCrossingView<Real>& v = physics.crossings;
    v.point_cm = point_local_;
    v.normal = normal_local_;
    if (b.device)
    {
        if (b.device_records.empty())
            b.device_records = DeviceBuffer<PlaneCrossing<Real>>(guess);
        b.device_count.zero();
        v.records = b.device_records.device_span();
        v.count = b.device_count.data();
    }
    else
    {
        if (b.host.empty())
            b.host.resize(guess);
        b.host_count = 0;
        v.records = make_span(b.host);
        v.count = &b.host_count;
    }
}

template <class Real>
bool PhaseSpaceRecorder<Real>::after_piece(Buffer& b)
{
    unsigned long long count = b.host_count;
    std::size_t const capacity = b.device ? b.device_records.size() : b.host.size();
    if (b.device)
        count = b.device_count.to_host().front();
    if (count > capacity)
    {
        std::size_t const grown = std::size_t(count + count / 4 + 1024);
        if (b.device)
            b.device_records = DeviceBuffer<PlaneCrossing<Real>>(grown);
        else
            b.host.resize(grown);
        std::lock_guard<std::mutex> lock(mutex_);
        ++regrown_;
        return false;
    }
    std::vector<PlaneCrossing<Real>> device_copy;
    PlaneCrossing<Real> const* records = b.host.data();
    if (b.device && count > 0)
    {
        device_copy.resize(count);
        device_copy_to_host(device_copy.data(), b.device_records.data(),
                            count * sizeof(PlaneCrossing<Real>));
        records = device_copy.data();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.insert(pending_.end(), records, records + count);
    return true;
}

namespace
{
std::int32_t pdg_code(ParticleType t)
{
    switch (t)
    {
    case ParticleType::photon:
        return PdgCode::photon;
    case ParticleType::electron:
        return PdgCode::electron;
    case ParticleType::positron:
        return PdgCode::positron;
    }
    return 0;
}
} // namespace

template <class Real>
void PhaseSpaceRecorder<Real>::flush_batch()
{
    std::lock_guard<std::mutex> lock(mutex_);
    // A history runs on one thread, which appends its crossings in order: a
    // stable sort by history gives the same order for any thread timing.
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](PlaneCrossing<Real> const& a, PlaneCrossing<Real> const& b)
                     { return a.history < b.history; });
    McplParticle out;
    for (PlaneCrossing<Real> const& c : pending_)
    {
        Particle<Real> const& p = c.particle;
        Real3 const x = grid_.to_physical(
            Real3{{double(p.position_cm[0]), double(p.position_cm[1]), double(p.position_cm[2])}});
        Real3 const d = grid_.direction_to_physical(
            Real3{{double(p.direction[0]), double(p.direction[1]), double(p.direction[2])}});
        out.pdg_code = pdg_code(p.type);
        out.energy_MeV = double(p.energy_MeV);
        out.weight = double(p.weight);
        for (int a = 0; a < 3; ++a)
        {
            out.position_cm[a] = x[a];
            out.direction[a] = d[a];
        }
        writer_->add(out);
    }
    pending_.clear();
}

template <class Real>
std::uint64_t PhaseSpaceRecorder<Real>::written() const
{
    return writer_->count();
}

template <class Real>
std::uint64_t PhaseSpaceRecorder<Real>::commit(std::uint64_t primary_histories)
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pending_.clear(); // a discarded batch's (a CPU piece cut by a stop drains its buffer)
    }
    std::uint64_t const n = writer_->count();
    writer_->commit(primary_histories);
    return n;
}

template class PhaseSpaceRecorder<float>;
template class PhaseSpaceRecorder<double>;
} // namespace mcdose
