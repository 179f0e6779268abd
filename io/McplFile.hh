//! \file io/McplFile.hh
//! MCPL phase-space files (Monte Carlo Particle Lists: Kittelmann et al.,
//! Comput. Phys. Commun. 218 (2017) 17; the Debian libmcpl): a thin adapter
//! that keeps mcpl.h out of every other file. Particles as MCPL stores them:
//! PDG code, kinetic energy [MeV], position [cm], unit direction, weight.
//!
//! libmcpl reports a bad file (missing, not MCPL, truncated, unreadable) through
//! an error handler that must not return; this adapter's handler throws, so each
//! such file is a RuntimeError naming the file and libmcpl's message. (libmcpl is
//! C; on x86-64 its frames carry unwind tables, so the exception passes through
//! them. The file handle of a file that failed is not closed.)
//!
//! Built without MCPL (cmake -DMCDOSE_USE_MCPL=OFF, or libmcpl-dev missing),
//! every function here throws an error naming the rebuild option.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mcdose
{
//! Whether this build reads and writes MCPL files, and libmcpl's version ("" if not).
bool mcpl_available();
std::string mcpl_version();

//! PDG Monte Carlo particle numbers of the particles mcdose transports.
struct PdgCode
{
    static constexpr std::int32_t photon = 22;
    static constexpr std::int32_t electron = 11;
    static constexpr std::int32_t positron = -11;
};

//! One particle as an MCPL file stores it.
struct McplParticle
{
    std::int32_t pdg_code{0};
    double energy_MeV{0};
    double position_cm[3]{0, 0, 0};
    double direction[3]{0, 0, 1};
    double weight{1};
};

//! Reads an MCPL file particle by particle (streaming: a block of records at most is kept),
//! uncompressed or gzipped (.mcpl.gz, inflated by mcdose through zlib: Debian's libmcpl
//! reads no gzip).
class McplReader
{
  public:
    //! Open and read the header, checked before libmcpl sees it (io/McplHeader.hh);
    //! throws RuntimeError ("<path>: <what>; <fix>") for a missing, unreadable, not
    //! regular or non-MCPL file, a corrupt header or one whose particle count disagrees
    //! with the file's length (unless `recover`: then the whole records there are are
    //! read). `blocks` false: libmcpl reads every particle (what the block decoding is
    //! tested against). `scanned`: the file was read whole and checked before (a run's
    //! readers after the study's scan), so the header's count is taken as it is and a file
    //! cut since is reported where the particles it lacks are read.
    explicit McplReader(std::string const& path, bool blocks = true, bool recover = false,
                        bool scanned = false);
    ~McplReader();
    McplReader(McplReader const&) = delete;
    McplReader& operator=(McplReader const&) = delete;

    std::string const& path() const { return path_; }
    //! Particles to read: the header's count (or, recovering, the whole records there are).
    std::uint64_t size() const { return size_; }
    //! The primary histories the header records (io/McplHeader.hh), 0 if it does not.
    std::uint64_t primary_histories() const;
    //! Whether the file is gzipped (io/GzipStream.hh: read as a stream, so going back
    //! inflates it again from its start).
    bool compressed() const;
    //! The generating application's name in the header.
    std::string const& source_name() const { return source_name_; }

    //! The next particle; false at the end. Throws RuntimeError if the file
    //! ends early or cannot be read (a truncated or corrupt file).
    bool read(McplParticle& particle);
    //! Index of the particle the next read() returns.
    std::uint64_t position() const;
    //! Make `index` (<= size()) the next particle read.
    void seek(std::uint64_t index);
    //! Whether the records are read and decoded here, a block at a time
    //! (io/McplRecords.hh), rather than by libmcpl one at a time (a gzipped file, an
    //! older format or the other byte order).
    bool reads_blocks() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_;
    std::uint64_t size_{0};
    std::string source_name_;
};

/*!
 * Writes an MCPL file atomically: into a temporary beside `path` (listed for
 * removal on a signal, core/AtomicFile.hh), renamed onto `path` by commit().
 * A writer destroyed without commit() removes its temporary, so a failed run
 * leaves no file. Single precision (MCPL's default: 7 significant digits),
 * per-particle PDG codes and weights.
 */
class McplWriter
{
  public:
    //! The header's first comment is kept for the primary history count (commit); the
    //! `comments` follow it.
    McplWriter(std::string const& path, std::string const& source_name,
               std::vector<std::string> const& comments);
    ~McplWriter();
    McplWriter(McplWriter const&) = delete;
    McplWriter& operator=(McplWriter const&) = delete;

    void add(McplParticle const& particle);
    std::uint64_t count() const { return count_; }
    //! Close and rename onto the final path, with the primary histories that made the
    //! particles recorded in the header's first comment (io/McplHeader.hh
    //! mcpl_primary_histories; 0: not recorded).
    void commit(std::uint64_t primary_histories = 0);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string path_;
    std::uint64_t count_{0};
};
} // namespace mcdose
