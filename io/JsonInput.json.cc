//! \file io/JsonInput.json.cc
#include "io/JsonInput.hh"

#include "io/InputFile.hh"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace mcdose
{
namespace
{
std::string format_number(double x)
{
    std::ostringstream os;
    os << x;
    return os.str();
}

std::string join(std::vector<std::string> const& words)
{
    std::string out;
    for (auto const& w : words)
        out += (out.empty() ? "" : ", ") + w;
    return out;
}

//! Start of the token that ends at `last` (nlohmann reports the byte after
//! the unexpected token; an editor should show where the token begins).
std::size_t token_start(std::string const& text, std::size_t last)
{
    if (last >= text.size())
        return text.empty() ? 0 : text.size() - 1;
    if (text[last] == '"')
    {
        // Back to the opening quote of a string literal (skip escaped quotes).
        for (std::size_t i = last; i-- > 0;)
        {
            if (text[i] == '"' && (i == 0 || text[i - 1] != '\\'))
                return i;
        }
        return last;
    }
    auto is_word = [](char c)
    { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; };
    std::size_t i = last;
    while (i > 0 && is_word(text[i]) && is_word(text[i - 1]))
        --i;
    return i;
}

std::string with_hint(std::string problem, char const* hint)
{
    if (hint && *hint)
        problem += std::string("; ") + hint;
    return problem;
}
} // namespace

TextPosition text_position(std::string const& text, std::size_t byte_offset)
{
    TextPosition pos;
    std::size_t const end = std::min(byte_offset, text.size());
    for (std::size_t i = 0; i < end; ++i)
    {
        if (text[i] == '\n')
        {
            ++pos.line;
            pos.column = 1;
        }
        else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80)
        {
            // Count characters, not UTF-8 continuation bytes.
            ++pos.column;
        }
    }
    return pos;
}

std::size_t edit_distance(std::string const& a, std::string const& b)
{
    // Wagner-Fischer dynamic programme, one row at a time.
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            std::size_t const up = row[j];
            std::size_t const subst = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, subst});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string closest_spelling(std::string const& word, std::vector<std::string> const& candidates)
{
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(1, word.size() / 3) + 1;
    for (auto const& c : candidates)
    {
        // A truncated name (e.g. "spacing" for "spacing_cm") is a plausible slip.
        if (word.size() >= 4 && c.compare(0, word.size(), word) == 0)
            return c;
        std::size_t const d = edit_distance(word, c);
        if (d < best_distance)
        {
            best = c;
            best_distance = d;
        }
    }
    return best;
}

namespace
{
//! "line L, column C" of a byte offset.
std::string line_column(std::string const& text, std::size_t offset)
{
    auto const pos = text_position(text, offset);
    return "line " + std::to_string(pos.line) + ", column " + std::to_string(pos.column);
}

/*!
 * One pass over JSON text with positions, which nlohmann's parser does not
 * report for valid documents: nesting depth, duplicate keys (RFC 8259 leaves
 * them to the reader; nlohmann keeps the last one silently) and numbers too
 * large for a double. Tolerant of malformed text (it only skips what it does
 * not know), iterative, and linear in the text.
 */
class JsonStructureScan
{
  public:
    JsonStructureScan(std::string const& text, std::string const& source)
        : text_(text), source_(source)
    {
    }

    //! Throw InputError at the first problem; `numbers_only` checks numbers alone.
    void operator()(bool numbers_only)
    {
        numbers_only_ = numbers_only;
        std::size_t i = 0;
        while (i < text_.size())
            i = this->token(i);
    }

  private:
    struct Frame
    {
        bool object{false};
        std::string pointer;
        std::map<std::string, std::size_t> key_offsets; //!< first offset of each key
        std::string key;                                //!< current member's key
        std::size_t index{0};                           //!< current array element
        bool expect_key{false};
    };

    std::string const& text_;
    std::string const& source_;
    std::vector<Frame> stack_;
    bool numbers_only_{false};

    //! Pointer of the value that starts now.
    std::string value_pointer() const
    {
        if (stack_.empty())
            return "";
        Frame const& f = stack_.back();
        return f.pointer + "/" + (f.object ? escape_pointer_token(f.key) : std::to_string(f.index));
    }

    [[noreturn]] void fail(std::size_t offset, std::string const& pointer,
                           std::string const& problem) const
    {
        throw InputError(source_,
                         line_column(text_, offset) + (pointer.empty() ? "" : " (" + pointer + ")"),
                         problem);
    }

    std::size_t token(std::size_t i)
    {
        char const c = text_[i];
        if (c == '{' || c == '[')
        {
            if (!numbers_only_ && stack_.size() >= max_json_depth)
            {
                this->fail(i, this->value_pointer(),
                           "nesting deeper than " + std::to_string(max_json_depth) +
                               " levels; a study needs fewer than 10 (unbalanced brackets?)");
            }
            Frame f;
            f.object = c == '{';
            f.expect_key = f.object;
            f.pointer = this->value_pointer();
            stack_.push_back(std::move(f));
            return i + 1;
        }
        if (c == '}' || c == ']')
        {
            if (!stack_.empty())
                stack_.pop_back();
            return i + 1;
        }
        if (c == ',' && !stack_.empty())
        {
            stack_.back().expect_key = stack_.back().object;
            ++stack_.back().index;
            return i + 1;
        }
        if (c == '"')
            return this->string(i);
        if (c == '-' || (c >= '0' && c <= '9'))
            return this->number(i);
        return i + 1;
    }

    //! A string literal from its opening quote; a key is checked for duplicates.
    std::size_t string(std::size_t begin)
    {
        std::size_t i = begin + 1;
        bool escaped = false;
        while (i < text_.size() && (text_[i] != '"' || escaped))
        {
            escaped = !escaped && text_[i] == '\\';
            ++i;
        }
        std::size_t const end = std::min(i + 1, text_.size());
        if (stack_.empty() || !stack_.back().expect_key)
            return end;
        Frame& f = stack_.back();
        f.expect_key = false;
        std::string key = text_.substr(begin + 1, end - begin - 2 + (i < text_.size() ? 0 : 1));
        if (key.find('\\') != std::string::npos)
        {
            // Compare keys as nlohmann stores them (escapes decoded).
            try
            {
                key = nlohmann::json::parse(text_.substr(begin, end - begin)).get<std::string>();
            }
            catch (nlohmann::json::exception const&)
            {
            }
        }
        f.key = key;
        if (numbers_only_)
            return end;
        auto const [it, inserted] = f.key_offsets.emplace(key, begin);
        if (!inserted)
        {
            this->fail(begin, this->value_pointer(),
                       "duplicate key '" + key + "' (first at " + line_column(text_, it->second) +
                           "); a JSON object names each field once: keep one");
        }
        return end;
    }

    std::size_t number(std::size_t begin)
    {
        std::size_t i = begin;
        auto const is_number_char = [](char c)
        {
            return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' ||
                   c == 'E' || c == '+' || c == '-';
        };
        while (i < text_.size() && is_number_char(text_[i]))
            ++i;
        std::string const literal = text_.substr(begin, i - begin);
        double const x = std::strtod(literal.c_str(), nullptr);
        if (std::isinf(x))
        {
            this->fail(begin, this->value_pointer(),
                       "number " + literal.substr(0, 40) +
                           " is too large for a double (at most about 1.8e308)");
        }
        return i;
    }
};
} // namespace

nlohmann::json parse_json_text(std::string const& text, std::string const& source_name)
{
    nlohmann::json doc;
    try
    {
        doc = nlohmann::json::parse(text);
    }
    catch (nlohmann::json::parse_error const& e)
    {
        // nlohmann reports the byte just past the offending token (1-based);
        // convert it to the line and column an editor shows.
        std::size_t const offset = token_start(text, e.byte > 0 ? e.byte - 1 : 0);
        // Keep only the explanation after nlohmann's "parse error at ...: " prefix.
        std::string detail = e.what();
        auto const colon = detail.find("syntax error");
        if (colon != std::string::npos)
            detail = detail.substr(colon);
        throw InputError(source_name, line_column(text, offset),
                         "malformed JSON (" + detail +
                             "); fix the syntax there (missing comma, quote or bracket?)");
    }
    catch (nlohmann::json::exception const&)
    {
        // The parser's other refusal is a number out of the double range
        // (out_of_range.406), reported without a position: find it.
        JsonStructureScan(text, source_name)(true);
        throw InputError(source_name, "", "the JSON parser refused the text; check its numbers");
    }
    JsonStructureScan(text, source_name)(false);
    return doc;
}

nlohmann::json parse_json_file(std::string const& path)
{
    return parse_json_text(read_input_file(path, "JSON file"), path);
}

bool NumberRange::contains(double x) const
{
    if (!std::isfinite(x))
        return false;
    bool const above = lo_open ? x > lo : x >= lo;
    bool const below = hi_open ? x < hi : x <= hi;
    return above && below;
}

std::string NumberRange::describe() const
{
    bool const has_lo = lo > -1e307;
    bool const has_hi = hi < 1e307;
    if (has_lo && has_hi)
    {
        return std::string("in ") + (lo_open ? "(" : "[") + format_number(lo) + ", " +
               format_number(hi) + (hi_open ? ")" : "]");
    }
    if (has_lo)
        return std::string(lo_open ? "> " : ">= ") + format_number(lo);
    if (has_hi)
        return std::string(hi_open ? "< " : "<= ") + format_number(hi);
    return "finite";
}

std::string escape_pointer_token(std::string const& key)
{
    std::string out;
    for (char c : key)
    {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

JsonNode::JsonNode(nlohmann::json const& value, std::string file, std::string pointer)
    : JsonNode(value, std::make_shared<std::string const>(std::move(file)), std::move(pointer))
{
}

JsonNode::JsonNode(nlohmann::json const& value, std::shared_ptr<std::string const> file,
                   std::string pointer)
    : value_(&value), file_(std::move(file)), pointer_(std::move(pointer))
{
}

void JsonNode::fail(std::string const& problem) const
{
    throw InputError(*file_, this->where(), problem);
}

void JsonNode::require_object(char const* what) const
{
    if (!value_->is_object())
    {
        this->fail(std::string("expected an object (") + what + "), got " + value_->type_name());
    }
}

bool JsonNode::has(std::string const& key) const
{
    return value_->is_object() && value_->contains(key);
}

JsonNode JsonNode::child(std::string const& key) const
{
    auto node = this->optional_child(key);
    if (!node)
        this->fail("missing required field '" + key + "'; add it (see docs/study-reference.md)");
    return *node;
}

std::optional<JsonNode> JsonNode::optional_child(std::string const& key) const
{
    this->require_object("with named fields");
    auto it = value_->find(key);
    if (it == value_->end() || it->is_null())
        return std::nullopt;
    return JsonNode(*it, file_, pointer_ + "/" + escape_pointer_token(key));
}

std::size_t JsonNode::array_size(std::size_t min_size, char const* what) const
{
    if (!value_->is_array())
        this->fail(std::string("expected an array (") + what + "), got " + value_->type_name());
    if (value_->size() < min_size)
    {
        this->fail("expected at least " + std::to_string(min_size) + " entries (" + what +
                   "), got " + std::to_string(value_->size()));
    }
    return value_->size();
}

JsonNode JsonNode::element(std::size_t i) const
{
    MCDOSE_EXPECT(value_->is_array() && i < value_->size());
    return JsonNode((*value_)[i], file_, pointer_ + "/" + std::to_string(i));
}

void JsonNode::allow_only(std::initializer_list<char const*> allowed) const
{
    this->require_object("with named fields");
    std::vector<std::string> names(allowed.begin(), allowed.end());
    for (auto const& item : value_->items())
    {
        if (std::find(names.begin(), names.end(), item.key()) != names.end())
            continue;
        JsonNode const bad(item.value(), file_, pointer_ + "/" + escape_pointer_token(item.key()));
        std::string const suggestion = closest_spelling(item.key(), names);
        std::string problem = "unknown field '" + shortened_name(item.key()) + "'";
        if (!suggestion.empty())
            problem += "; did you mean '" + suggestion + "'?";
        else
            problem += "; remove it";
        problem += " (allowed here: " + join(names) + ")";
        bad.fail(problem);
    }
}

double JsonNode::number(NumberRange range, char const* hint) const
{
    if (!value_->is_number())
        this->fail(with_hint(std::string("expected a number, got ") + value_->type_name(), hint));
    double const x = value_->get<double>();
    if (!range.contains(x))
    {
        this->fail(with_hint("value " + format_number(x) + " is out of range; it must be " +
                                 range.describe(),
                             hint));
    }
    return x;
}

long long JsonNode::integer(long long lo, long long hi, char const* hint) const
{
    bool const integral =
        value_->is_number_integer() ||
        (value_->is_number_float() && std::floor(value_->get<double>()) == value_->get<double>() &&
         std::fabs(value_->get<double>()) < 9e15);
    if (!integral)
    {
        bool const whole_but_large =
            value_->is_number_float() && std::floor(value_->get<double>()) == value_->get<double>();
        if (whole_but_large)
        {
            this->fail(with_hint("value " + value_->dump() + " is out of range; it must be in [" +
                                     std::to_string(lo) + ", " + std::to_string(hi) + "]",
                                 hint));
        }
        std::string got = value_->is_number() ? value_->dump() : value_->type_name();
        this->fail(with_hint("expected a whole number, got " + got, hint));
    }
    long long x;
    if (value_->is_number_unsigned() && value_->get<unsigned long long>() > 9e18)
        x = static_cast<long long>(9e18);
    else
        x = value_->is_number_float() ? static_cast<long long>(value_->get<double>())
                                      : value_->get<long long>();
    if (x < lo || x > hi)
    {
        this->fail(with_hint("value " + std::to_string(x) + " is out of range; it must be in [" +
                                 std::to_string(lo) + ", " + std::to_string(hi) + "]",
                             hint));
    }
    return x;
}

bool JsonNode::boolean() const
{
    if (!value_->is_boolean())
        this->fail(std::string("expected true or false, got ") + value_->type_name());
    return value_->get<bool>();
}

std::string JsonNode::string(char const* hint) const
{
    if (!value_->is_string())
        this->fail(with_hint(std::string("expected a string, got ") + value_->type_name(), hint));
    return value_->get<std::string>();
}

std::string JsonNode::choice(std::initializer_list<char const*> choices) const
{
    std::vector<std::string> names(choices.begin(), choices.end());
    std::string const s = this->string(("one of: " + join(names)).c_str());
    if (std::find(names.begin(), names.end(), s) != names.end())
        return s;
    std::string problem = "unknown value '" + s + "'";
    std::string const suggestion = closest_spelling(s, names);
    if (!suggestion.empty())
        problem += "; did you mean '" + suggestion + "'?";
    this->fail(problem + " (allowed: " + join(names) + ")");
}

Real3 JsonNode::real3(NumberRange range, char const* hint) const
{
    if (!value_->is_array() || value_->size() != 3)
    {
        this->fail(with_hint(std::string("expected an array of 3 numbers [x, y, z], got ") +
                                 (value_->is_array() ? std::to_string(value_->size()) + " entries"
                                                     : value_->type_name()),
                             hint));
    }
    Real3 r;
    for (int c = 0; c < 3; ++c)
        r[c] = this->element(c).number(range, hint);
    return r;
}

Int3 JsonNode::int3(long long lo, long long hi, char const* hint) const
{
    if (!value_->is_array() || value_->size() != 3)
    {
        this->fail(
            with_hint(std::string("expected an array of 3 whole numbers [nx, ny, nz], got ") +
                          (value_->is_array() ? std::to_string(value_->size()) + " entries"
                                              : value_->type_name()),
                      hint));
    }
    Int3 r;
    for (int c = 0; c < 3; ++c)
        r[c] = static_cast<int>(this->element(c).integer(lo, hi, hint));
    return r;
}

std::vector<double> JsonNode::numbers(std::size_t min_size, NumberRange range,
                                      char const* hint) const
{
    std::size_t const n = this->array_size(min_size, hint ? hint : "numbers");
    std::vector<double> out(n);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = this->element(i).number(range, hint);
    return out;
}
} // namespace mcdose
