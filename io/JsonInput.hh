//! \file io/JsonInput.hh
//! Reading user JSON with errors that name the file, the field (as a JSON
//! pointer), the allowed range and the fix; unknown fields are named with the
//! closest allowed spelling; malformed JSON is reported by line and column.
//!
//! Includes nlohmann/json: include only from `.json.cc` files (never from a
//! header that nvcc sees).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/Array3.hh"
#include "core/Assert.hh"
#include "io/InputError.hh"

namespace mcdose
{
//! Line and column (both 1-based) of a byte offset in a text.
struct TextPosition
{
    std::size_t line{1};
    std::size_t column{1};
};
TextPosition text_position(std::string const& text, std::size_t byte_offset);

//! Levenshtein edit distance (insertions, deletions, substitutions; Levenshtein 1966).
std::size_t edit_distance(std::string const& a, std::string const& b);

//! The candidate closest to `word` if it is a plausible misspelling
//! (distance <= max(1, len/3)), else empty.
std::string closest_spelling(std::string const& word, std::vector<std::string> const& candidates);

//! Deepest nesting of arrays and objects accepted in user JSON (a study
//! needs fewer than 10; the bound keeps recursive code such as dump() safe).
inline constexpr std::size_t max_json_depth = 64;

//! Parse JSON text. Syntax errors, numbers beyond the double range, nesting
//! deeper than max_json_depth and duplicate keys become InputError with line
//! and column (and the JSON pointer where one is known).
nlohmann::json parse_json_text(std::string const& text, std::string const& source_name);
//! Read and parse a JSON file (missing or unreadable file: InputError).
nlohmann::json parse_json_file(std::string const& path);

//! Allowed interval of a number, printed in messages as e.g. "> 0" or "in [0, 1]".
struct NumberRange
{
    double lo{-1e308};
    double hi{1e308};
    bool lo_open{false};
    bool hi_open{false};

    bool contains(double x) const;
    std::string describe() const;

    static NumberRange any() { return {}; }
    static NumberRange positive() { return {0, 1e308, true, false}; }
    static NumberRange non_negative() { return {0, 1e308, false, false}; }
    static NumberRange closed(double lo, double hi) { return {lo, hi, false, false}; }
    static NumberRange open_closed(double lo, double hi) { return {lo, hi, true, false}; }
};

//! A JSON value with its location (file and JSON pointer), for checked reading.
class JsonNode
{
  public:
    JsonNode(nlohmann::json const& value, std::string file, std::string pointer = "");

    nlohmann::json const& value() const { return *value_; }
    std::string const& file() const { return *file_; }
    std::string const& pointer() const { return pointer_; }
    //! Pointer for display ("/" for the document root).
    std::string where() const { return pointer_.empty() ? "/" : pointer_; }

    //! Throw an InputError at this node: "file: /pointer: problem".
    [[noreturn]] void fail(std::string const& problem) const;

    //!@{
    //! Structure
    void require_object(char const* what) const;
    bool has(std::string const& key) const;
    JsonNode child(std::string const& key) const; //!< required member
    std::optional<JsonNode> optional_child(std::string const& key) const;
    std::size_t array_size(std::size_t min_size, char const* what) const; //!< require an array
    JsonNode element(std::size_t i) const;
    //! Fail on any member not in `allowed`, suggesting the closest allowed name.
    void allow_only(std::initializer_list<char const*> allowed) const;
    //!@}

    //!@{
    //! Values of this node; `hint` completes the message ("; <hint>").
    double number(NumberRange range, char const* hint = nullptr) const;
    long long integer(long long lo, long long hi, char const* hint = nullptr) const;
    bool boolean() const;
    std::string string(char const* hint = nullptr) const;
    //! One of `choices` (a misspelling gets a suggestion).
    std::string choice(std::initializer_list<char const*> choices) const;
    Real3 real3(NumberRange range, char const* hint = nullptr) const;
    Int3 int3(long long lo, long long hi, char const* hint = nullptr) const;
    std::vector<double> numbers(std::size_t min_size, NumberRange range,
                                char const* hint = nullptr) const;
    //!@}

  private:
    JsonNode(nlohmann::json const& value, std::shared_ptr<std::string const> file,
             std::string pointer);

    nlohmann::json const* value_;
    std::shared_ptr<std::string const> file_;
    std::string pointer_;
};

//! Escape a key for use in a JSON pointer (RFC 6901: "~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string const& key);
} // namespace mcdose
