//! \file io/InputError.cc
#include "io/InputError.hh"

#include <utility>

namespace mcdose
{
InputError::InputError(std::string file, std::string pointer, std::string problem)
    : RuntimeError(file + ": " + (pointer.empty() ? std::string() : pointer + ": ") + problem),
      file_(std::move(file)), pointer_(std::move(pointer)), problem_(std::move(problem))
{
}
} // namespace mcdose
