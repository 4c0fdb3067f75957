// MemoryType TensorMap: a map over a Vector argument evaluated per config (dims, densely packed strides or
// given ones, box, swizzle, the buffer's type), passed by the launches that name it, or over a staged Scratch
// copy where its BufferIf holds; and each malformed map refused with one line naming the field.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace tensor_map_test {

using testing::TempSpaces;

const DeviceInfo kDevice = offline_device("sm_90");
const Config kConfig{{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}};

// saxpy with a tensor map over x (N as rows of 8), passed to the kernel after a.
nlohmann::ordered_json with_map(nlohmann::ordered_json json) {
  json["KernelSpecification"]["Arguments"].push_back({{"Name", "x_map"},
                                                      {"MemoryType", "TensorMap"},
                                                      {"Buffer", "x"},
                                                      {"Dims", {"8", "N / 8"}},
                                                      {"Box", {"8", "BLOCK / 8"}},
                                                      {"Swizzle", "32B"}});
  json["KernelSpecification"]["Launches"] = {{{"Arguments", {"x", "y", "n", "a", "x_map"}}}};
  return json;
}

class TensorMaps : public ::testing::Test {
 protected:
  std::string load_error(const std::function<void(nlohmann::ordered_json&)>& edit) {
    const auto path = spaces_.write([&](auto& json) {
      json = with_map(json);
      edit(json);
    });
    try {
      const auto space = SearchSpace::load(path);
      space.variant_launch(kConfig, space.resolve_problem(""), kDevice);
    } catch (const SpaceError& error) {
      const std::string text = error.what();
      EXPECT_EQ(text.find('\n'), std::string::npos) << text;
      return text.substr(path.string().size());
    }
    return "no error";
  }
  nlohmann::ordered_json& map(nlohmann::ordered_json& json) {
    return json["KernelSpecification"]["Arguments"][4];
  }

  TempSpaces spaces_;
};

TEST_F(TensorMaps, EvaluatedPerConfigWithTheBuffersType) {
  const auto path = spaces_.write([](auto& json) { json = with_map(json); });
  const auto space = SearchSpace::load(path);
  const auto launch = space.variant_launch(kConfig, space.resolve_problem("N=4096"), kDevice);
  ASSERT_EQ(launch.args.size(), 5u);
  const ArgSpec& arg = launch.args[4];
  EXPECT_EQ(arg.kind, ArgSpec::Kind::tensor_map);
  EXPECT_EQ(arg.dtype, DType::f32);
  EXPECT_EQ(arg.map.buffer, "x");
  EXPECT_EQ(arg.map.dims, (std::vector<std::int64_t>{8, 512}));
  EXPECT_EQ(arg.map.strides, (std::vector<std::int64_t>{32}));  // 8 floats a row, densely packed
  EXPECT_EQ(arg.map.box, (std::vector<std::int64_t>{8, 16}));
  EXPECT_EQ(arg.map.swizzle_bytes, 32);
  EXPECT_EQ(space.buffers(space.resolve_problem("")).size(), 2u) << "a map is no buffer of the problem";
}

TEST_F(TensorMaps, MalformedMapsAreRefusedNamingTheField) {
  EXPECT_EQ(load_error([&](auto& json) { map(json)["Buffer"] = "z"; }),
            ": KernelSpecification.Arguments[4].Buffer: unknown argument 'z'");
  EXPECT_EQ(load_error([&](auto& json) { map(json)["Buffer"] = "n"; }),
            ": KernelSpecification.Arguments[4].Buffer: 'n' is not a Vector or Scratch argument");
  EXPECT_EQ(load_error([&](auto& json) { map(json)["Box"] = {"8"}; }),
            ": KernelSpecification.Arguments[4].Box: one entry per dimension: 2 expected, 1 given");
  EXPECT_EQ(
      load_error([&](auto& json) {
        map(json)["Strides"] = {"32", "64"};
      }),
      ": KernelSpecification.Arguments[4].Strides: one entry per dimension but the first: 1 expected, 2 "
      "given");
  EXPECT_EQ(
      load_error([&](auto& json) { map(json)["Swizzle"] = "16B"; }),
      ": KernelSpecification.Arguments[4].Swizzle: unknown Swizzle '16B' (known: none, 32B, 64B, 128B)");
  EXPECT_EQ(load_error([&](auto& json) { map(json)["Dims"] = nlohmann::ordered_json::array(); }),
            ": KernelSpecification.Arguments[4].Dims: a tensor map has 1 to 5 dimensions, not 0");
  EXPECT_EQ(
      load_error([&](auto& json) { map(json)["Type"] = "float"; }),
      ": KernelSpecification.Arguments[4].Type: unknown field (known: Name, MemoryType, Buffer, BufferIf, "
      "Dims, Strides, Box, Swizzle, Description)");
  EXPECT_EQ(load_error([&](auto& json) { json["Reference"]["Arguments"].push_back("x_map"); }),
            ": Reference.Arguments[4]: 'x_map' is a TensorMap argument: the reference takes plain buffers");
  const std::string past = load_error([&](auto& json) { map(json)["Dims"] = {"8", "N"}; });
  EXPECT_NE(past.find("its dims reach byte 131072 of 'x', which has 16384"), std::string::npos) << past;
}

// Given with_map's json: a scratch copy of x that the map describes where N is not a multiple of 1024.
void add_staging(nlohmann::ordered_json& json, const std::string& scratch_type) {
  json["KernelSpecification"]["Arguments"].push_back(
      {{"Name", "x_staged"}, {"Type", scratch_type}, {"MemoryType", "Scratch"}, {"Size", "N"}});
  json["KernelSpecification"]["Arguments"][4]["BufferIf"] = {
      {{"If", "N % 1024 != 0"}, {"Buffer", "x_staged"}}};
}

TEST_F(TensorMaps, BufferIfMapsTheStagedScratchWhereItHolds) {
  const auto path = spaces_.write([](auto& json) {
    json = with_map(json);
    add_staging(json, "float");
  });
  const auto space = SearchSpace::load(path);
  const auto direct = space.variant_launch(kConfig, space.resolve_problem("N=4096"), kDevice);
  EXPECT_EQ(direct.args.at(4).map.buffer, "x");
  EXPECT_TRUE(direct.scratch.empty()) << "the copy is allocated only where the map describes it";
  const auto staged = space.variant_launch(kConfig, space.resolve_problem("N=4000"), kDevice);
  EXPECT_EQ(staged.args.at(4).map.buffer, "x_staged");
  EXPECT_EQ(staged.args.at(4).dtype, DType::f32);
  EXPECT_EQ(staged.args.at(4).map.dims, (std::vector<std::int64_t>{8, 500}));
  ASSERT_EQ(staged.scratch.size(), 1u) << "a scratch named through a map is the variant's";
  EXPECT_EQ(staged.scratch[0].name, "x_staged");
  EXPECT_EQ(staged.scratch[0].count, 4000);
}

TEST_F(TensorMaps, MalformedBufferChoicesAreRefusedNamingTheField) {
  const auto staged_error = [&](const std::string& scratch_type,
                                const std::function<void(nlohmann::ordered_json&)>& edit) {
    return load_error([&](auto& json) {
      add_staging(json, scratch_type);
      edit(json);
    });
  };
  EXPECT_EQ(staged_error("float", [&](auto& json) { map(json)["BufferIf"][0]["Buffer"] = "z"; }),
            ": KernelSpecification.Arguments[4].BufferIf[0].Buffer: unknown argument 'z'");
  EXPECT_EQ(staged_error("int32", [](auto&) {}),
            ": KernelSpecification.Arguments[4].BufferIf[0].Buffer: 'x_staged' is int32 but the map's Buffer "
            "'x' is float: every buffer of a map has its type");
  EXPECT_EQ(
      staged_error("float", [&](auto& json) { map(json)["BufferIf"] = nlohmann::ordered_json::array(); }),
      ": KernelSpecification.Arguments[4].BufferIf: empty list (leave BufferIf out to map Buffer always)");
  EXPECT_EQ(staged_error("float", [&](auto& json) { map(json)["BufferIf"][0]["Else"] = "x"; }),
            ": KernelSpecification.Arguments[4].BufferIf[0].Else: unknown field (known: If, Buffer, "
            "Description)");
  const std::string unknown =
      staged_error("float", [&](auto& json) { map(json)["BufferIf"][0]["If"] = "STAGED"; });
  EXPECT_NE(unknown.find("BufferIf[0].If"), std::string::npos) << unknown;
}

}  // namespace tensor_map_test
}  // namespace evotune
