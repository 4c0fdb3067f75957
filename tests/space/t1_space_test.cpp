// Tests of reading T1 files: the spaces they become, geometry of both GlobalSizeTypes, the reference config,
// the round trip through `convert`'s document, and the one-line errors for what evotune cannot honour.
#include "space/t1_space.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "space/config_text.hpp"
#include "space/search_space.hpp"
#include "space/space_file.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace t1_space_test {

using Json = nlohmann::ordered_json;
using testing::load_error;
using testing::TempSpaces;

const std::filesystem::path kT1 = "tests/data/t1";

Json read_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  return Json::parse(in);
}

// A copy of a T1 file of tests/data/t1 with `edit` applied, next to the original kernels.
std::filesystem::path edited(const TempSpaces& temp, const std::string& name,
                             const std::function<void(Json&)>& edit) {
  Json json = read_json(kT1 / name);
  auto& file = json["KernelSpecification"]["KernelFile"];
  file = std::filesystem::absolute(kT1 / file.get<std::string>()).string();
  edit(json);
  const auto path = temp.dir() / name;
  std::ofstream(path) << json.dump(2);
  return path;
}

TEST(T1Space, DetectsT1ByTheMissingName) {
  EXPECT_TRUE(is_t1_document(read_json(kT1 / "transpose.json")));
  EXPECT_FALSE(is_t1_document(read_json("tests/data/spaces/saxpy.json")));
}

TEST(T1Space, ReadsTheTransposeFile) {
  const auto space = SearchSpace::load(kT1 / "transpose.json");
  EXPECT_EQ(space.name(), "transpose");
  ASSERT_EQ(space.parameters().size(), 3u);
  EXPECT_EQ(space.parameters()[0].values, (std::vector<ParamValue>{8, 16, 32}));
  EXPECT_EQ(space.parameters()[1].values.size(), 8u);
  ASSERT_EQ(space.conditions().size(), 2u);
  EXPECT_EQ(space.conditions()[1].expression,
            "((32 <= (TILE * BLOCK_ROWS)) && ((TILE * BLOCK_ROWS) <= 1024))");
  EXPECT_EQ(space.default_budget(), 20);
  EXPECT_EQ(space.compiler_options(), (std::vector<std::string>{"-std=c++17"}));
  const Sizes sizes = space.resolve_problem("");
  EXPECT_EQ(sizes.at("N"), 1000);
  // Python's own count: TILE in 8,16,32, BLOCK_ROWS 1..8 dividing it with 32 <= TILE*BLOCK_ROWS, PAD 0/1.
  std::size_t expected = 0;
  for (int tile : {8, 16, 32})
    for (int rows = 1; rows <= 8; ++rows)
      if (tile % rows == 0 && tile * rows >= 32 && tile * rows <= 1024) expected += 2;
  EXPECT_EQ(space.enumerate(sizes, DeviceInfo{}).size(), expected);
  const auto launch =
      space.variant_launch({{"TILE", 16}, {"BLOCK_ROWS", 4}, {"PAD", 0}}, sizes, DeviceInfo{});
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{63, 63, 1}));
  EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{16, 4, 1}));
  const auto buffers = space.buffers(sizes);
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_TRUE(buffers[0].is_output);
  EXPECT_FALSE(buffers[0].is_input);
  EXPECT_EQ(buffers[0].count, 1000000);
  EXPECT_EQ(buffers[1].fill.high, 10.0);
  EXPECT_EQ(buffers[1].fill.low, 0.0);
}

TEST(T1Space, TheReferenceIsTheTemplateAtTheDefaults) {
  auto space = SearchSpace::load(kT1 / "transpose.json");
  const Config defaults{{"TILE", 32}, {"BLOCK_ROWS", 8}, {"PAD", 1}};
  ASSERT_TRUE(space.reference_config());
  EXPECT_EQ(*space.reference_config(), defaults);
  const Sizes sizes = space.resolve_problem("");
  EXPECT_EQ(space.reference_constants(sizes),
            (std::map<std::string, std::int64_t>{{"BLOCK_ROWS", 8}, {"PAD", 1}, {"TILE", 32}}));
  EXPECT_EQ(space.reference_launch(sizes, DeviceInfo{}).grid, (std::array<std::uint32_t, 3>{32, 32, 1}));
  EXPECT_EQ(space.reference().name, "transpose");
  EXPECT_EQ(space.reference_source(), space.template_source());
  space.set_reference_config({{"TILE", 8}, {"BLOCK_ROWS", 4}, {"PAD", 0}});
  EXPECT_EQ(space.reference_launch(sizes, DeviceInfo{}).block, (std::array<std::uint32_t, 3>{8, 4, 1}));
  EXPECT_THROW(space.set_reference_config({{"TILE", 7}, {"BLOCK_ROWS", 4}, {"PAD", 0}}), Error);
  auto native = SearchSpace::load("tests/data/spaces/saxpy.json");
  EXPECT_FALSE(native.reference_config());
  EXPECT_THROW(native.set_reference_config({}), Error);
}

TEST(T1Space, OpenCLGlobalSizesCountThreads) {
  const auto space = SearchSpace::load(kT1 / "stencil.json");
  EXPECT_EQ(space.parameters()[0].values, (std::vector<ParamValue>{16, 32, 64, 128}));
  EXPECT_EQ(space.kernel().file.filename(), "stencil.h");
  const Sizes sizes = space.resolve_problem("");
  const auto launch =
      space.variant_launch({{"BLOCK_X", 64}, {"BLOCK_Y", 2}, {"TILE_Y", 3}}, sizes, DeviceInfo{});
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{24, 117, 1}));  // ceil(1500/64), ceil(ceil(700/3)/2)
  const auto buffers = space.buffers(sizes);
  EXPECT_TRUE(buffers[0].is_input && buffers[0].is_output);  // ReadWrite with Output: 1
  EXPECT_EQ(buffers[0].fill.kind, FillSpec::Kind::constant);
  EXPECT_EQ(space.default_budget(), 30);
  const SpaceFile file = read_space_file(kT1 / "stencil.json");
  EXPECT_EQ(file.t1_ignored, (std::vector<std::string>{"General.FormatVersion", "General.OutputFile",
                                                       "General.LoggingLevel"}));
}

// Kernel Tuner's ProblemSize and GridDiv give the grid when present (the suite's own Kernel Tuner runner
// prefers them to GlobalSize): ceil(extent / product of the divisors), the block size where none is given.
TEST(T1Space, ProblemSizeAndGridDivGiveTheGrid) {
  TempSpaces temp;
  const auto path = edited(temp, "transpose.json", [](Json& j) {
    auto& kernel = j["KernelSpecification"];
    kernel["ProblemSize"] = Json::array({"N", 999});
    kernel["GridDivX"] = Json::array({"TILE", "2"});
    kernel["GlobalSize"] = {{"X", "262144 // TILE"}, {"Y", "262144 // TILE"}, {"Z", "1"}};
  });
  const auto space = SearchSpace::load(path);
  const Sizes sizes = space.resolve_problem("");
  const auto launch =
      space.variant_launch({{"TILE", 16}, {"BLOCK_ROWS", 4}, {"PAD", 0}}, sizes, DeviceInfo{});
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{32, 250, 1}));  // ceil(1000/32), ceil(999/4)
  const SpaceFile file = read_space_file(path);
  EXPECT_NE(
      std::find(file.t1_ignored.begin(), file.t1_ignored.end(),
                "KernelSpecification.GlobalSize (the grid is ProblemSize / GridDiv, as Kernel Tuner reads "
                "the file)"),
      file.t1_ignored.end());
  const auto one_axis = edited(temp, "transpose.json", [](Json& j) {
    j["KernelSpecification"]["ProblemSize"] = 100000;
    j["KernelSpecification"].erase("GlobalSize");
  });
  EXPECT_EQ(SearchSpace::load(one_axis)
                .variant_launch({{"TILE", 32}, {"BLOCK_ROWS", 1}, {"PAD", 0}}, sizes, DeviceInfo{})
                .grid,
            (std::array<std::uint32_t, 3>{3125, 1, 1}));
}

// MemType Constant: the buffer is passed and also copied into the __constant__ variable of its name.
TEST(T1Space, ConstantMemTypeNamesTheConstantSymbol) {
  TempSpaces temp;
  auto with_mem_type = [&](const std::string& mem_type, int argument) {
    return edited(temp, "transpose.json",
                  [&](Json& j) { j["KernelSpecification"]["Arguments"][argument]["MemType"] = mem_type; });
  };
  const auto space = SearchSpace::load(with_mem_type("Constant", 1));
  const auto buffers = space.buffers(space.resolve_problem(""));
  EXPECT_EQ(buffers[1].constant_symbol, "in");
  EXPECT_EQ(buffers[0].constant_symbol, "");
  EXPECT_EQ(
      SearchSpace::load(with_mem_type("Global", 1)).buffers(space.resolve_problem(""))[1].constant_symbol,
      "");
  EXPECT_NE(load_error(with_mem_type("Texture", 1)).find("MemType 'Texture' is not supported"),
            std::string::npos);
  EXPECT_NE(load_error(with_mem_type("Constant", 0)).find("a Constant argument must be ReadOnly"),
            std::string::npos);
  EXPECT_NE(load_error(with_mem_type("Constant", 2)).find("a Scalar argument is passed by value"),
            std::string::npos);
}

// `convert` writes the document the reader builds; read back, it is the same space.
TEST(T1Space, ConversionRoundTrip) {
  TempSpaces temp;
  for (const char* name : {"transpose.json", "stencil.json"}) {
    const auto t1 = SearchSpace::load(kT1 / name);
    const auto native_path = temp.dir() / (std::string("native_") + name);
    auto document = Json::parse(t1.json_text());
    EXPECT_FALSE(is_t1_document(document));
    document["KernelSpecification"]["KernelFile"] = std::filesystem::absolute(t1.kernel().file).string();
    std::ofstream(native_path) << document.dump(2);
    const auto native = SearchSpace::load(native_path);
    const Sizes sizes = t1.resolve_problem("");
    EXPECT_EQ(native.resolve_problem(""), sizes);
    EXPECT_EQ(native.enumerate(sizes, DeviceInfo{}), t1.enumerate(sizes, DeviceInfo{})) << name;
    EXPECT_EQ(native.reference_config(), t1.reference_config());
    for (const auto& config : t1.enumerate(sizes, DeviceInfo{})) {
      EXPECT_EQ(native.variant_launch(config, sizes, DeviceInfo{}).grid,
                t1.variant_launch(config, sizes, DeviceInfo{}).grid);
      EXPECT_EQ(native.compile_time_constants(config, sizes), t1.compile_time_constants(config, sizes));
    }
    EXPECT_EQ(native.template_source(), t1.template_source());
    EXPECT_EQ(native.default_budget(), t1.default_budget());
  }
}

TEST(T1Space, ErrorsNameTheFileTheFieldAndTheConstruct) {
  TempSpaces temp;
  auto error = [&](const std::function<void(Json&)>& edit) {
    return load_error(edited(temp, "transpose.json", edit));
  };
  auto& params = "ConfigurationSpace";
  EXPECT_NE(
      error(
          [&](Json& j) { j[params]["TuningParameters"][0]["Values"] = "[x.bit_length() for x in range(3)]"; })
          .find("transpose.json: ConfigurationSpace.TuningParameters[0].Values: Python expression "
                "'[x.bit_length() for x in range(3)]': attribute access '.bit_length' is not supported"),
      std::string::npos);
  EXPECT_NE(error([&](Json& j) {
              j[params]["TuningParameters"][0]["Values"] = "__import__('os')";
            }).find("string literals are not supported"),
            std::string::npos);
  EXPECT_NE(
      error([&](Json& j) { j[params]["Conditions"][0]["Expression"] = "TILE % ROWS == 0"; })
          .find("ConfigurationSpace.Conditions[0].Expression: Python expression 'TILE % ROWS == 0': unknown "
                "name 'ROWS'"),
      std::string::npos);
  EXPECT_NE(error([&](Json& j) {
              j[params]["Conditions"][0]["Expression"] = "(lambda: 1)()";
            }).find("'lambda' is not supported"),
            std::string::npos);
  EXPECT_NE(error([&](Json& j) {
              j[params]["TuningParameters"][1]["Values"] = "import os";
            }).find("TuningParameters[1].Values: Python expression 'import os': 'import' is not supported"),
            std::string::npos);
  EXPECT_NE(error([&](Json& j) {
              j[params]["TuningParameters"][1]["Values"] = "[1.5, 2]";
            }).find("holds 1.5, not an integer"),
            std::string::npos);
  EXPECT_NE(error([&](Json& j) {
              j[params]["TuningParameters"][0]["Default"] = 64;
            }).find("TuningParameters[0].Default: default 64 is not among the Values"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["Language"] = "OpenCL";
            }).find("KernelSpecification.Language: Language 'OpenCL' is not supported"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["GlobalSizeType"] = "Vulkan";
            }).find("GlobalSizeType 'Vulkan' is not supported"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["Arguments"][1]["FillType"] = "BinaryRaw";
            }).find("Arguments[1].FillType: FillType 'BinaryRaw' is not supported"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["Arguments"][1]["Type"] = "float4";
            }).find("Arguments[1].Type: argument Type 'float4' is not supported"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["Arguments"][1]["Output"] = 1;
            }).find("an Output argument cannot be ReadOnly"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["KernelSpecification"]["Arguments"][0]["Size"] = "N * TILE";
            }).find("Arguments[0].Size: 'TILE' is a tuning parameter, not visible in buffer sizes"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) { j["Surprise"] = 1; }).find("transpose.json: Surprise: unknown field"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["BenchmarkConfig"]["N"] = 1.5;
            }).find("BenchmarkConfig.N: a BenchmarkConfig value must be an integer"),
            std::string::npos);
  EXPECT_NE(error([](Json& j) {
              j["ConfigurationSpace"]["TuningParameters"][2]["Type"] = "string";
            }).find("Type 'string' is not supported"),
            std::string::npos);
}

TEST(T1Space, DerivedInputsAreNotSupportedThere) {
  TempSpaces temp;
  const std::string why =
      ": derived inputs (FillType Derived, DerivedInputs) are not supported in a T1 file: write the space in "
      "evotune's format (evotune convert gives a start) and add a DerivedInputs section there";
  const auto fill = edited(temp, "transpose.json",
                           [](Json& j) { j["KernelSpecification"]["Arguments"][1]["FillType"] = "Derived"; });
  EXPECT_EQ(load_error(fill), fill.string() + ": KernelSpecification.Arguments[1].FillType" + why);
  const auto section = edited(temp, "transpose.json", [](Json& j) {
    j["DerivedInputs"] = {{"KernelFile", "transpose.cu"}, {"KernelName", "transpose"}};
  });
  EXPECT_EQ(load_error(section), section.string() + ": DerivedInputs" + why);
}

TEST(T1Space, BudgetListsAndNamesFromTheKernelSection) {
  TempSpaces temp;
  const auto path = edited(temp, "transpose.json", [](Json& j) {
    j["General"].erase("BenchmarkName");
    j["Budget"] = Json::array({{{"Type", "TuningDuration"}, {"BudgetValue", 60}},
                               {{"Type", "ConfigurationCount"}, {"BudgetValue", 7}}});
  });
  const auto space = SearchSpace::load(path);
  EXPECT_EQ(space.name(), "transpose");
  EXPECT_EQ(space.default_budget(), 7);
  const auto unnamed = edited(temp, "transpose.json", [](Json& j) {
    j["General"].erase("BenchmarkName");
    j["KernelSpecification"].erase("BenchmarkName");
  });
  std::filesystem::rename(unnamed, temp.dir() / "my_transpose.json");
  EXPECT_EQ(SearchSpace::load(temp.dir() / "my_transpose.json").name(), "my_transpose");
}

TEST(T1Space, ReferenceConfigText) {
  const Config base{{"TILE", 32}, {"BLOCK_ROWS", 8}, {"PAD", 1}};
  EXPECT_EQ(override_config(base, "TILE=16, PAD=0"), (Config{{"TILE", 16}, {"BLOCK_ROWS", 8}, {"PAD", 0}}));
  EXPECT_EQ(override_config(base, ""), base);
  auto error = [&](const std::string& text) {
    try {
      override_config(base, text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("TILE"), "config item 'TILE' is not NAME=VALUE");
  EXPECT_EQ(error("SIZE=4"), "config item 'SIZE=4': 'SIZE' is not a tuning parameter");
  EXPECT_EQ(error("TILE=8,TILE=16"), "config item 'TILE=16': 'TILE' given twice");
  EXPECT_EQ(error("TILE=8x"), "config item 'TILE=8x': '8x' is not an integer");
}

}  // namespace t1_space_test
}  // namespace evotune
