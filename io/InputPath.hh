//! \file io/InputPath.hh
//! Paths named in an input file are relative to that file's folder (as in TOPAS
//! parameter files and 3D Slicer scenes), so a study and its data move together.
#pragma once

#include <string>

namespace mcdose
{
//! The folder of an input file ("" for a bare file name or an in-memory source).
std::string input_base_dir(std::string const& input_file);

//! `path` as written in an input file whose folder is `base_dir`: unchanged when absolute
//! or when `base_dir` is empty, else base_dir/path (lexically normalised).
std::string resolve_input_path(std::string const& path, std::string const& base_dir);
} // namespace mcdose
