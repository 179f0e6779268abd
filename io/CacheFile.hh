//! \file io/CacheFile.hh
//! Files of data that a run can rebuild from its inputs (the physics tables), kept between
//! runs. A file names its kind and the full text of the key it was built for, and ends with
//! the SHA-256 of everything before it; it is written to a temporary and renamed, so a
//! reader sees a whole file or none, and concurrent writers of one key each leave a whole
//! file. A file that is missing, truncated, corrupt, of another format or built for another
//! key, or that another user could have written, is reported as such, never returned.
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

//! Why files in `directory` cannot be trusted ("" when they can, or when it does not exist
//! yet): it must be a directory of this user that no one else can write.
std::string cache_directory_problem(std::string const& directory);

//! What reading a cache file found.
struct CacheFileRead
{
    std::optional<std::string> payload; //!< the data, when the file is valid for the key
    bool exists{false};                 //!< a file was there (valid or not)
    std::string problem;                //!< why an existing file was not used
};

//! Read `path`, written by write_cache_file with the same `kind` and `key`. Only a
//! regular file (not a link, FIFO or device) of this user that no one else can write
//! is read; any other is reported as a problem.
CacheFileRead read_cache_file(std::string const& path, std::string const& kind,
                              std::string const& key);

//! Write `payload` for `kind` and `key` to `path` atomically (mode 0600), creating its
//! directory (mode 0700); refused where the directory cannot be trusted.
//! Throws (with the path and the reason) when the file cannot be written.
void write_cache_file(std::string const& path, std::string const& kind, std::string const& key,
                      std::string const& payload);
} // namespace mcdose
