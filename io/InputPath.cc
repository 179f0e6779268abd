//! \file io/InputPath.cc
#include "io/InputPath.hh"

#include <filesystem>
#include <sys/stat.h>

#include "io/InputError.hh"

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

namespace mcdose
{
std::string comparable_path(std::string const& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path const absolute = fs::absolute(path, ec);
    if (ec)
        return fs::path(path).lexically_normal().string();
    fs::path const p = fs::weakly_canonical(absolute, ec);
    return ec ? absolute.lexically_normal().string() : p.string();
}

bool same_file(std::string const& a, std::string const& b)
{
    if (comparable_path(a) == comparable_path(b))
        return true;
    struct stat sa = {}, sb = {};
    return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void refuse_outputs_over_inputs(std::vector<NamedFile> const& outputs,
                                std::vector<NamedFile> const& inputs)
{
    for (std::size_t i = 0; i < outputs.size(); ++i)
    {
        NamedFile const& out = outputs[i];
        for (NamedFile const& in : inputs)
        {
            if (!out.path.empty() && !in.path.empty() && same_file(out.path, in.path))
            {
                throw InputError(out.path, "",
                                 "the " + out.what + " would overwrite the " + in.what + " '" +
                                     in.path + "'; choose another file name");
            }
        }
        for (std::size_t j = 0; j < i; ++j)
        {
            if (!out.path.empty() && same_file(out.path, outputs[j].path))
            {
                throw InputError(out.path, "",
                                 "the " + out.what + " and the " + outputs[j].what +
                                     " are one file; give each its own name");
            }
        }
    }
}
} // namespace mcdose
