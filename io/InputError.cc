//! \file io/InputError.cc
#include "io/InputError.hh"

#include <utility>

namespace mcdose
{
std::string shortened_name(std::string const& name, std::size_t max_chars)
{
    if (name.size() <= max_chars)
        return name;
    return name.substr(0, max_chars) + "... (" + std::to_string(name.size()) + " characters)";
}

InputError::InputError(std::string file, std::string pointer, std::string problem)
    : RuntimeError(shortened_name(file, 4096) + ": " +
                   (pointer.empty() ? std::string() : shortened_name(pointer, 200) + ": ") +
                   problem),
      file_(std::move(file)), pointer_(std::move(pointer)), problem_(std::move(problem))
{
}
} // namespace mcdose
