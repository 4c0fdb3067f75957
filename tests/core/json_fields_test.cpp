// The strict field reader: typed getters, and one line naming the source and the field's path for every
// error.
#include "core/json_fields.hpp"

#include <gtest/gtest.h>

#include "core/core_fixture.hpp"

namespace evotune {
namespace json_fields_test {

using json = nlohmann::json;

const json kDocument = json::parse(R"({
  "name": "tiny", "count": 12, "ratio": 0.5, "on": true, "seed": 18446744073709551615,
  "sizes": {"N": 4096, "OFFSET": -3},
  "grid": [4, 8, 1], "dirs": ["/a", "/b"],
  "items": [{"x": 1}, {"x": "two"}, 3],
  "inner": {"deeper": {"value": "text"}}
})");

Fields top() { return Fields(kDocument, "", "runs/doc.json"); }

using core_test::expect_error;

TEST(JsonFields, TypedGettersReadWhatIsThere) {
  const Fields f = top();
  EXPECT_EQ(f.text("name"), "tiny");
  EXPECT_EQ(f.integer("count"), 12);
  EXPECT_EQ(f.small_integer("count"), 12);
  EXPECT_EQ(f.number("ratio"), 0.5);
  EXPECT_EQ(f.number("count"), 12.0);  // an integer is a number too
  EXPECT_TRUE(f.boolean("on"));
  EXPECT_EQ(f.unsigned_integer("seed"), 18446744073709551615ULL);
  EXPECT_EQ(f.int_map("sizes"), (std::map<std::string, std::int64_t>{{"N", 4096}, {"OFFSET", -3}}));
  EXPECT_EQ(f.integers("grid", 0, 100, 3), (std::vector<std::int64_t>{4, 8, 1}));
  EXPECT_EQ(f.texts("dirs"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_EQ(f.object("inner").object("deeper").text("value"), "text");
  EXPECT_TRUE(f.has("on"));
  EXPECT_FALSE(f.has("off"));
}

TEST(JsonFields, BinaryDataKeepsEveryByte) {
  const std::string bytes(
      "\x7f"
      "ELF\0\xff",
      6);
  const json document = {{"cubin", json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()))}};
  EXPECT_EQ(Fields(document, "", "message").bytes("cubin"), bytes);
  expect_error([] { top().bytes("name"); }, "runs/doc.json: name: expected binary data, got \"tiny\"");
}

TEST(JsonFields, ErrorsNameTheSourceAndTheFieldsPath) {
  expect_error([] { top().text("missing"); }, "runs/doc.json: missing: missing required field");
  expect_error([] { top().object("inner").object("deeper").integer("value"); },
               "runs/doc.json: inner.deeper.value: expected an integer, got \"text\"");
  expect_error([] { top().text("count"); }, "runs/doc.json: count: expected a string, got 12");
  expect_error([] { top().number("name"); }, "runs/doc.json: name: expected a number, got \"tiny\"");
  expect_error([] { top().boolean("count"); }, "runs/doc.json: count: expected true or false, got 12");
  expect_error([] { top().integer("ratio"); }, "runs/doc.json: ratio: expected an integer, got 0.5");
  expect_error([] { top().integer("count", 0, 10); },
               "runs/doc.json: count: expected an integer in [0, 10], got 12");
  expect_error([] { top().integer("seed"); },
               "runs/doc.json: seed: expected an integer, got 18446744073709551615");
  expect_error([] { top().unsigned_integer("ratio"); },
               "runs/doc.json: ratio: expected an integer in [0, 2^64), got 0.5");
  expect_error([] { top().int_map("grid"); }, "runs/doc.json: grid: expected an object, got a list");
  expect_error([] { top().object("sizes").small_integer("OFFSET"); },
               "runs/doc.json: sizes.OFFSET: expected an integer in [0, 2147483647], got -3");
}

TEST(JsonFields, ArrayErrorsNameTheItem) {
  expect_error([] { top().integers("grid", 0, 100, 2); }, "runs/doc.json: grid: expected 2 items, got 3");
  expect_error([] { top().integers("grid", 0, 5, 3); },
               "runs/doc.json: grid[1]: expected an integer in [0, 5], got 8");
  expect_error([] { top().texts("grid"); }, "runs/doc.json: grid[0]: expected a string, got 4");
  expect_error([] { top().texts("name"); }, "runs/doc.json: name: expected a list, got \"tiny\"");
  expect_error([] { top().objects("items"); }, "runs/doc.json: items[2]: expected an object, got 3");
  const json two = {{"items", {{{"x", 1}}, {{"x", "two"}}}}};
  const auto items = Fields(two, "", "message").objects("items");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].integer("x"), 1);
  expect_error([&] { items[1].integer("x"); }, "message: items[1].x: expected an integer, got \"two\"");
}

TEST(JsonFields, UnknownFieldsAndNonObjectsAreErrors) {
  expect_error([] { top().object("inner").only({"deep"}); },
               "runs/doc.json: inner.deeper: unknown field (known: deep)");
  top().object("inner").only({"deeper"});  // no error
  expect_error([] { Fields(json::array(), "", "a worker's answer"); },
               "a worker's answer: expected an object, got a list");
  expect_error([] { top().object("name"); }, "runs/doc.json: name: expected an object, got \"tiny\"");
}

}  // namespace json_fields_test
}  // namespace evotune
