//! \file study/TableCache.hh
//! The transport tables of a run, read from the table cache when a valid file for exactly
//! these inputs and this build is there, else built and stored for the next run.
//!
//! One file per table set, `<cache directory>/transport-tables-<SHA-256 of the key>.mcdc`,
//! where the key (transport_table_key) spells out every input: each material's composition,
//! density and I-value, the phantom's density range per material, every physics option and
//! grid the tables read, the element data (xraylib) version and the build (mcdose version,
//! SHA-256 of the table code, compiler and flags, C library and CPU math features). A file
//! is used only if its stored key equals the run's key in full and its SHA-256 checks; a
//! missing file is built, a corrupt, truncated or mismatched one is rebuilt with a warning. Files
//! are written atomically, so concurrent runs read whole files or none, and a cache that cannot be
//! written costs a warning, never the run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "transport/engine/TransportTables.hh"

namespace mcdose
{
//! Whether and where to cache.
struct TableCacheSettings
{
    bool enabled{true};
    std::string directory; //!< "": default_cache_directory() (io/CacheFile.hh)
};

//! What load_or_build_transport_tables did.
enum class TableCacheOutcome
{
    loaded, //!< read from a valid cache file
    stored, //!< no valid file: built and stored for the next run
    built   //!< built, not stored (the cache is off, or a warning says why)
};

struct TableCacheResult
{
    std::shared_ptr<TransportTables const> tables;
    TableCacheOutcome outcome{TableCacheOutcome::built};
    std::string path;                  //!< the cache file (empty when not stored)
    double seconds{0};                 //!< wall time to read or build (and store)
    std::vector<std::string> warnings; //!< an ignored file, a file that could not be written

    //! One line for the run summary ("read from <path> in 0.05 s", ...).
    std::string describe() const;
};

//! The tables of `inputs`: read from the cache when a valid file is there, else built and,
//! with the cache on, stored. Never throws for the cache (only for the build itself).
TableCacheResult load_or_build_transport_tables(TransportTableInputs const& inputs,
                                                TableCacheSettings const& settings);
} // namespace mcdose
