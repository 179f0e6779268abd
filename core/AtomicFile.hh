//! \file core/AtomicFile.hh
//! Write-to-temporary-then-rename, so a failed run never leaves a half file.
#pragma once

#include <functional>
#include <string>

namespace mcdose
{
//! Call `write(tmp_path)` to fill a temporary file beside `path`, then rename
//! it onto `path`. If `write` throws, the temporary is removed and the error
//! propagates; `path` is untouched.
void write_atomically(std::string const& path,
                      std::function<void(std::string const& tmp_path)> const& write);

//! Write a text string atomically.
void write_text_atomically(std::string const& path, std::string const& contents);
} // namespace mcdose
