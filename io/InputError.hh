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

} // namespace mcdose
