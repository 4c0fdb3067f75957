// Inputs computed from other inputs (FillType Derived, DerivedInputs): the section as read, its launch for a
// problem, its place in the space's hash, and the one-line error of every way a file can get it wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "core/hash.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace derived_inputs_test {

using Json = nlohmann::ordered_json;
using testing::kSpaces;
using testing::load_error;
using testing::TempSpaces;

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// derived_inputs.json with `edit` applied, its kernel files the originals.
std::filesystem::path edited(const TempSpaces& temp, const std::function<void(Json&)>& edit) {
  Json json = Json::parse(read(kSpaces / "derived_inputs.json"));
  for (const char* section : {"KernelSpecification", "Reference", "DerivedInputs"})
    json[section]["KernelFile"] =
        std::filesystem::absolute(kSpaces / json[section]["KernelFile"].get<std::string>()).string();
  edit(json);
  return temp.write_text("space.json", json.dump(2));
}

// The error of the edited file, without its "FILE: " prefix.
std::string error(const TempSpaces& temp, const std::function<void(Json&)>& edit) {
  const auto file = edited(temp, edit);
  const std::string message = load_error(file);
  const std::string prefix = file.string() + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

Json scratch_argument(const std::string& name) {
  return {{"Name", name}, {"Type", "float"}, {"MemoryType", "Scratch"}, {"Size", "N"}};
}

TEST(DerivedInputs, TheSectionIsReadAndYIsComputedNotFilled) {
  const auto space = SearchSpace::load(kSpaces / "derived_inputs.json");
  const KernelDecl* derived = space.derived_inputs();
  ASSERT_NE(derived, nullptr);
  EXPECT_EQ(derived->name, "derive_y");
  EXPECT_EQ(derived->file, kSpaces / "derived_inputs_derive.cu");
  EXPECT_EQ(derived->arguments, (std::vector<std::string>{"x", "y", "n"}));
  EXPECT_NE(space.derived_inputs_source().find("y[i] = 2.0f * x[i] + 1.0f"), std::string::npos);
  EXPECT_TRUE(space.derived_inputs_constants(space.resolve_problem("")).empty());  // no compile-time size

  const auto buffers = space.buffers(space.resolve_problem(""));
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers[0].fill.kind, FillSpec::Kind::random_uniform);
  EXPECT_EQ(buffers[0].special_fills.size(), 1u);
  EXPECT_EQ(buffers[1].name, "y");
  EXPECT_EQ(buffers[1].fill.kind, FillSpec::Kind::derived);
  EXPECT_TRUE(buffers[1].is_input && !buffers[1].is_output);
  EXPECT_TRUE(buffers[1].special_fills.empty());
}

TEST(DerivedInputs, ItsLaunchFollowsTheProblemSizes) {
  const auto space = SearchSpace::load(kSpaces / "derived_inputs.json");
  const DeviceInfo device = offline_device("sm_90");
  for (const std::int64_t n : {100000, 7}) {
    const auto launch = space.derived_inputs_launch({{"N", n}}, device);
    ASSERT_TRUE(launch.has_value());
    EXPECT_EQ(launch->kernel_name, "derive_y");
    EXPECT_EQ(launch->grid,
              (std::array<std::uint32_t, 3>{static_cast<std::uint32_t>((n + 127) / 128), 1, 1}));
    EXPECT_EQ(launch->block, (std::array<std::uint32_t, 3>{128, 1, 1}));
    ASSERT_EQ(launch->args.size(), 3u);
    EXPECT_EQ(launch->args[0].kind, ArgSpec::Kind::buffer);
    EXPECT_EQ(launch->args[1].name, "y");
    EXPECT_EQ(launch->args[2].kind, ArgSpec::Kind::scalar);
    EXPECT_EQ(launch->args[2].value, static_cast<double>(n));
    EXPECT_TRUE(launch->then.empty() && launch->scratch.empty());
  }
  const auto saxpy = SearchSpace::load(kSpaces / "saxpy.json");
  EXPECT_EQ(saxpy.derived_inputs(), nullptr);
  EXPECT_FALSE(saxpy.derived_inputs_launch(saxpy.resolve_problem(""), device).has_value());
}

TEST(DerivedInputs, ItsSourceIsPartOfTheHashAndOtherSpacesKeepTheirs) {
  // A space without DerivedInputs hashes exactly as before: its file, template and reference.
  const auto saxpy = SearchSpace::load(kSpaces / "saxpy.json");
  const std::string zero(1, '\0');
  EXPECT_EQ(saxpy.hash(), hex_hash(read(kSpaces / "saxpy.json") + zero + read(kSpaces / "saxpy.cu") + zero +
                                   read(kSpaces / "saxpy_ref.cu")));

  TempSpaces temp;
  for (const char* name :
       {"derived_inputs.json", "derived_inputs.cu", "derived_inputs_ref.cu", "derived_inputs_derive.cu"})
    std::filesystem::copy_file(kSpaces / name, temp.dir() / name);
  const std::string original = SearchSpace::load(kSpaces / "derived_inputs.json").hash();
  EXPECT_EQ(SearchSpace::load(temp.dir() / "derived_inputs.json").hash(), original);
  temp.write_text("derived_inputs_derive.cu", read(kSpaces / "derived_inputs_derive.cu") + "// edited\n");
  EXPECT_NE(SearchSpace::load(temp.dir() / "derived_inputs.json").hash(), original);
}

TEST(DerivedInputs, EachMistakeIsOneLineNamingItsField) {
  TempSpaces temp;
  EXPECT_EQ(error(temp, [](Json& j) { j.erase("DerivedInputs"); }),
            "KernelSpecification.Arguments[1].FillType: FillType Derived needs a DerivedInputs section: the "
            "kernel that computes 'y' from the other inputs");
  EXPECT_EQ(error(temp, [](Json& j) { j["KernelSpecification"]["Arguments"][1]["FillType"] = "Random"; }),
            "DerivedInputs: no argument has FillType Derived: nothing for the kernel to compute (leave "
            "DerivedInputs out)");
  EXPECT_EQ(error(temp,
                  [](Json& j) {
                    j["DerivedInputs"]["Arguments"] = {"x", "n"};
                  }),
            "DerivedInputs.Arguments: 'y' has FillType Derived but is not among the arguments: the "
            "DerivedInputs kernel must write it");
  // Only a ReadOnly Vector argument can be derived.
  EXPECT_EQ(
      error(temp, [](Json& j) { j["KernelSpecification"]["Arguments"][1]["AccessType"] = "ReadWrite"; }),
      "KernelSpecification.Arguments[1].FillType: FillType Derived needs a ReadOnly Vector argument; 'y' "
      "is AccessType ReadWrite");
  EXPECT_EQ(error(temp, [](Json& j) { j["KernelSpecification"]["Arguments"][2]["FillType"] = "Derived"; }),
            "KernelSpecification.Arguments[2].FillType: FillType Derived needs a ReadOnly Vector argument; "
            "'out' is AccessType WriteOnly");
  EXPECT_EQ(
      error(temp, [](Json& j) { j["KernelSpecification"]["Arguments"][3]["FillType"] = "Derived"; }),
      "KernelSpecification.Arguments[3].FillType: FillType Derived needs a ReadOnly Vector argument; 'n' "
      "is a Scalar argument");
  EXPECT_EQ(error(temp,
                  [](Json& j) {
                    Json part = scratch_argument("part");
                    part["FillType"] = "Derived";
                    j["KernelSpecification"]["Arguments"].push_back(part);
                  }),
            "KernelSpecification.Arguments[4].FillType: FillType Derived needs a ReadOnly Vector argument; "
            "'part' is a Scratch argument");
  // What the DerivedInputs kernel may take: inputs and scalars, no scratch, no output.
  EXPECT_EQ(error(temp,
                  [](Json& j) {
                    j["KernelSpecification"]["Arguments"].push_back(scratch_argument("part"));
                    j["DerivedInputs"]["Arguments"].push_back("part");
                  }),
            "DerivedInputs.Arguments[3]: 'part' is a Scratch argument, the variant's own: the DerivedInputs "
            "kernel cannot take it");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"]["Arguments"].push_back("out"); }),
            "DerivedInputs.Arguments[3]: 'out' is an output (AccessType WriteOnly): the DerivedInputs kernel "
            "runs on the inputs, before the variant");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"]["Arguments"].push_back("z"); }),
            "DerivedInputs.Arguments[3]: unknown argument 'z' (not in KernelSpecification.Arguments)");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"]["Arguments"].push_back("x"); }),
            "DerivedInputs.Arguments[3]: argument 'x' listed twice");
  // A derived buffer is computed, never filled.
  EXPECT_EQ(
      error(temp,
            [](Json& j) {
              j["KernelSpecification"]["Arguments"][1]["FillRange"] = {0, 1};
            }),
      "KernelSpecification.Arguments[1].FillRange: not allowed with FillType Derived (the DerivedInputs "
      "kernel writes the buffer)");
  EXPECT_EQ(error(temp,
                  [](Json& j) {
                    j["KernelSpecification"]["Arguments"][1]["SpecialFills"] = {{{"FillType", "Random"}}};
                  }),
            "KernelSpecification.Arguments[1].SpecialFills: a Derived buffer has no SpecialFills: the "
            "DerivedInputs kernel computes it from the others'");
  EXPECT_EQ(
      error(temp,
            [](Json& j) {
              j["KernelSpecification"]["Arguments"][0]["SpecialFills"] = {{{"FillType", "Derived"}}};
            }),
      "KernelSpecification.Arguments[0].SpecialFills[0].FillType: FillType Derived is not a special fill "
      "(a Derived buffer is always computed)");
  // It sees what the reference sees: problem sizes, device limits, no tuning parameter.
  EXPECT_EQ(
      error(temp, [](Json& j) { j["DerivedInputs"]["GlobalSize"]["X"] = "cdiv(N, BLOCK)"; }),
      "DerivedInputs.GlobalSize.X: 'BLOCK' is a tuning parameter, not visible in the DerivedInputs launch");
  EXPECT_EQ(error(temp,
                  [](Json& j) {
                    j["KernelSpecification"]["Arguments"].push_back(
                        {{"Name", "m"}, {"Type", "int32"}, {"MemoryType", "Scalar"}, {"Value", "N + MODE"}});
                    j["DerivedInputs"]["Arguments"].push_back("m");
                  }),
            "KernelSpecification.Arguments[4].Value: 'MODE' is a tuning parameter, not visible in the "
            "DerivedInputs launch");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"]["KernelFile"] = "/nonexistent/derive.cu"; }),
            "DerivedInputs.KernelFile: file not found: /nonexistent/derive.cu");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"].erase("KernelName"); }),
            "DerivedInputs.KernelName: missing required field");
  EXPECT_EQ(error(temp, [](Json& j) { j["DerivedInputs"]["Config"] = Json::object(); }),
            "DerivedInputs.Config: unknown field (known: KernelFile, KernelName, GlobalSize, LocalSize, "
            "SharedMemory, Arguments, Description)");
}

}  // namespace derived_inputs_test
}  // namespace evotune
