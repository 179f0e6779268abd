//! \file io/CacheFile.hh
//! Files of data that a run can rebuild from its inputs (the physics tables), kept between
//! runs. A file names its kind and the full text of the key it was built for, and ends with
//! the SHA-256 of everything before it; it is written to a temporary and renamed, so a
//! reader sees a whole file or none, and concurrent writers of one key each leave a whole
//! file. A file that is missing, truncated, corrupt, of another format or built for another
//! key is reported as such, never returned.
#pragma once

#include <optional>
#include <string>

namespace mcdose
{
//! Environment variable naming the cache directory.
inline constexpr char const cache_directory_variable[] = "MCDOSE_CACHE_DIR";

//! Where cached files go: $MCDOSE_CACHE_DIR if set and not empty, else
//! $XDG_CACHE_HOME/mcdose, else $HOME/.cache/mcdose; "" when none of these is set.
std::string default_cache_directory();

//! The file in `directory` for `key`: `<stem>-<SHA-256 of key, 64 hex digits>.mcdc`.
std::string cache_file_path(std::string const& directory, std::string const& stem,
                            std::string const& key);

//! What reading a cache file found.
struct CacheFileRead
{
    std::optional<std::string> payload; //!< the data, when the file is valid for the key
    bool exists{false};                 //!< a file was there (valid or not)
    std::string problem;                //!< why an existing file was not used
};

//! Read `path`, written by write_cache_file with the same `kind` and `key`.
CacheFileRead read_cache_file(std::string const& path, std::string const& kind,
                              std::string const& key);

//! Write `payload` for `kind` and `key` to `path` atomically, creating its directory.
//! Throws (with the path and the reason) when the file cannot be written.
void write_cache_file(std::string const& path, std::string const& kind, std::string const& key,
                      std::string const& payload);
} // namespace mcdose
