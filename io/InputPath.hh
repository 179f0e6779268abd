//! \file io/InputPath.hh
//! Paths named in an input file are relative to that file's folder (as in TOPAS
//! parameter files and 3D Slicer scenes), so a study and its data move together.
#pragma once

#include <string>
#include <vector>

namespace mcdose
{
//! The folder of an input file ("" for a bare file name or an in-memory source).
std::string input_base_dir(std::string const& input_file);

//! `path` as written in an input file whose folder is `base_dir`: unchanged when absolute
//! or when `base_dir` is empty, else base_dir/path (lexically normalised).
std::string resolve_input_path(std::string const& path, std::string const& base_dir);
} // namespace mcdose

namespace mcdose
{
//! `path` made absolute and normalised, links resolved where they exist: for comparing
//! paths of files that may not exist yet.
std::string comparable_path(std::string const& path);

//! Do `a` and `b` name one file: the same comparable_path, or (both existing) the same
//! device and inode (a hard link, a link, another spelling)?
bool same_file(std::string const& a, std::string const& b);

//! A file a command reads or writes, and what it is to the user ("--json report").
struct NamedFile
{
    std::string path;
    std::string what;
};

//! Throw InputError naming the output when an output names one of `inputs` or another
//! output (same_file), before anything is written.
void refuse_outputs_over_inputs(std::vector<NamedFile> const& outputs,
                                std::vector<NamedFile> const& inputs);
} // namespace mcdose
