//! \file io/InputFile.hh
//! Opening user input files: only regular files of a bounded size are read. A directory,
//! FIFO, socket or device given as an input is refused by name instead of blocking (it is
//! opened without waiting for a writer) or being reported as malformed content; a file
//! larger than its kind may be is refused before it is read.
#pragma once

#include <cstdint>
#include <string>

#include "core/RegularFile.hh"

namespace mcdose
{
//! Size limits by kind of input (bytes).
inline constexpr std::uint64_t text_input_limit = std::uint64_t(256) << 20; //!< JSON, CSV
inline constexpr std::uint64_t data_input_limit = std::uint64_t(64) << 30;  //!< images, data

//! Open `path` for reading (without waiting on a FIFO, not following a last link where
//! `follow_link` is false) and check with fstat that it is a regular file of at most
//! `max_bytes` (core/RegularFile.hh). Throws InputError naming `path`; `what` names the
//! file ("study file").
FileHandle open_input_file(std::string const& path, char const* what, std::uint64_t max_bytes,
                           bool follow_link = true);

//! The whole content of a file opened by open_input_file.
std::string read_opened_file(FileHandle fd, std::string const& path, char const* what);

//! Throw InputError naming `path` unless it is an existing regular file of at most
//! `max_bytes` (symbolic links followed): for files a library opens by name.
void require_regular_file(std::string const& path, char const* what,
                          std::uint64_t max_bytes = data_input_limit);

//! The whole content of a regular file of at most `max_bytes`.
std::string read_input_file(std::string const& path, char const* what,
                            std::uint64_t max_bytes = text_input_limit);
} // namespace mcdose
