//! \file dose/DoseHdf5.hh
//! The HDF5 result file. Names are stable (scripts rely on them); the layout is
//! documented in docs/output-files.md ("HDF5 file"):
//! - datasets `dose` [Gy per source particle], `dose_Gy` [Gy, only when the
//!   source gives a particle count], `dose_uncertainty` [relative, 1 sigma],
//!   `edep` [MeV per source particle], `density` [g/cm^3], `material`
//!   [index; attribute `names`], all shaped (nz, ny, nx) (C order, i fastest
//!   in the flat array), each with attributes `units`, `spacing_cm`,
//!   `origin_cm` (x, y, z order) and `direction`;
//! - group `input`: dataset `study_json` (the full input) and attribute `study_file`;
//! - group `run`: attributes version, seed, generator, tally method, precision,
//!   backend, histories, timing, stop reason, uncertainty reached, energy balance;
//! - group `dvh`: the dose report (summary region and each structure's figures).
//! Written through io/Hdf5File.hh, HDF5's thin typed adapter (its headers stay in io/).
#pragma once

#include <memory>
#include <string>

#include "dose/DoseData.hh"

namespace mcdose
{
/*!
 * One result file written in two phases, so that its grid datasets (most of the
 * work) can be made while the caller does other work, such as the dose report:
 * - the grid phase builds the file in memory (HDF5's core driver: nothing is on
 *   disk yet) with the root attributes and the grid datasets, from `data` and
 *   from these fields of `grid_meta`: version, complete, quantity,
 *   source_particles and absolute. With Start::background it runs on a thread
 *   of its own from the constructor on; with Start::deferred, in finish.
 * - finish(meta) waits for the grid phase and rethrows its error, if any; then
 *   adds the input echo, the run group and the DVH group from `meta` (whose
 *   grid fields must be those of `grid_meta`) and writes the file through a
 *   temporary renamed on success.
 * A writer destroyed without finish (an error elsewhere) stops its grid phase
 * after the slices in progress and discards the file. The HDF5 library serves
 * one thread at a time: while a background grid phase runs, the caller must not
 * use HDF5 (no other writer, DoseReader or HDF5 image). `data` must outlive the
 * writer.
 */
class DoseHdf5Writer
{
  public:
    enum class Start
    {
        background, //!< the grid phase on a thread of its own, from now on
        deferred    //!< the grid phase in finish, on the caller's thread
    };

    DoseHdf5Writer(std::string path, DoseGridData const& data, RunMetadata const& grid_meta,
                   Start start);
    ~DoseHdf5Writer();
    DoseHdf5Writer(DoseHdf5Writer const&) = delete;
    DoseHdf5Writer& operator=(DoseHdf5Writer const&) = delete;

    //! Complete the file from `meta` and write it to path() (once).
    void finish(RunMetadata const& meta);

    std::string const& path() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

//! Write the result file through a temporary file renamed on success (both
//! phases of DoseHdf5Writer on the caller's thread).
void write_dose_hdf5(std::string const& path, DoseGridData const& data, RunMetadata const& meta);
} // namespace mcdose
