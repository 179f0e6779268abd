//! \file core/AtomicFile.hh
//! Write-to-temporary-then-rename, so a failed run never leaves a half file.
//!
//! Temporaries are named `<path>.tmp.<pid>`. While one exists it is listed in
//! a process-wide registry, so that an exit on a signal can remove it
//! (remove_registered_temporaries is async-signal-safe).
#pragma once

#include <functional>
#include <string>

namespace mcdose
{
//! Call `write(tmp_path)` to fill a temporary file beside `path`, then rename
//! it onto `path`. If `write` throws, or leaves no file, the temporary is
//! removed and the error propagates; `path` is untouched.
void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write);

//! Write a text string atomically.
void write_text_atomically(std::string const& path, std::string const& contents);

//! Lists a temporary file for removal on a signal while it exists (RAII).
class TemporaryFile
{
  public:
    explicit TemporaryFile(std::string const& path);
    ~TemporaryFile();
    TemporaryFile(TemporaryFile const&) = delete;
    TemporaryFile& operator=(TemporaryFile const&) = delete;

  private:
    int slot_{-1};
};

//! Unlink every registered temporary file. Async-signal-safe: for a handler
//! that ends the process at once.
void remove_registered_temporaries() noexcept;
} // namespace mcdose
