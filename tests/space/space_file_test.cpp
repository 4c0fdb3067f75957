// Tests of reading space files: the contents of a valid one, and the message of every kind of bad one.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace space_file_test {

using testing::kSpaces;
using testing::load_error;
using testing::TempSpaces;

TEST(SpaceFile, ReadsEveryField) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  EXPECT_EQ(space.name(), "saxpy");
  EXPECT_EQ(space.path(), kSpaces / "saxpy.json");
  ASSERT_EQ(space.parameters().size(), 3u);
  EXPECT_EQ(space.parameters()[0].name, "BLOCK");
  EXPECT_EQ(space.parameters()[0].values, (std::vector<ParamValue>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(space.parameters()[0].description, "threads per block");
  EXPECT_EQ(space.parameters()[1].values, (std::vector<ParamValue>{1, 2, 4, 8}));  // from a T1 string
  EXPECT_EQ(space.parameters()[2].values, (std::vector<ParamValue>{0, 1}));

  ASSERT_EQ(space.conditions().size(), 3u);
  EXPECT_EQ(space.conditions()[0].name, "vector_items");
  EXPECT_EQ(space.conditions()[0].parameters, (std::vector<std::string>{"ITEMS", "VECTOR"}));
  EXPECT_EQ(space.conditions()[0].expression, "not(VECTOR) || ITEMS % 4 == 0");
  EXPECT_EQ(space.conditions()[0].reason, "float4 accesses need ITEMS to be a multiple of 4");

  ASSERT_EQ(space.sizes().size(), 2u);
  EXPECT_EQ(space.sizes()[0].name, "N");
  EXPECT_EQ(space.sizes()[0].default_value, 4096);
  EXPECT_FALSE(space.sizes()[0].compile_time);
  EXPECT_TRUE(space.sizes()[0].allowed.empty());
  EXPECT_EQ(space.sizes()[1].allowed, (std::vector<std::int64_t>{1, 4}));
  EXPECT_TRUE(space.sizes()[1].compile_time);

  EXPECT_EQ(space.kernel().name, "saxpy");
  EXPECT_EQ(space.kernel().file, kSpaces / "saxpy.cu");
  EXPECT_EQ(space.kernel().grid, (std::array<std::string, 3>{"BLOCKS", "1", "1"}));
  EXPECT_EQ(space.kernel().block, (std::array<std::string, 3>{"BLOCK", "1", "1"}));  // number and default
  EXPECT_EQ(space.kernel().arguments, (std::vector<std::string>{"x", "y", "n", "a"}));
  EXPECT_EQ(space.reference().name, "saxpy_ref");
  EXPECT_EQ(space.reference().shared_memory, "0");
  EXPECT_EQ(space.reference().arguments, (std::vector<std::string>{"n", "a", "x", "y"}));
  EXPECT_NE(space.template_source().find("saxpy(const float*"), std::string::npos);
  EXPECT_NE(space.reference_source().find("saxpy_ref(int n"), std::string::npos);
  EXPECT_EQ(space.compiler_options(), (std::vector<std::string>{"-std=c++17"}));
  EXPECT_EQ(space.arch_suffix(), "");

  ASSERT_EQ(space.arguments().size(), 4u);
  const auto& x = space.arguments()[0];
  EXPECT_TRUE(x.is_vector && x.is_input && !x.is_output);
  EXPECT_EQ(x.dtype, DType::f32);
  EXPECT_EQ(x.size_expr, "N");
  EXPECT_EQ(x.fill.kind, FillSpec::Kind::random_uniform);
  EXPECT_EQ(x.fill.low, "-2");
  EXPECT_EQ(x.fill.high, "2");
  const auto& y = space.arguments()[1];
  EXPECT_TRUE(y.is_input && y.is_output);
  EXPECT_EQ(y.fill.kind, FillSpec::Kind::constant);
  EXPECT_EQ(y.fill.value, "0.5");
  const auto& n = space.arguments()[2];
  EXPECT_FALSE(n.is_vector);
  EXPECT_EQ(n.dtype, DType::i32);
  EXPECT_EQ(n.value_expr, "N");

  EXPECT_EQ(space.tolerances().max_abs, 1e-5);
  EXPECT_EQ(space.tolerances().rel_l2, 1e-6);
  EXPECT_EQ(space.default_budget(), 20);
  EXPECT_NE(space.json_text().find("\"Name\": \"saxpy\""), std::string::npos);
}

TEST(SpaceFile, ASpaceMayDeclareItsKernelsNondeterministic) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) { json["Validation"]["Deterministic"] = false; });
  EXPECT_FALSE(SearchSpace::load(file).tolerances().deterministic);
}

TEST(SpaceFile, SeedsAreWholeConfigsOfTheParametersValues) {
  TempSpaces temp;
  const auto seeded = [&](const std::string& seeds) {
    return temp.write([&](auto& json) { json["Seeds"] = nlohmann::ordered_json::parse(seeds); });
  };
  const auto file =
      seeded(R"([{"BLOCK": 256, "ITEMS": 4, "VECTOR": 1}, {"BLOCK": 32, "ITEMS": 1, "VECTOR": 0}])");
  EXPECT_EQ(SearchSpace::load(file).seeds(),
            (std::vector<Config>{{{"BLOCK", 256}, {"ITEMS", 4}, {"VECTOR", 1}},
                                 {{"BLOCK", 32}, {"ITEMS", 1}, {"VECTOR", 0}}}));
  EXPECT_TRUE(SearchSpace::load(temp.write([](auto&) {})).seeds().empty());
  const std::string unknown = load_error(seeded(R"([{"BLOCK": 256, "ITEMS": 4, "VECTOR": 1, "UNROLL": 2}])"));
  EXPECT_NE(unknown.find("UNROLL: 'UNROLL' is not a tuning parameter"), std::string::npos) << unknown;
  const std::string value = load_error(seeded(R"([{"BLOCK": 100, "ITEMS": 4, "VECTOR": 1}])"));
  EXPECT_NE(value.find("100 is not among BLOCK's Values"), std::string::npos) << value;
  const std::string missing = load_error(seeded(R"([{"BLOCK": 256, "VECTOR": 1}])"));
  EXPECT_NE(missing.find("the seed does not name ITEMS"), std::string::npos) << missing;
}

// A seed may name the problem it was found for; the sizes it omits, and all of them without a Problem, take
// their defaults (saxpy: N 4096, ALIGN 4 of 1 and 4). A search on a problem opens with the seed found for the
// nearest (problem_distance: the root of the summed squares of the sizes' log2 ratios, 1 for a size one
// lacks).
TEST(SpaceFile, ASeedMayNameTheProblemItIsFor) {
  TempSpaces temp;
  const Config plain{{"BLOCK", 256}, {"ITEMS", 4}, {"VECTOR", 1}};  // no Problem: N 4096, ALIGN 4
  const Config named{{"BLOCK", 64}, {"ITEMS", 2}, {"VECTOR", 0}};   // the Problem under test
  const Config near{{"BLOCK", 32}, {"ITEMS", 4}, {"VECTOR", 1}};    // N 100, ALIGN 4
  const auto seeded = [&](const std::string& problem) {
    return temp.write([&](auto& json) {
      json["Seeds"] = nlohmann::ordered_json::parse(R"([{"BLOCK": 256, "ITEMS": 4, "VECTOR": 1},
        {"BLOCK": 64, "ITEMS": 2, "VECTOR": 0, "Problem": )" +
                                                    problem + R"(},
        {"BLOCK": 32, "ITEMS": 4, "VECTOR": 1, "Problem": {"N": 100, "ALIGN": 4}}])");
    });
  };
  const auto opening = [](const SearchSpace& space, const std::string& problem) {
    return space.seeds_for(space.resolve_problem(problem));
  };
  const SearchSpace full = SearchSpace::load(seeded(R"({"N": 77, "ALIGN": 1})"));
  EXPECT_EQ(full.seeds(), (std::vector<Config>{plain, named, near}));
  // named (N 77, ALIGN 1) is at 0 from N 77, ALIGN 1, near at 2.03, plain at 6.07; from N 77, ALIGN 4 near is
  // at 0.38, named at 2 (ALIGN 1 as written), plain at 5.73; from the defaults plain is at 0.
  EXPECT_EQ(opening(full, "N=77,ALIGN=1"), (std::vector<Config>{named, near, plain}));
  EXPECT_EQ(opening(full, "N=77,ALIGN=4"), (std::vector<Config>{near, named, plain}));
  EXPECT_EQ(opening(full, ""), (std::vector<Config>{plain, near, named}));
  // {"N": 77}: ALIGN takes its default, 4, so that named is at 0 from N 77, ALIGN 4 (had it no ALIGN, at 1:
  // after near).
  const SearchSpace partial = SearchSpace::load(seeded(R"({"N": 77})"));
  EXPECT_EQ(opening(partial, "N=77,ALIGN=4"), (std::vector<Config>{named, near, plain}));

  for (const auto& [problem, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"M": 77})", "Seeds[1].Problem.M: 'M' is not a problem size"},
           {R"({"N": 7.5})", "Seeds[1].Problem.N: expected an integer, got 7.5"},
           {R"({"N": "77"})", "Seeds[1].Problem.N: expected an integer, got \"77\""},
           {R"([77])", "Seeds[1].Problem: expected an object, got a list"},
           {R"({"ALIGN": 2})", "Seeds[1].Problem.ALIGN: 2 is not allowed (allowed: 1, 4)"},
           {R"({"N": 0})", "Seeds[1].Problem.N: 0 is not positive"}}) {
    const std::string error = load_error(seeded(problem));
    EXPECT_NE(error.find(message), std::string::npos) << problem << ": " << error;
  }
}

// A search opens with the seed found for the problem nearest its own; seeds at one distance keep file order.
TEST(SpaceFile, SeedsForAProblemComeNearestProblemFirst) {
  TempSpaces temp;
  const Config tile_256{{"BLOCK", 256}, {"ITEMS", 1}, {"VECTOR", 0}};
  const Config tile_64{{"BLOCK", 32}, {"ITEMS", 2}, {"VECTOR", 0}};
  const Config tile_128{{"BLOCK", 32}, {"ITEMS", 4}, {"VECTOR", 1}};
  const SearchSpace space = SearchSpace::load(temp.write([&](auto& json) {
    json["Seeds"] = nlohmann::ordered_json::parse(R"([{"BLOCK": 256, "ITEMS": 1, "VECTOR": 0},
      {"BLOCK": 32, "ITEMS": 2, "VECTOR": 0, "Problem": {"N": 77}},
      {"BLOCK": 32, "ITEMS": 4, "VECTOR": 1, "Problem": {"N": 300}}])");
  }));
  EXPECT_EQ(space.seeds(), (std::vector<Config>{tile_256, tile_64, tile_128}));  // file order
  EXPECT_EQ(space.seeds_for(space.resolve_problem("N=77")),
            (std::vector<Config>{tile_64, tile_128, tile_256}));
  EXPECT_EQ(space.seeds_for(space.resolve_problem("N=256")),
            (std::vector<Config>{tile_128, tile_64, tile_256}));
  EXPECT_EQ(space.seeds_for(space.resolve_problem("")), (std::vector<Config>{tile_256, tile_128, tile_64}));

  const SearchSpace unnamed = SearchSpace::load(temp.write([&](auto& json) {
    json["Seeds"] = nlohmann::ordered_json::parse(R"([{"BLOCK": 32, "ITEMS": 2, "VECTOR": 0},
      {"BLOCK": 256, "ITEMS": 1, "VECTOR": 0}, {"BLOCK": 32, "ITEMS": 4, "VECTOR": 1}])");
  }));
  for (const char* problem : {"", "N=77", "N=1000000,ALIGN=1"})
    EXPECT_EQ(unnamed.seeds_for(unnamed.resolve_problem(problem)),
              (std::vector<Config>{tile_64, tile_256, tile_128}))
        << problem;
}

TEST(SpaceFile, DefaultsOfOptionalSections) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) {
    json.erase("Validation");
    json.erase("Work");
    json.erase("Budget");
    json.erase("General");
  });
  const auto space = SearchSpace::load(file);
  EXPECT_EQ(space.tolerances().max_abs, 2e-2);
  EXPECT_EQ(space.tolerances().rel_l2, 1e-2);
  EXPECT_TRUE(space.tolerances().deterministic);
  EXPECT_FALSE(space.default_budget());
  EXPECT_EQ(space.flops(space.resolve_problem("")), 0);
  EXPECT_EQ(space.bytes(space.resolve_problem("")), 0);
}

struct BadFile {
  std::string file;
  std::string message;  // after "tests/data/spaces/bad/FILE"
};

class BadSpaceFile : public ::testing::TestWithParam<BadFile> {};

TEST_P(BadSpaceFile, NamesFileFieldAndProblem) {
  const auto path = kSpaces / "bad" / GetParam().file;
  EXPECT_EQ(load_error(path), path.string() + GetParam().message);
}

const BadFile kBadFiles[] = {
    {"malformed.json",
     ":5:31: malformed JSON: syntax error while parsing object - unexpected string literal; "
     "expected '}'"},
    {"empty_values.json", ": ConfigurationSpace.TuningParameters[1].Values: empty list"},
    {"bad_values_string.json",
     ": ConfigurationSpace.TuningParameters[1].Values: the string does not hold a list of "
     "integers"},
    {"bool_values.json",
     ": ConfigurationSpace.TuningParameters[2].Values: value 2 for Type bool (allowed: 0, 1)"},
    {"unknown_type.json",
     ": ConfigurationSpace.TuningParameters[0].Type: unknown Type 'float' (known: int, uint, bool)"},
    {"duplicate_parameter.json",
     ": ConfigurationSpace.TuningParameters[2].Name: duplicate name 'BLOCK' (already a "
     "tuning parameter)"},
    {"bad_identifier.json",
     ": ConfigurationSpace.TuningParameters[0].Name: 'BLOCK-SIZE' is not a C identifier"},
    {"condition_parameter.json",
     ": ConfigurationSpace.Conditions[2].Parameters[1]: 'ITEM' is not a tuning parameter"},
    {"unknown_name.json", ": ConfigurationSpace.Conditions[1].Expression: unknown name 'BLOK'"},
    {"syntax_error.json",
     ": ConfigurationSpace.Conditions[0].Expression: syntax error: Unexpected end of expression "
     "at position 13"},
    {"unknown_function.json", ": Expressions.BLOCKS: unknown function 'ceildiv'"},
    {"later_expression.json",
     ": Expressions.BLOCKS: 'TILE' is defined later in Expressions (an expression can use "
     "only the ones before it)"},
    {"name_clash.json", ": Expressions.TILE: duplicate name 'TILE' (already a problem size)"},
    {"reserved_name.json", ": Problem.Sizes[0].Name: 'min' is the name of a function"},
    {"default_not_in_values.json", ": Problem.Sizes[1].Default: default 2 is not in Values"},
    {"missing_field.json", ": KernelSpecification.KernelName: missing required field"},
    {"missing_kernel_file.json",
     ": KernelSpecification.KernelFile: file not found: tests/data/spaces/no_such_kernel.cu"},
    {"unknown_memory_type.json",
     ": KernelSpecification.Arguments[0].MemoryType: unknown MemoryType 'Local' (known: "
     "Vector, Scalar, Scratch, TensorMap)"},
    {"unknown_access_type.json",
     ": KernelSpecification.Arguments[1].AccessType: unknown AccessType 'Write' (known: "
     "ReadOnly, WriteOnly, ReadWrite)"},
    {"unknown_dtype.json",
     ": KernelSpecification.Arguments[0].Type: unknown Type 'float16' (known: half, bfloat16, "
     "float, double, int32, int64)"},
    {"unknown_argument_field.json",
     ": KernelSpecification.Arguments[0].Sise: unknown field (known: Name, Type, "
     "MemoryType, Size, AccessType, FillType, FillRange, FillValue, SpecialFills, Value, ConstantSymbol, "
     "Description)"},
    {"special_fills_on_output.json",
     ": KernelSpecification.Arguments[1].SpecialFills: a WriteOnly argument is not filled (it is "
     "NaN-poisoned)"},
    {"special_fill_range_on_constant.json",
     ": KernelSpecification.Arguments[0].SpecialFills[1].FillRange: FillRange needs FillType Random"},
    {"extra_problem_compile_time.json",
     ": Validation.ExtraProblems[0].ALIGN: a compile-time size: every variant is compiled for one value of "
     "it"},
    {"extra_problem_unknown_size.json", ": Validation.ExtraProblems[0].M: not a problem size"},
    {"unknown_top_field.json",
     ": Expresions: unknown field (known: General, Name, ConfigurationSpace, Problem, "
     "Expressions, KernelSpecification, Reference, DerivedInputs, Validation, Work, Budget, Baseline, Seeds, "
     "Description)"},
    {"no_output.json",
     ": KernelSpecification.Arguments: no output argument (AccessType WriteOnly or ReadWrite): "
     "nothing to validate"},
    {"parameter_in_size.json",
     ": KernelSpecification.Arguments[1].Size: 'BLOCK' is a tuning parameter, not visible "
     "in buffer sizes, fills and Work"},
    {"unknown_reference_argument.json",
     ": Reference.Arguments[2]: unknown argument 'z' (not in "
     "KernelSpecification.Arguments)"},
    {"missing_reference_output.json",
     ": Reference.Arguments: output 'y' is missing: the reference must write it"},
    {"parameter_in_reference.json",
     ": Reference.LocalSize.X: 'BLOCK' is a tuning parameter, not visible in the "
     "reference's launch"},
    {"parameter_in_work.json",
     ": Work.Flops: 'BLOCKS' depends on tuning parameters, not visible in buffer sizes, fills and "
     "Work"},
    {"device_in_work.json",
     ": Work.Bytes: 'DEVICE_SM_COUNT' is a device limit, not visible in buffer sizes, fills and Work"},
};

INSTANTIATE_TEST_SUITE_P(EveryErrorClass, BadSpaceFile, ::testing::ValuesIn(kBadFiles), [](const auto& info) {
  return info.param.file.substr(0, info.param.file.find('.'));
});

// Errors that need a small edit of the valid file rather than a file of their own.
TEST(SpaceFile, MoreErrors) {
  TempSpaces temp;
  const auto error = [&](const std::function<void(nlohmann::ordered_json&)>& edit) {
    const auto file = temp.write(edit);
    const std::string message = load_error(file);
    EXPECT_EQ(message.rfind(file.string() + ": ", 0), 0u) << message;
    return message.substr(std::min(message.size(), file.string().size() + 2));
  };
  EXPECT_EQ(error([](auto& j) { j["General"]["FormatVersion"] = 2; }),
            "General.FormatVersion: unsupported format version 2 (this evotune reads 1)");
  EXPECT_EQ(error([](auto& j) { j.erase("Name"); }), "Name: missing required field");
  EXPECT_EQ(error([](auto& j) { j.erase("Reference"); }), "Reference: missing required field");
  EXPECT_EQ(error([](auto& j) {
              j["ConfigurationSpace"]["TuningParameters"][0]["Values"] = {1, 2, 1};
            }),
            "ConfigurationSpace.TuningParameters[0].Values: value 1 listed twice");
  EXPECT_EQ(error([](auto& j) {
              j["ConfigurationSpace"]["TuningParameters"][1]["Values"] = {1, -2};
            }),
            "ConfigurationSpace.TuningParameters[1].Values: negative value -2 for Type uint");
  EXPECT_EQ(error([](auto& j) {
              j["ConfigurationSpace"]["TuningParameters"][0]["Values"] = {32, 1.5};
            }),
            "ConfigurationSpace.TuningParameters[0].Values[1]: expected an integer, got 1.5");
  EXPECT_EQ(
      error([](auto& j) { j["ConfigurationSpace"]["TuningParameters"] = nlohmann::ordered_json::array(); }),
      "ConfigurationSpace.TuningParameters: empty list");
  EXPECT_EQ(error([](auto& j) { j["ConfigurationSpace"]["Conditions"][0].erase("Expression"); }),
            "ConfigurationSpace.Conditions[0].Expression: missing required field");
  EXPECT_EQ(
      error([](auto& j) { j["ConfigurationSpace"]["Conditions"][0]["Expression"] = true; }),
      "ConfigurationSpace.Conditions[0].Expression: expected an expression (a string or a number), got true");
  EXPECT_EQ(error([](auto& j) { j["Problem"]["Sizes"][0]["Default"] = 0; }),
            "Problem.Sizes[0].Default: default 0 is not positive (list Values to allow it)");
  EXPECT_EQ(error([](auto& j) { j["Problem"]["Sizes"][0].erase("Default"); }),
            "Problem.Sizes[0].Default: missing required field");
  EXPECT_EQ(error([](auto& j) { j["Expressions"]["TILE"] = "TILE * 2"; }),
            "Expressions.TILE: 'TILE' refers to itself");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Language"] = "OpenCL"; }),
            "KernelSpecification.Language: unsupported Language 'OpenCL' (evotune tunes CUDA)");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["ArchSuffix"] = "f"; }),
            "KernelSpecification.ArchSuffix: unknown ArchSuffix 'f' (known: \"\", \"a\")");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["GlobalSize"].erase("X"); }),
            "KernelSpecification.GlobalSize.X: missing required field");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["LocalSize"]["W"] = 1; }),
            "KernelSpecification.LocalSize.W: unknown field (known: X, Y, Z, Description)");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Arguments"][0]["FillType"] = "Generator"; }),
            "KernelSpecification.Arguments[0].FillType: unknown FillType 'Generator' (known: Random, "
            "Constant, Derived)");
  EXPECT_EQ(error([](auto& j) {
              j["KernelSpecification"]["Arguments"][0]["FillRange"] = {1, 0};
            }),
            "KernelSpecification.Arguments[0].FillRange: low is above high");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Arguments"][1].erase("FillValue"); }),
            "KernelSpecification.Arguments[1].FillValue: missing required field");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Arguments"][2].erase("Value"); }),
            "KernelSpecification.Arguments[2].Value: missing required field");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Arguments"][3]["Name"] = "x"; }),
            "KernelSpecification.Arguments[3].Name: duplicate argument 'x'");
  EXPECT_EQ(error([](auto& j) { j["KernelSpecification"]["Arguments"][0]["Size"] = "cdiv(N, DEVICE_CC)"; }),
            "KernelSpecification.Arguments[0].Size: 'DEVICE_CC' is a device limit, not visible in buffer "
            "sizes, fills and "
            "Work");
  EXPECT_EQ(error([](auto& j) {
              j["Reference"]["Arguments"] = {"n", "a", "x", "y", "x"};
            }),
            "Reference.Arguments[4]: argument 'x' listed twice");
  EXPECT_EQ(error([](auto& j) { j["Reference"]["KernelFile"] = "missing_ref.cu"; }),
            "Reference.KernelFile: file not found: " + (temp.dir() / "missing_ref.cu").string());
  EXPECT_EQ(error([](auto& j) { j["Validation"]["AbsoluteTolerance"] = -1; }),
            "Validation.AbsoluteTolerance: negative tolerance");
  EXPECT_NE(error([](auto& j) { j["Validation"]["Deterministic"] = "yes"; }).find("Validation.Deterministic"),
            std::string::npos);
  EXPECT_EQ(error([](auto& j) { j["Budget"][0]["Type"] = "Minutes"; }),
            "Budget[0].Type: unknown budget Type 'Minutes' (known: ConfigurationCount, TuningDuration, "
            "ConfigurationFraction)");
  EXPECT_EQ(error([](auto& j) { j["Budget"][0]["BudgetValue"] = 0; }),
            "Budget[0].BudgetValue: budget must be positive");
  EXPECT_EQ(error([](auto& j) { j["Work"]["Flopz"] = "1"; }),
            "Work.Flopz: unknown field (known: Flops, Bytes, Description)");
}

TEST(SpaceFile, DescriptionAndGeneralAreFreeForm) {
  TempSpaces temp;
  const auto file = temp.write([](auto& json) {
    json["General"]["Author"] = "someone";
    json["KernelSpecification"]["Description"] = "any text";
    json["KernelSpecification"]["Arguments"][0]["Description"] = "the input";
  });
  EXPECT_EQ(SearchSpace::load(file).name(), "saxpy");
}

TEST(SpaceFile, MissingFileAndNotAnObject) {
  EXPECT_EQ(load_error("tests/data/spaces/nope.json"), "tests/data/spaces/nope.json: cannot read the file");
  TempSpaces temp;
  const auto file = temp.write_text("list.json", "[1, 2]");
  EXPECT_EQ(load_error(file), file.string() + ": expected an object, got a list");
}

}  // namespace space_file_test
}  // namespace evotune
