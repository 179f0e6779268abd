//! \file core/RegularFile.hh
//! Opening a file to read: only a regular file of a bounded size. A directory, FIFO,
//! socket or device is refused at once (a FIFO is opened without waiting for a writer);
//! a file larger than `max_bytes` is refused before it is read. io/InputFile.hh gives
//! these as input errors; layers that read no user input but their own files (a
//! checkpoint) use them directly.
#pragma once

#include <cstdint>
#include <string>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"

namespace mcdose
{
//! Why a file cannot be read as asked (the message is the problem alone, without the path).
class RegularFileError : public RuntimeError
{
  public:
    using RuntimeError::RuntimeError;
};

//! Open `path` for reading (without waiting on a FIFO; not following a last link where
//! `follow_link` is false) and check with fstat that it is a regular file of at most
//! `max_bytes`; `what` names the file ("checkpoint"). Throws RegularFileError.
FileHandle open_regular_file(std::string const& path, char const* what, std::uint64_t max_bytes,
                             bool follow_link = true);

//! The whole content of a file opened by open_regular_file. Throws RegularFileError.
std::string read_opened_file(FileHandle fd, char const* what);
} // namespace mcdose
