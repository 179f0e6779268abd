//! Fuzzing the study reader and checks (load, parse, every check `mcdose
//! check` makes, the phantom built): structural mutants of every example
//! study (each field removed, or replaced by a value of another type or an
//! extreme value) and text-level mutants (truncation, deep nesting, numbers
//! beyond the double range, duplicate keys, byte flips), from fixed seeds.
//! Every input must end in success or a RuntimeError whose message leaks no
//! library text, print nothing on stderr, and take well under a second.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "StderrToFile.hh"
#include "StudyFixture.hh"
#include "TestMacros.hh"
#include "io/JsonInput.hh"
#include "study/StudyChecks.hh"

namespace mcdose::test
{
namespace
{
using nlohmann::json;

std::string read_text(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

//! Pointers of every value in `j` (the root excluded).
void collect_pointers(json const& j, std::string const& at, std::vector<std::string>* out)
{
    if (j.is_object())
    {
        for (auto const& item : j.items())
        {
            std::string const p = at + "/" + escape_pointer_token(item.key());
            out->push_back(p);
            collect_pointers(item.value(), p, out);
        }
    }
    else if (j.is_array())
    {
        for (std::size_t i = 0; i < j.size(); ++i)
        {
            std::string const p = at + "/" + std::to_string(i);
            out->push_back(p);
            collect_pointers(j[i], p, out);
        }
    }
}

//! Replacement values: other types, extremes, empties.
std::vector<json> replacement_values()
{
    return {nullptr,
            true,
            -1,
            0,
            1e308,
            -1e308,
            5e-324,
            1e16,
            4294967297.,
            "",
            "x",
            "../../etc",
            json::array(),
            json::object(),
            json::array({1, 2, 3}),
            json::array({-1e300, 0, 1e300}),
            18446744073709551615ull,
            -9223372036854775807ll};
}

std::vector<std::string> structural_mutants(std::string const& text, std::mt19937_64& rng)
{
    json const doc = json::parse(text);
    std::vector<std::string> pointers;
    collect_pointers(doc, "", &pointers);
    auto const values = replacement_values();
    std::vector<std::string> out;
    for (auto const& p : pointers)
    {
        json::json_pointer const ptr(p);
        // Remove the member or element.
        json r = doc;
        json& parent = r[ptr.parent_pointer()];
        if (parent.is_object())
            parent.erase(ptr.back());
        else
            parent.erase(std::stoul(ptr.back()));
        out.push_back(r.dump());
        // Three replacements per value, chosen by the seed.
        for (int k = 0; k < 3; ++k)
        {
            json m = doc;
            m[ptr] = values[rng() % values.size()];
            out.push_back(m.dump());
        }
    }
    return out;
}

std::vector<std::string> text_mutants(std::string const& text, std::mt19937_64& rng)
{
    std::vector<std::string> out;
    for (int k = 0; k < 12; ++k) // truncations
        out.push_back(text.substr(0, rng() % text.size()));
    out.push_back(std::string(100000, '[') + std::string(100000, ']'));
    std::string deep = text;
    deep.insert(deep.find('{') + 1, "\"materials\": " + std::string(100000, '[') + "1" +
                                        std::string(100000, ']') + ",");
    out.push_back(deep);
    for (char const* big : {"1e400", "-1e400", "123456789012345678901234567890", "1e-400"})
    {
        for (int k = 0; k < 4; ++k)
        {
            // Replace the k-th number of the text.
            std::string t = text;
            std::size_t pos = 0;
            for (int n = 0; n <= k && pos != std::string::npos; ++n)
                pos = t.find_first_of("0123456789", pos + (n ? 1 : 0));
            if (pos == std::string::npos)
                break;
            std::size_t end = t.find_first_not_of("0123456789.eE+-", pos);
            out.push_back(t.replace(pos, end - pos, big));
        }
    }
    for (char const* key : {"phantom", "run", "sources", "outputs", "rng"})
    {
        std::string t = text; // the key again at the top
        t.insert(t.find('{') + 1, std::string("\"") + key + "\": {},");
        out.push_back(t);
    }
    for (int k = 0; k < 40; ++k) // byte flips
    {
        std::string t = text;
        t[rng() % t.size()] = static_cast<char>(rng() % 256);
        out.push_back(t);
    }
    return out;
}

//! Library text that must never reach a user.
bool leaks_library_text(std::string const& message)
{
    for (char const* marker : {"json.exception", "[json", "itk::", "H5", "basic_string",
                               "std::", "vector::", "stoi", "stod", "terminate", "Assertion"})
    {
        if (message.find(marker) != std::string::npos)
            return true;
    }
    return false;
}

//! CPU time of this process (all its threads) so far [s].
double process_cpu_s()
{
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}
} // namespace

using StudyFuzzTest = StudyFixture;

TEST_F(StudyFuzzTest, MutantsOfEveryExampleNeverCrashHangOrLeak)
{
    std::mt19937_64 rng(20240527);
    std::size_t inputs = 0, refused = 0;
    double slowest_s = 0;
    std::string slowest;
    std::vector<std::string> failures;
    StderrToFile capture((dir_ / "stderr.txt").string());
    auto const t0 = std::chrono::steady_clock::now();
    double const cpu0_s = process_cpu_s();
    for (char const* example :
         {"examples/water_20MeV_electrons.json", "examples/slab_6MeV_photons.json",
          "examples/synthetic_ct.json", "validation/archer_tests/test2.json"})
    {
        // Parsed as if it were the example file (so its image resolves), never written.
        std::string const path = source_dir() + "/" + example;
        std::string const text = read_text(path);
        auto mutants = structural_mutants(text, rng);
        for (auto& m : text_mutants(text, rng))
            mutants.push_back(std::move(m));
        for (auto const& mutant : mutants)
        {
            ++inputs;
            double const start_s = process_cpu_s();
            try
            {
                std::vector<std::string> warnings;
                check_study(parse_study(mutant, path), &warnings);
            }
            catch (RuntimeError const& e)
            {
                ++refused;
                if (leaks_library_text(e.what()))
                    failures.push_back(std::string("leaked: ") + e.what());
            }
            catch (std::exception const& e)
            {
                failures.push_back(std::string("not a RuntimeError: ") + e.what());
            }
            double const s = process_cpu_s() - start_s;
            if (s > slowest_s)
            {
                slowest_s = s;
                slowest = mutant.substr(0, 200);
            }
        }
    }
    double const total_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string const printed = capture.restore();
    std::printf("fuzz: %zu inputs (%zu refused) in %.2f s (%.2f s of CPU); slowest %.3f s of CPU\n",
                inputs, refused, total_s, process_cpu_s() - cpu0_s, slowest_s);
    EXPECT_GE(inputs, 1000u);
    EXPECT_GT(refused, inputs / 2); // the mutants exercise the error paths
    EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: "
                                  << (failures.empty() ? "" : failures.front());
    EXPECT_TRUE(printed.empty()) << "printed on stderr: " << printed.substr(0, 500);
    // CPU time, not wall time: a mutant that loops shows, a machine's load does not.
    EXPECT_LT(slowest_s, 2.0) << "slowest input: " << slowest;
}
} // namespace mcdose::test
