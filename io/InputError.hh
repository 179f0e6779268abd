//! \file io/InputError.hh
//! Error in user input located in a file and field (no third-party headers).
#pragma once

#include <string>

#include "core/Assert.hh"

namespace mcdose
{
//! A user-input error located in a file (one line: "file: /pointer: problem; fix").
class InputError : public RuntimeError
{
  public:
    InputError(std::string file, std::string pointer, std::string problem);
    std::string const& file() const { return file_; }
    //! JSON pointer of the offending field ("" for the whole document, or
    //! "line L, column C" for a syntax error).
    std::string const& pointer() const { return pointer_; }
    std::string const& problem() const { return problem_; }

  private:
    std::string file_;
    std::string pointer_;
    std::string problem_;
};

//! A name from the input (a key, a path, a structure name) as messages show it: whole up
//! to `max_chars`, else its start and its length ("abc... (70000 characters)"), so that a
//! hostile or broken file cannot flood the terminal or the log.
std::string shortened_name(std::string const& name, std::size_t max_chars = 80);

} // namespace mcdose
