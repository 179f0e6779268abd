//! \file io/InputFile.hh
//! Opening user input files: only regular files are read (a directory, FIFO or
//! device given as an input is refused by name instead of blocking or being
//! reported as malformed content).
#pragma once

#include <string>

namespace mcdose
{
//! Throw InputError naming `path` unless it is an existing regular file
//! (symbolic links followed). `what` names the file in the message ("study
//! file", "image").
void require_regular_file(std::string const& path, char const* what);

//! The whole content of a regular file (require_regular_file, then read).
std::string read_input_file(std::string const& path, char const* what);
} // namespace mcdose
