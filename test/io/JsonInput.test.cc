//! Checked JSON reading: positions of syntax errors, misspelling suggestions,
//! typed values with ranges, and messages naming file, field and fix.
#include "io/JsonInput.hh"

#include <gtest/gtest.h>

namespace mcdose
{
namespace
{
//! The InputError a callable throws (fails the test if none).
template <class F>
InputError error_of(F&& f)
{
    try
    {
        f();
    }
    catch (InputError const& e)
    {
        return e;
    }
    ADD_FAILURE() << "expected an InputError";
    return InputError("", "", "");
}
} // namespace

TEST(JsonInputTest, TextPositionCountsLinesAndCharacters)
{
    std::string const text = "{\n  \"a\": 1,\n  \"b\": \xc3\xa9x\n}";
    EXPECT_EQ(1u, text_position(text, 0).line);
    EXPECT_EQ(1u, text_position(text, 0).column);
    auto const p = text_position(text, text.find("\"b\""));
    EXPECT_EQ(3u, p.line);
    EXPECT_EQ(3u, p.column);
    // The two-byte e-acute counts as one column.
    auto const q = text_position(text, text.find('x'));
    EXPECT_EQ(3u, q.line);
    EXPECT_EQ(9u, q.column);
}

TEST(JsonInputTest, EditDistanceAndSuggestions)
{
    EXPECT_EQ(0u, edit_distance("spacing_cm", "spacing_cm"));
    EXPECT_EQ(1u, edit_distance("spacng_cm", "spacing_cm"));
    EXPECT_EQ(2u, edit_distance("spaicng_cm", "spacing_cm")); // a transposition is two edits
    EXPECT_EQ(3u, edit_distance("kitten", "sitting"));
    EXPECT_EQ(5u, edit_distance("", "abcde"));
    std::vector<std::string> const names = {"dimensions", "spacing_cm", "origin_cm"};
    EXPECT_EQ("spacing_cm", closest_spelling("spacing", names));
    EXPECT_EQ("origin_cm", closest_spelling("orgin_cm", names));
    EXPECT_EQ("", closest_spelling("colour", names));
}

TEST(JsonInputTest, MalformedJsonGivesLineAndColumn)
{
    std::string const text = "{\n  \"run\": {\"histories\": 100}\n  \"backend\": \"cpu\"\n}\n";
    InputError const e = error_of([&] { parse_json_text(text, "bad.json"); });
    EXPECT_EQ("bad.json", e.file());
    EXPECT_EQ("line 3, column 3", e.pointer()) << e.what();
    EXPECT_NE(std::string::npos, std::string(e.what()).find("malformed JSON")) << e.what();
    InputError const m = error_of([] { parse_json_file("/nonexistent/study.json"); });
    EXPECT_NE(std::string::npos, std::string(m.what()).find("cannot open")) << m.what();
}

TEST(JsonInputTest, UnknownFieldsAreNamedWithTheClosestSpelling)
{
    auto const doc =
        nlohmann::json::parse(R"({"grid": {"dimensions": [1, 2, 3], "spaceing_cm": 1}})");
    JsonNode const root(doc, "s.json");
    InputError const e = error_of(
        [&] {
            root.child("grid").allow_only({"dimensions", "spacing_cm", "origin_cm"});
        });
    EXPECT_EQ("/grid/spaceing_cm", e.pointer());
    EXPECT_NE(std::string::npos, e.problem().find("did you mean 'spacing_cm'?")) << e.what();
    EXPECT_EQ(std::string("s.json: /grid/spaceing_cm: ") + e.problem(), e.what());
}

TEST(JsonInputTest, ValuesAreTypedAndRangeChecked)
{
    auto const good = nlohmann::json::parse(
        R"({"n": 2.5, "k": 7, "s": "slab", "v": [1, -2, 3], "b": "yes", "neg": -1})");
    JsonNode const root(good, "f.json");
    EXPECT_DOUBLE_EQ(2.5, root.child("n").number(NumberRange::positive()));
    EXPECT_EQ(7, root.child("k").integer(0, 10));
    EXPECT_EQ("slab", root.child("s").choice({"box", "slab"}));
    Real3 const v = root.child("v").real3(NumberRange::any());
    EXPECT_DOUBLE_EQ(-2, v[1]);

    InputError const range =
        error_of([&] { root.child("neg").number(NumberRange::positive(), "give a length in cm"); });
    EXPECT_EQ("/neg", range.pointer());
    EXPECT_NE(std::string::npos, range.problem().find("must be > 0")) << range.what();
    EXPECT_NE(std::string::npos, range.problem().find("give a length in cm")) << range.what();

    InputError const whole = error_of([&] { root.child("n").integer(0, 10); });
    EXPECT_NE(std::string::npos, whole.problem().find("whole number")) << whole.what();

    InputError const type = error_of([&] { root.child("b").boolean(); });
    EXPECT_NE(std::string::npos, type.problem().find("true or false")) << type.what();

    InputError const elem = error_of([&] { root.child("v").real3(NumberRange::non_negative()); });
    EXPECT_EQ("/v/1", elem.pointer());

    InputError const choice = error_of([&] { root.child("s").choice({"box", "slap", "sphere"}); });
    EXPECT_NE(std::string::npos, choice.problem().find("did you mean 'slap'?")) << choice.what();

    InputError const missing = error_of([&] { root.child("spacing_cm"); });
    EXPECT_EQ("/", missing.pointer());
    EXPECT_NE(std::string::npos, missing.problem().find("missing required field 'spacing_cm'"));
}
} // namespace mcdose

namespace mcdose
{
TEST(JsonInputTest, DuplicateKeysAreRefusedWithBothLines)
{
    std::string const text = "{\n  \"phantom\": {\"a\": 1},\n  \"run\": 2,\n  \"phantom\": {}\n}";
    auto const e = error_of([&] { parse_json_text(text, "s.json"); });
    EXPECT_EQ("s.json", e.file());
    EXPECT_NE(std::string::npos, e.pointer().find("line 4")) << e.what();
    EXPECT_NE(std::string::npos, e.pointer().find("/phantom")) << e.what();
    EXPECT_NE(std::string::npos, e.problem().find("duplicate key 'phantom'")) << e.what();
    EXPECT_NE(std::string::npos, e.problem().find("line 2")) << e.what();
    // Nested objects and escaped spellings of one key.
    auto const n = error_of([] { parse_json_text(R"({"a": [{"x": 1, "\u0078": 2}]})", "n"); });
    EXPECT_NE(std::string::npos, n.pointer().find("/a/0/x")) << n.what();
    // The same key in sibling objects is fine.
    EXPECT_NO_THROW(
        parse_json_text(R"({"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]})", "ok"));
}

TEST(JsonInputTest, DeepNestingIsRefusedAndNumbersBeyondDoubleAreLocated)
{
    std::string const deep =
        "{\"materials\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto const d = error_of([&] { parse_json_text(deep, "deep.json"); });
    EXPECT_NE(std::string::npos, d.problem().find("nesting deeper than")) << d.what();
    EXPECT_NE(std::string::npos, d.pointer().find("/materials/0/0")) << d.what();
    // Exactly the bound is accepted.
    std::string const ok = std::string(max_json_depth, '[') + std::string(max_json_depth, ']');
    EXPECT_NO_THROW(parse_json_text(ok, "ok"));

    auto const h = error_of([] { parse_json_text("{\n \"run\": {\"histories\": 1e400}}", "h"); });
    EXPECT_NE(std::string::npos, h.pointer().find("line 2, column 23")) << h.what();
    EXPECT_NE(std::string::npos, h.pointer().find("/run/histories")) << h.what();
    EXPECT_NE(std::string::npos, h.problem().find("too large")) << h.what();
    EXPECT_EQ(std::string::npos, std::string(h.what()).find("json.exception")) << h.what();
}

TEST(JsonInputTest, LargeWholeNumberIsOutOfRangeNotFractional)
{
    nlohmann::json const j = nlohmann::json::parse("1e16");
    auto const e = error_of([&] { JsonNode(j, "f").integer(1, 1000); });
    EXPECT_NE(std::string::npos, e.problem().find("out of range")) << e.what();
    EXPECT_EQ(std::string::npos, e.problem().find("whole number")) << e.what();
}
} // namespace mcdose
