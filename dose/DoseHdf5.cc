//! \file dose/DoseHdf5.cc
//! The result file's layout, written through io/Hdf5File.hh (HDF5's thin typed adapter).
#include "dose/DoseHdf5.hh"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/ParallelFor.hh"
#include "io/Deflate.hh"
#include "io/Hdf5File.hh"

namespace mcdose
{
namespace
{
void attr_geometry(Hdf5Object const& obj, GridGeometry const& g)
{
    obj.write_attr_doubles("spacing_cm", g.spacing_cm.v, 3);
    obj.write_attr_doubles("origin_cm", g.origin_cm.v, 3);
    obj.write_attr_doubles("direction", g.direction, 9);
}

//! Deflate level of the dose volumes (HDF5's filter, H5Pset_deflate): the fastest. Dose
//! grids are runs of zeros with scattered values, or noisy doubles that hardly compress;
//! on a synthetic 512 x 512 slice of each, level 4 was 11 % and 0.6 % smaller and took
//! 1.6 and 1.1 times as long.
constexpr int deflate_level = 1;

/*!
 * One z-slice chunk deflated as HDF5's deflate filter deflates it (a zlib stream at
 * `deflate_level`; io/Deflate.hh stores what hardly deflates), or, where that is no
 * smaller, stored raw, as HDF5 stores a chunk whose optional filter was skipped
 * (`filter_mask` 1): readers see the same values either way.
 */
struct PackedChunk
{
    std::vector<unsigned char> bytes;
    std::uint32_t filter_mask{0};

    void pack(void const* raw, std::size_t raw_bytes, std::size_t element)
    {
        bytes = deflate_zlib(raw, raw_bytes, deflate_level, element);
        filter_mask = 0;
        if (bytes.size() < raw_bytes)
            return;
        auto const* first = static_cast<unsigned char const*>(raw);
        bytes.assign(first, first + raw_bytes);
        filter_mask = 1;
    }

    //! pack() of the elements `runs` spell (`raw_bytes` in all) where deflate_zlib_runs makes
    //! them smaller, without the elements: false where it does not (pack them then).
    bool pack_runs(std::vector<ElementRun> const& runs, std::size_t raw_bytes, std::size_t element)
    {
        std::optional<std::vector<unsigned char>> deflated = deflate_zlib_runs(runs, element);
        if (!deflated || deflated->size() >= raw_bytes)
            return false;
        bytes = std::move(*deflated);
        filter_mask = 0;
        return true;
    }
};

//! Where the grid datasets go, and the flag that stops their writing between slices.
struct GridFile
{
    Hdf5Group const& file;
    GridGeometry const& g;
    std::atomic<bool> const& stop;
};

//! Thrown by the grid phase when its writer stopped it (an abandoned file).
struct GridPhaseStopped
{
};

/*!
 * A 3D dataset (nz, ny, nx), chunked by z-slice and deflated, written one
 * z-slice at a time: `pack(k, slice, chunk)` makes slice k's chunk, with `slice` room for
 * its nx * ny values, so a derived grid (dose, uncertainty) never exists whole in memory. Each
 * thread fills and compresses the next slice no thread has taken, and whichever thread finishes one
 * writes the compressed slices that are next in order as raw chunks (H5Dwrite_chunk): no thread
 * waits for the others' slices (a short run's dose is in a few of them, which take the longest)
 * unless it is a window of slices ahead of the writing.
 */
template <class T, class Pack>
Hdf5Dataset write_volume_slices(GridFile const& out, char const* name, char const* units,
                                Pack&& pack)
{
    GridGeometry const& g = out.g;
    std::vector<std::uint64_t> const dims = {std::uint64_t(g.dims[2]), std::uint64_t(g.dims[1]),
                                             std::uint64_t(g.dims[0])};
    Hdf5Dataset const ds =
        out.file.create_chunked_dataset<T>(name, dims, {1, dims[1], dims[2]}, deflate_level);
    size_type const nz = dims[0], per_slice = dims[1] * dims[2];
    size_type const team = std::min<size_type>(nz, host_loop_threads(0));
    size_type const window = 2 * team; // compressed slices held at most
    std::vector<std::vector<T>> slices(team, std::vector<T>(per_slice)); // one per thread
    std::vector<PackedChunk> packed(window);                             // slice k: k % window
    std::vector<char> ready(window, 0);
    std::mutex mutex;
    std::condition_variable written_more;
    size_type written = 0; // the slices before it are in the file
    bool failed = false;
    std::atomic<size_type> next{0};
    // The compressed slices next in order, written under `mutex` (one writer at a time).
    auto const write_ready = [&]
    {
        for (; written < nz && ready[written % window]; ++written)
        {
            PackedChunk const& p = packed[written % window];
            MCDOSE_VALIDATE(ds.write_chunk({std::uint64_t(written), 0, 0}, p.filter_mask,
                                           p.bytes.data(), p.bytes.size()),
                            << "HDF5 could not write slice " << written << " of '" << name << "'");
            ready[written % window] = 0;
        }
    };
    auto const slices_of_thread = [&](size_type t)
    {
        for (size_type k = next++; k < nz; k = next++)
        {
            {
                std::unique_lock<std::mutex> lock(mutex);
                written_more.wait(lock, [&] { return failed || k < written + window; });
                if (failed)
                    return;
            }
            if (out.stop)
                throw GridPhaseStopped{};
            pack(k, slices[t].data(), packed[k % window]);
            std::lock_guard<std::mutex> lock(mutex);
            if (failed)
                return;
            ready[k % window] = 1;
            write_ready();
            written_more.notify_all();
        }
    };
    parallel_for_each(team,
                      [&](size_type t)
                      {
                          try
                          {
                              slices_of_thread(t);
                          }
                          catch (...)
                          {
                              {
                                  std::lock_guard<std::mutex> lock(mutex);
                                  failed = true;
                              }
                              written_more.notify_all();
                              throw;
                          }
                      });
    ds.write_attr_string("units", units);
    attr_geometry(ds, g);
    return ds;
}

/*!
 * The chunk of the `count` voxels from `first` whose values are value_of(v) for the voxels
 * of the data's energy mask and `empty` for the others, from the runs those make (the
 * empty gaps, each voxel with energy) where they make most of it: without filling the
 * slice nor scanning it for runs. Else (or without a mask) `slice` is filled and packed.
 */
template <class T, class ValueOf>
void pack_voxel_values(DoseGridData const& data, size_type first, size_type count, T empty,
                       ValueOf& value_of, T* slice, PackedChunk& chunk)
{
    auto const bytes = [](T const& x) { return reinterpret_cast<unsigned char const*>(&x); };
    if (!data.has_energy.empty())
    {
        size_type const end = first + count;
        std::uint64_t const* mask = data.has_energy.data();
        size_type const with_energy = count_bits_in(mask, first, end);
        // Where more than 1/4 of the voxels have energy, the runs make 3/4 of the slice only
        // if many equal neighbours join: filled and packed as a dense slice is.
        if (4 * with_energy <= count)
        {
            // The values of the voxels with energy, in order: reserved whole, so that the
            // runs may point at them as they come.
            std::vector<T> values;
            values.reserve(with_energy);
            std::vector<ElementRun> runs;
            runs.reserve(2 * with_energy + 1);
            size_type at = first; // the voxels before it are in the runs
            for (size_type w = first / 64; 64 * w < end; ++w)
            {
                for_each_set_bit(word_bits_in(mask, w, first, end), std::max(first, 64 * w),
                                 [&](size_type v)
                                 {
                                     if (v > at)
                                         runs.push_back({bytes(empty), v - at});
                                     values.push_back(static_cast<T>(value_of(v)));
                                     runs.push_back({bytes(values.back()), 1});
                                     at = v + 1;
                                 });
            }
            if (end > at)
                runs.push_back({bytes(empty), end - at});
            if (chunk.pack_runs(runs, count * sizeof(T), sizeof(T)))
                return;
        }
    }
    fill_voxel_values(data, first, first + count, slice, empty, value_of);
    chunk.pack(slice, count * sizeof(T), sizeof(T));
}

//! A dataset of one value per voxel, value_of(v), a slice per thread (write_volume_slices);
//! with `data`, value_of gives `empty` for every voxel without energy, and the data's
//! energy mask spares reading those (pack_voxel_values).
template <class T, class ValueOf>
Hdf5Dataset write_voxel_values(GridFile const& out, char const* name, char const* units,
                               ValueOf&& value_of, DoseGridData const* data = nullptr,
                               T empty = T{})
{
    size_type const per_slice = size_type(out.g.dims[0]) * size_type(out.g.dims[1]);
    return write_volume_slices<T>(out, name, units,
                                  [&](size_type k, T* slice, PackedChunk& chunk)
                                  {
                                      size_type const first = k * per_slice;
                                      if (data)
                                      {
                                          pack_voxel_values(*data, first, per_slice, empty,
                                                            value_of, slice, chunk);
                                          return;
                                      }
                                      for (size_type i = 0; i < per_slice; ++i)
                                          slice[i] = static_cast<T>(value_of(first + i));
                                      chunk.pack(slice, per_slice * sizeof(T), sizeof(T));
                                  });
}

//! A 1D dataset of doubles.
void dataset_doubles(Hdf5Group const& group, char const* name, std::vector<double> const& values,
                     char const* units)
{
    group.write_dataset(name, values).write_attr_string("units", units);
}

//! A figure as the attribute pair (value, sigma).
void attr_figure(Hdf5Object const& obj, char const* name, FigureWithSigma const& f)
{
    double const pair[2] = {f.value, f.sigma};
    obj.write_attr_doubles(name, pair, 2);
}

//! Group `dvh`: the summary region's figures as attributes and one group per
//! structure with its cumulative DVH (datasets `dose`, `volume_cm3`) and figures.
void write_dvh_group(Hdf5Group const& file, DoseReport const& report)
{
    if (!report.summary && report.dvhs.empty())
        return;
    Hdf5Group const dvh = file.create_group("dvh");
    dvh.write_attr_string("dose_unit", report.dose_unit);
    dvh.write_attr_string("figures", "attributes are (value, sigma); sigma NaN with fewer than 2 "
                                     "batches");
    if (report.summary)
    {
        RegionSummary const& r = *report.summary;
        dvh.write_attr_string("summary_region", r.region);
        dvh.write_attr_double("summary_near_max", r.near_max);
        dvh.write_attr_string("summary_near_max_definition", near_max_definition);
        if (r.mean_relative)
            dvh.write_attr_double("summary_mean_relative_uncertainty", *r.mean_relative);
        dvh.write_attr_double("low_density_threshold_g_cm3", r.low_density_threshold_g_cm3);
        dvh.write_attr_double("low_density_max", r.low_density_max);
    }
    for (DvhFigures const& f : report.dvhs)
    {
        std::string name = f.name;
        std::replace(name.begin(), name.end(), '/', '_');
        if (name.empty() || name == ".")
            name = "_";
        Hdf5Group const g = dvh.create_group(name.c_str());
        g.write_attr_string("origin", f.origin);
        g.write_attr_double("volume_cm3", f.volume_cm3);
        g.write_attr_u64("voxels", f.voxels);
        attr_figure(g, "D_mean", f.d_mean);
        attr_figure(g, "D_min", f.d_min);
        attr_figure(g, "D_0.03cc", f.d_003cc);
        attr_figure(g, "D98", f.d98);
        attr_figure(g, "D95", f.d95);
        attr_figure(g, "D50", f.d50);
        attr_figure(g, "D2", f.d2);
        if (!f.v_at.empty())
        {
            std::vector<double> at, v, v_sigma;
            for (auto const& x : f.v_at)
            {
                at.push_back(x.dose);
                v.push_back(x.volume_cm3.value);
                v_sigma.push_back(x.volume_cm3.sigma);
            }
            dataset_doubles(g, "v_at_dose", at, report.dose_unit.c_str());
            dataset_doubles(g, "v_at_volume_cm3", v, "cm^3");
            dataset_doubles(g, "v_at_volume_cm3_sigma", v_sigma, "cm^3 (1 sigma)");
        }
        dataset_doubles(g, "dose", f.curve_dose, report.dose_unit.c_str());
        dataset_doubles(g, "volume_cm3", f.curve_volume_cm3, "cm^3 receiving at least dose");
    }
}

//! What the dose is and in which unit (root attributes, docs/output-files.md).
void write_dose_quantity(Hdf5Group const& file, RunMetadata const& meta)
{
    file.write_attr_string("dose_to", meta.quantity.keyword());
    file.write_attr_string("dose_unit", dose_unit(meta));
    if (meta.quantity.to_water)
    {
        file.write_attr_string("dose_to_water_method", meta.quantity.method);
        file.write_attr_double("dose_to_water_spectrum_energy_MeV",
                               meta.quantity.spectrum_energy_MeV);
    }
    if (meta.source_particles)
        file.write_attr_string("source_particles_from", meta.absolute.description);
}

//! The run's facts: versions, settings, time, stopping and energy balance.
void write_run_group(Hdf5Group const& file, RunMetadata const& meta)
{
    Hdf5Group run = file.create_group("run");
    run.write_attr_string("version", meta.version);
    run.write_attr_string("started_utc", meta.started_utc);
    run.write_attr_u64("seed", meta.seed);
    run.write_attr_string("rng_generator", meta.rng_generator);
    run.write_attr_string("tally_method", meta.tally_method);
    run.write_attr_string("uncertainty_method", meta.uncertainty_method);
    run.write_attr_string("precision", meta.precision);
    run.write_attr_string("backend", meta.backend);
    run.write_attr_string("device", meta.device);
    run.write_attr_u64("histories", meta.histories);
    run.write_attr_double("wall_time_s", meta.wall_time_s);
    run.write_attr_double("transport_time_s", meta.transport_time_s);
    run.write_attr_double("histories_per_s", meta.transport_time_s > 0
                                                 ? double(meta.histories) / meta.transport_time_s
                                                 : 0.0);
    run.write_attr_int("complete", meta.complete ? 1 : 0);
    run.write_attr_string("stop_reason", to_cstring(meta.stop_reason));
    if (meta.beam_axis)
    {
        run.write_attr_doubles("beam_axis_point_cm", meta.beam_axis->point_cm.v, 3);
        run.write_attr_doubles("beam_axis_direction", meta.beam_axis->direction.v, 3);
    }
    if (meta.uncertainty_reached)
        run.write_attr_double("uncertainty_reached", *meta.uncertainty_reached);
    run.write_attr_double("uncertainty_dose_fraction", meta.uncertainty_dose_fraction);
    run.write_attr_double("energy_emitted_MeV", meta.energy.emitted_MeV);
    run.write_attr_double("energy_deposited_MeV", meta.energy.deposited_MeV);
    run.write_attr_double("energy_escaped_MeV", meta.energy.escaped_MeV);
    run.write_attr_double("energy_below_cutoff_MeV", meta.energy.below_cutoff_MeV);
    run.write_attr_double("energy_stack_overflow_MeV", meta.energy.overflow_MeV);
    run.write_attr_double("energy_rest_mass_MeV", meta.energy.rest_mass_MeV);
    run.write_attr_double("energy_relative_imbalance", meta.energy.relative_imbalance());
    run.close();
}

//! The root attributes: what the file is, the grid, and what the dose is.
void write_root_attributes(Hdf5Group const& file, GridGeometry const& g, RunMetadata const& meta)
{
    file.write_attr_string("format", "mcdose dose");
    file.write_attr_int("format_version", 1);
    file.write_attr_string("mcdose_version", meta.version);
    file.write_attr_int("complete", meta.complete ? 1 : 0);
    double const dims_xyz[3] = {double(g.dims[0]), double(g.dims[1]), double(g.dims[2])};
    file.write_attr_doubles("dimensions", dims_xyz, 3);
    attr_geometry(file, g);
    file.write_attr_string("array_order",
                           "datasets are (nz, ny, nx): index [k][j][i]; attributes are (x, y, z)");
    file.write_attr_string("origin_convention", "origin_cm is the centre of voxel (0, 0, 0)");
    write_dose_quantity(file, meta);
}

//! Dataset `material` with its attributes `names` (and the stopping-power ratios).
void write_material_dataset(GridFile const& out, DoseGridData const& data, RunMetadata const& meta)
{
    static_assert(sizeof(MaterialIndex) == 2, "material dataset is written as uint16");
    auto mat =
        write_voxel_values<MaterialIndex>(out, "material", "index into the attribute 'names'",
                                          [&](size_type v) { return data.material[v]; });
    mat.write_attr_strings("names", data.material_names);
    if (meta.quantity.to_water)
    {
        MCDOSE_VALIDATE(data.material_dose_factor.size() >= data.material_names.size(),
                        << "internal: dose to water without a factor per material");
        mat.write_attr_doubles("water_to_medium_stopping_power_ratio",
                               data.material_dose_factor.data(), data.material_names.size());
    }
    mat.close();
}

//! The grid datasets: dose, dose_Gy, dose_uncertainty, edep, density, material.
void write_grid_datasets(GridFile const& out, DoseGridData const& data, RunMetadata const& meta)
{
    auto const dose = [&](size_type v) { return voxel_dose_gy_per_particle(data, v); };
    auto per_particle = write_voxel_values<double>(out, "dose", "Gy per source particle", dose,
                                                   &data, dose_without_energy);
    per_particle.write_attr_string("quantity", meta.quantity.name());
    per_particle.close();
    if (meta.source_particles)
    {
        double const particles = *meta.source_particles;
        auto ds = write_voxel_values<double>(
            out, "dose_Gy", "Gy", [&](size_type v) { return dose(v) * particles; }, &data,
            dose_without_energy * particles);
        ds.write_attr_double("source_particles", particles);
        ds.write_attr_string("quantity", meta.quantity.name());
        ds.write_attr_string("source_particles_from", meta.absolute.description);
        if (meta.absolute.monitor_units > 0)
            ds.write_attr_double("monitor_units", meta.absolute.monitor_units);
        ds.close();
    }
    write_voxel_values<double>(
        out, "dose_uncertainty", "relative (1 sigma); 1 where no energy was deposited",
        [&](size_type v) { return voxel_relative_uncertainty(data, v); }, &data,
        relative_uncertainty_without_energy);
    write_voxel_values<double>(
        out, "edep", "MeV per source particle", [&](size_type v) { return data.edep_MeV[v]; },
        &data, 0.0);
    write_voxel_values<float>(out, "density", "g/cm^3",
                              [&](size_type v) { return data.density_g_cm3[v]; });
    write_material_dataset(out, data, meta);
}

//! The rest of the file (input echo, run group, DVH group); closes it, its bytes left at
//! file.image(), and returns their number.
std::size_t complete_file(Hdf5MemoryFile& file, RunMetadata const& meta)
{
    Hdf5Group input = file.create_group("input");
    input.write_attr_string("study_file", meta.study_file);
    input.write_string_dataset("study_json", meta.study_json).close();

    write_run_group(file, meta);
    input.close();
    write_dvh_group(file, meta.report);
    return file.close_image();
}

//! Run `f`, turning an HDF5 error into a RuntimeError that names the file.
template <class F>
void with_hdf5_errors(std::string const& path, F&& f)
{
    try
    {
        f();
    }
    catch (Hdf5Error const& e)
    {
        MCDOSE_VALIDATE(false, << "cannot write HDF5 file '" << path << "': " << e.function()
                               << ": " << e.detail());
    }
}

//! The file's `size` bytes at `bytes` written to `path` through a temporary renamed on
//! success.
void write_file_image(std::string const& path, void const* bytes, std::size_t size)
{
    write_bytes_atomically(path, bytes, size);
}
} // namespace

/*!
 * The file is built in memory (HDF5's core driver, no backing store: Hdf5MemoryFile) and
 * its bytes are written with checked writes. HDF5 1.10 handles a failed write to disk
 * badly: objects whose close failed stay half-closed, and closing them again, as its exit
 * handler does, crashes the process (SIGSEGV at exit after a full disk). In memory nothing
 * can fail that way. The cost is the file's size (compressed) in memory while it is
 * written (from the driver's memory).
 */
struct DoseHdf5Writer::Impl
{
    Impl(std::string p, DoseGridData const& d, RunMetadata const& m, bool b)
        : path(std::move(p)), data(d), grid_meta(m), background(b)
    {
    }

    std::string path;
    DoseGridData const& data;
    RunMetadata grid_meta;
    bool background;
    std::unique_ptr<Hdf5MemoryFile> file; //!< the file and its bytes
    std::atomic<bool> stop{false};
    std::future<void> grids; //!< the grid phase; invalid once finish took it

    //! The file in memory with its root attributes and grid datasets.
    void write_grids()
    {
        validate_dose_data(data);
        with_hdf5_errors(
            path,
            [&]
            {
                file = std::make_unique<Hdf5MemoryFile>(path);
                write_root_attributes(*file, data.geometry, grid_meta);
                write_grid_datasets(GridFile{*file, data.geometry, stop}, data, grid_meta);
            });
    }
};

DoseHdf5Writer::DoseHdf5Writer(std::string path, DoseGridData const& data,
                               RunMetadata const& grid_meta, Start start)
    : impl_(std::make_unique<Impl>(std::move(path), data, grid_meta, start == Start::background))
{
    impl_->grids = std::async(impl_->background ? std::launch::async : std::launch::deferred,
                              [impl = impl_.get()] { impl->write_grids(); });
}

DoseHdf5Writer::~DoseHdf5Writer()
{
    // A deferred grid phase never started; a background one stops at its next slices.
    impl_->stop = true;
    if (impl_->background && impl_->grids.valid())
        impl_->grids.wait();
}

void DoseHdf5Writer::finish(RunMetadata const& meta)
{
    MCDOSE_VALIDATE(impl_->grids.valid(),
                    << "internal: HDF5 file '" << impl_->path << "' finished twice");
    MCDOSE_EXPECT(meta.version == impl_->grid_meta.version &&
                  meta.complete == impl_->grid_meta.complete &&
                  meta.source_particles == impl_->grid_meta.source_particles);
    impl_->grids.get(); // the grid phase's error, if any, from here
    std::size_t size = 0;
    with_hdf5_errors(impl_->path, [&] { size = complete_file(*impl_->file, meta); });
    write_file_image(impl_->path, impl_->file->image(), size);
    impl_->file.reset();
}

std::string const& DoseHdf5Writer::path() const
{
    return impl_->path;
}

void write_dose_hdf5(std::string const& path, DoseGridData const& data, RunMetadata const& meta)
{
    DoseHdf5Writer writer(path, data, meta, DoseHdf5Writer::Start::deferred);
    writer.finish(meta);
}
} // namespace mcdose
