//! \file app/JsonRecords.hh
//! `--json FILE` of the benchmark commands: records as a JSON array, written atomically.
#pragma once

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/AtomicFile.hh"

namespace mcdose::app
{
//! Write `to_json(r)` of every record as a JSON array to `path` (nothing if
//! empty); `announce` prints "wrote PATH".
template <class Records, class ToJson>
void write_json_records(std::string const& path, Records const& records, ToJson&& to_json,
                        bool announce = true)
{
    if (path.empty())
        return;
    nlohmann::json j = nlohmann::json::array();
    for (auto const& r : records)
        j.push_back(to_json(r));
    write_text_atomically(path, j.dump(2) + "\n");
    if (announce)
        std::cout << "wrote " << path << '\n';
}
} // namespace mcdose::app
