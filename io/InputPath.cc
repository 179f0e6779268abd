//! \file io/InputPath.cc
#include "io/InputPath.hh"

#include <filesystem>

namespace mcdose
{
std::string input_base_dir(std::string const& input_file)
{
    return std::filesystem::path(input_file).parent_path().string();
}

std::string resolve_input_path(std::string const& path, std::string const& base_dir)
{
    std::filesystem::path const p(path);
    if (p.is_absolute() || base_dir.empty())
        return path;
    return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}
} // namespace mcdose
