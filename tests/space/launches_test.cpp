// KernelSpecification.Launches and Scratch arguments: what a multi-launch space evaluates to, and the
// one-line error of every malformed launch list.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/known_devices.hpp"
#include "space/search_space.hpp"
#include "space/space_fixture.hpp"

namespace evotune {
namespace launches_test {

using testing::kSpaces;
using testing::row_sum_with_programmatic;
using testing::TempSpaces;

const DeviceInfo kDevice = offline_device("sm_90");

Config row_sum_config(ParamValue splits) { return {{"BLOCK", 128}, {"SPLITS", splits}}; }

TEST(Launches, OneSplitIsOneLaunchWithoutScratch) {
  const auto space = SearchSpace::load(kSpaces / "row_sum.json");
  ASSERT_EQ(space.launches().size(), 3u);
  EXPECT_EQ(space.launches()[0].condition, "SPLITS == 1");
  EXPECT_EQ(space.launches()[0].kernel.name, "row_sum");  // KernelName inherited
  EXPECT_EQ(space.launches()[1].kernel.block, (std::array<std::string, 3>{"BLOCK", "1", "1"}));  // inherited
  const auto launch = space.variant_launch(row_sum_config(1), space.resolve_problem(""), kDevice);
  EXPECT_EQ(launch.kernel_name, "row_sum");
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{100, 1, 1}));
  EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  ASSERT_EQ(launch.args.size(), 4u);
  EXPECT_EQ(launch.args[1].name, "out");
  EXPECT_TRUE(launch.then.empty());
  EXPECT_TRUE(launch.scratch.empty());  // no launch that runs names it
}

TEST(Launches, SplitsRunTwoKernelsThroughScratch) {
  const auto space = SearchSpace::load(kSpaces / "row_sum.json");
  const auto launch = space.variant_launch(row_sum_config(4), space.resolve_problem("ROWS=130"), kDevice);
  EXPECT_EQ(launch.kernel_name, "row_sum_part");
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{4, 130, 1}));
  EXPECT_EQ(launch.block, (std::array<std::uint32_t, 3>{128, 1, 1}));
  ASSERT_EQ(launch.args.size(), 4u);
  EXPECT_EQ(launch.args[1].name, "partial");
  EXPECT_EQ(launch.args[1].kind, ArgSpec::Kind::buffer);
  ASSERT_EQ(launch.then.size(), 1u);
  const LaunchSpec& combine = launch.then[0];
  EXPECT_EQ(combine.kernel_name, "row_sum_combine");
  EXPECT_EQ(combine.grid, (std::array<std::uint32_t, 3>{3, 1, 1}));  // Y and Z default to 1, not inherited
  EXPECT_EQ(combine.block, (std::array<std::uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(combine.args.size(), 3u);
  ASSERT_EQ(launch.scratch.size(), 1u);
  EXPECT_EQ(launch.scratch[0].name, "partial");
  EXPECT_EQ(launch.scratch[0].dtype, DType::f32);
  EXPECT_EQ(launch.scratch[0].count, 4 * 130);
  EXPECT_EQ(launch_steps(launch).size(), 2u);
}

TEST(Launches, ScratchIsNoProblemBuffer) {
  const auto space = SearchSpace::load(kSpaces / "row_sum.json");
  const auto buffers = space.buffers(space.resolve_problem(""));
  ASSERT_EQ(buffers.size(), 2u);
  EXPECT_EQ(buffers[0].name, "x");
  EXPECT_EQ(buffers[1].name, "out");
  EXPECT_TRUE(space.arguments()[2].is_scratch);
}

TEST(Launches, ASpaceWithoutLaunchesHasItsOneKernel) {
  const auto space = SearchSpace::load(kSpaces / "saxpy.json");
  ASSERT_EQ(space.launches().size(), 1u);
  EXPECT_EQ(space.launches()[0].condition, "");
  EXPECT_EQ(space.launches()[0].kernel.arguments, (std::vector<std::string>{"x", "y", "n", "a"}));
  const auto launch =
      space.variant_launch({{"BLOCK", 128}, {"ITEMS", 4}, {"VECTOR", 1}}, space.resolve_problem(""), kDevice);
  EXPECT_TRUE(launch.then.empty());
  EXPECT_TRUE(launch.scratch.empty());
}

// row_sum.json with `edit` applied, its kernel files made absolute, in a temporary folder.
class LaunchErrors : public ::testing::Test {
 protected:
  std::string load_error(const std::function<void(nlohmann::ordered_json&)>& edit) {
    const auto path = spaces_.write_from("row_sum", edit);
    try {
      const auto space = SearchSpace::load(path);
      space.variant_launch(row_sum_config(2), space.resolve_problem(""), kDevice);
    } catch (const SpaceError& error) {
      const std::string text = error.what();
      EXPECT_EQ(text.find('\n'), std::string::npos) << text;
      return text.substr(path.string().size());
    }
    return "no error";
  }
  nlohmann::ordered_json& launches(nlohmann::ordered_json& json) {
    return json["KernelSpecification"]["Launches"];
  }

  TempSpaces spaces_;
};

TEST_F(LaunchErrors, MalformedLists) {
  EXPECT_EQ(load_error([&](auto& json) { launches(json) = nlohmann::ordered_json::array(); }),
            ": KernelSpecification.Launches: empty list (leave Launches out for a single launch)");
  EXPECT_EQ(load_error([&](auto& json) {
              launches(json) = {{"KernelName", "row_sum"}};
            }),
            ": KernelSpecification.Launches: expected a list, got an object");
  EXPECT_EQ(
      load_error([&](auto& json) {
        launches(json)[1]["Grid"] = {{"X", 1}};
      }),
      ": KernelSpecification.Launches[1].Grid: unknown field (known: If, KernelName, GlobalSize, LocalSize, "
      "SharedMemory, ClusterSize, Arguments, Programmatic, ProgrammaticIf, Description)");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[2].erase("Arguments"); }),
            ": KernelSpecification.Launches[2].Arguments: missing required field");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[1]["KernelName"] = "row-sum"; }),
            ": KernelSpecification.Launches[1].KernelName: 'row-sum' is not a C identifier");
}

TEST_F(LaunchErrors, ArgumentNames) {
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[1]["Arguments"][1] = "partials"; }),
            ": KernelSpecification.Launches[1].Arguments[1]: unknown argument 'partials' (not in "
            "KernelSpecification.Arguments)");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[2]["Arguments"][1] = "partial"; }),
            ": KernelSpecification.Launches[2].Arguments[1]: argument 'partial' listed twice");
  EXPECT_EQ(load_error([&](auto& json) {
              launches(json)[0]["Arguments"][1] = "partial";
              launches(json)[2]["Arguments"][1] = "x";
            }),
            ": KernelSpecification.Arguments[1]: output 'out' is passed to no launch in "
            "KernelSpecification.Launches");
  EXPECT_EQ(load_error([&](auto& json) {
              launches(json).erase(2);
              launches(json)[1]["Arguments"][1] = "out";
            }),
            ": KernelSpecification.Arguments[2]: scratch 'partial' is passed to no launch in "
            "KernelSpecification.Launches");
  EXPECT_EQ(
      load_error([&](auto& json) { json["Reference"]["Arguments"][1] = "partial"; }),
      ": Reference.Arguments[1]: 'partial' is a Scratch argument, the variant's own: the reference cannot "
      "take it");
}

TEST_F(LaunchErrors, ScratchFields) {
  EXPECT_EQ(load_error(
                [&](auto& json) { json["KernelSpecification"]["Arguments"][2]["AccessType"] = "ReadWrite"; }),
            ": KernelSpecification.Arguments[2].AccessType: not allowed for a Scratch argument (it is "
            "NaN-poisoned, never compared)");
  EXPECT_EQ(load_error([&](auto& json) { json["KernelSpecification"]["Arguments"][2].erase("Size"); }),
            ": KernelSpecification.Arguments[2].Size: missing required field");
  EXPECT_EQ(
      load_error([&](auto& json) { json["KernelSpecification"]["Arguments"][2]["MemoryType"] = "Temp"; }),
      ": KernelSpecification.Arguments[2].MemoryType: unknown MemoryType 'Temp' (known: Vector, Scalar, "
      "Scratch, TensorMap)");
  EXPECT_EQ(
      load_error([&](auto& json) { json["KernelSpecification"]["Arguments"][2]["Size"] = "SPLIT * ROWS"; }),
      ": KernelSpecification.Arguments[2].Size: unknown name 'SPLIT'");
  EXPECT_EQ(
      load_error([&](auto& json) { json["KernelSpecification"]["Arguments"][2]["Size"] = "SPLITS - 3"; }),
      ": KernelSpecification.Arguments[2].Size: evaluates to -1, not an integer in [0, 9007199254740992] "
      "(problem ROWS=100,COLS=1000; config BLOCK=128,SPLITS=2)");
}

// FillType Zero: a scratch buffer that starts at zero (counters, sums by atomics), cleared before every
// execution; no other fill, since a scratch buffer is otherwise NaN-poisoned.
TEST_F(LaunchErrors, AScratchBufferMayStartAtZero) {
  const auto space = SearchSpace::load(spaces_.write_from(
      "row_sum", [](auto& json) { json["KernelSpecification"]["Arguments"][2]["FillType"] = "Zero"; },
      "zeroed.json"));
  EXPECT_TRUE(space.arguments()[2].scratch_zeroed);
  EXPECT_FALSE(space.arguments()[0].scratch_zeroed);
  const auto launch = space.variant_launch(row_sum_config(4), space.resolve_problem(""), kDevice);
  ASSERT_EQ(launch.scratch.size(), 1u);
  EXPECT_TRUE(launch.scratch[0].zeroed);
  EXPECT_EQ(launch.scratch[0].count, 4 * 100);

  const auto plain = SearchSpace::load(kSpaces / "row_sum.json");
  EXPECT_FALSE(plain.variant_launch(row_sum_config(4), plain.resolve_problem(""), kDevice).scratch[0].zeroed);

  EXPECT_EQ(
      load_error([&](auto& json) { json["KernelSpecification"]["Arguments"][2]["FillType"] = "Random"; }),
      ": KernelSpecification.Arguments[2].FillType: a Scratch argument's FillType is Zero (cleared before "
      "every execution) or absent (NaN-poisoned), not 'Random'");
  EXPECT_EQ(load_error([&](auto& json) {
              json["KernelSpecification"]["Arguments"][2]["FillType"] = "Zero";
              json["KernelSpecification"]["Arguments"][2]["FillValue"] = 0;
            }),
            ": KernelSpecification.Arguments[2].FillValue: not allowed for a Scratch argument (it is "
            "NaN-poisoned, never compared)");
}

TEST_F(LaunchErrors, ExpressionsOfALaunch) {
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[0]["If"] = "SPLIT == 1"; }),
            ": KernelSpecification.Launches[0].If: unknown name 'SPLIT'");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[1]["GlobalSize"]["Y"] = "ROW"; }),
            ": KernelSpecification.Launches[1].GlobalSize.Y: unknown name 'ROW'");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[1]["If"] = "SPLITS % 0"; }),
            ": KernelSpecification.Launches[1].If: cannot be evaluated (NaN) (problem ROWS=100,COLS=1000; "
            "config BLOCK=128,SPLITS=2)");
  EXPECT_EQ(load_error([&](auto& json) {
              for (auto& launch : launches(json)) launch["If"] = "SPLITS > 8";
            }),
            ": KernelSpecification.Launches: no launch applies (every If is 0) (problem ROWS=100,COLS=1000; "
            "config BLOCK=128,SPLITS=2)");
  // An inherited field's error names the KernelSpecification's own field.
  EXPECT_EQ(load_error([&](auto& json) { json["KernelSpecification"]["LocalSize"]["X"] = "BLOCK - 200"; }),
            ": KernelSpecification.LocalSize.X: evaluates to -72, not an integer in [0, 4294967295] (problem "
            "ROWS=100,COLS=1000; config BLOCK=128,SPLITS=2)");
}

// Programmatic: true never on the first entry ("always" may be), a boolean or "always", and only in Launches.
TEST_F(LaunchErrors, ProgrammaticIsABooleanAfterTheFirstLaunchOrAlways) {
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[0]["Programmatic"] = true; }),
            ": KernelSpecification.Launches[0].Programmatic: the first launch has no launch of the variant "
            "before it to depend on (\"always\": on the kernel before the call)");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[0]["Programmatic"] = "always"; }), "no error");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[2]["Programmatic"] = "sometimes"; }),
            ": KernelSpecification.Launches[2].Programmatic: expected true, false or \"always\", got "
            "\"sometimes\"");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[2]["Programmatic"] = 1; }),
            ": KernelSpecification.Launches[2].Programmatic: expected true or false, got 1");
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[0]["Programmatic"] = false; }), "no error");
  const std::string outside = load_error([&](auto& json) {
    launches(json)[2]["Programmatic"] = true;
    json["KernelSpecification"]["Programmatic"] = true;
  });
  EXPECT_EQ(outside.rfind(": KernelSpecification.Programmatic: unknown field (known: ", 0), 0u) << outside;
}

// ProgrammaticIf: a condition of a Programmatic launch, so only beside "Programmatic": true or "always".
TEST_F(LaunchErrors, ProgrammaticIfNeedsAProgrammaticLaunch) {
  const std::string message =
      ": KernelSpecification.Launches[2].ProgrammaticIf: a condition of \"Programmatic\" "
      "(true or \"always\"), which this launch does not set";
  EXPECT_EQ(load_error([&](auto& json) { launches(json)[2]["ProgrammaticIf"] = "SPLITS == 4"; }), message);
  EXPECT_EQ(load_error([&](auto& json) {
              launches(json)[2]["Programmatic"] = false;
              launches(json)[2]["ProgrammaticIf"] = "SPLITS == 4";
            }),
            message);
  EXPECT_EQ(load_error([&](auto& json) {
              launches(json)[2]["Programmatic"] = true;
              launches(json)[2]["ProgrammaticIf"] = "SPLITS == 4";
            }),
            "no error");
}

// A programmatic entry depends on the launch before it in the variant; where the entries before it do not
// apply, it is the variant's first launch and an ordinary one.
TEST(Launches, AProgrammaticLaunchFollowsALaunchOfTheSameVariant) {
  TempSpaces spaces;
  // row_sum_part (after row_sum's If) and row_sum_combine
  const auto space = row_sum_with_programmatic(spaces, {{1, true}, {2, true}});
  EXPECT_FALSE(space.launches()[0].programmatic);
  EXPECT_TRUE(space.launches()[1].programmatic);
  const auto split = space.variant_launch(row_sum_config(4), space.resolve_problem(""), kDevice);
  EXPECT_EQ(split.kernel_name, "row_sum_part");
  EXPECT_FALSE(split.programmatic) << "row_sum (If SPLITS == 1) does not run: nothing before it";
  ASSERT_EQ(split.then.size(), 1u);
  EXPECT_TRUE(split.then[0].programmatic);
  const auto one = space.variant_launch(row_sum_config(1), space.resolve_problem(""), kDevice);
  EXPECT_FALSE(one.programmatic);
  EXPECT_TRUE(one.then.empty());
}

// "Programmatic": "always": the launch is a programmatic dependent wherever it runs, as the variant's first
// launch too (behind the kernel the stream ran before the call).
TEST(Launches, AnAlwaysProgrammaticLaunchIsOneWhereItRunsFirst) {
  TempSpaces spaces;
  const auto space =
      row_sum_with_programmatic(spaces, {{0, "always"}, {1, "always"}});  // row_sum, row_sum_part
  EXPECT_TRUE(space.launches()[0].programmatic_first);
  EXPECT_FALSE(space.launches()[2].programmatic_first);
  const auto one = space.variant_launch(row_sum_config(1), space.resolve_problem(""), kDevice);
  EXPECT_EQ(one.kernel_name, "row_sum");
  EXPECT_TRUE(one.programmatic) << "the first launch, behind the kernel before the call";
  const auto split = space.variant_launch(row_sum_config(4), space.resolve_problem(""), kDevice);
  EXPECT_EQ(split.kernel_name, "row_sum_part");
  EXPECT_TRUE(split.programmatic);
  ASSERT_EQ(split.then.size(), 1u);
  EXPECT_FALSE(split.then[0].programmatic) << "row_sum_combine says nothing";
}

// ProgrammaticIf: the launch is a programmatic dependent only for the variants (and problems) where it holds,
// an ordinary launch elsewhere; one that cannot be evaluated is an error naming it.
TEST(Launches, AProgrammaticIfDecidesPerVariantAndProblem) {
  TempSpaces spaces;
  const auto with = [&](const std::string& condition) {
    return row_sum_with_programmatic(spaces, {{2, true}}, condition);  // row_sum_combine
  };
  const auto by_splits = with("SPLITS == 4");
  EXPECT_EQ(by_splits.launches()[2].programmatic_condition, "SPLITS == 4");
  const auto combine = [](const SearchSpace& space, ParamValue splits, const std::string& problem) {
    const auto launch = space.variant_launch(row_sum_config(splits), space.resolve_problem(problem), kDevice);
    EXPECT_EQ(launch.then.size(), 1u);
    return launch.then.empty() ? false : launch.then[0].programmatic;
  };
  EXPECT_TRUE(combine(by_splits, 4, ""));
  EXPECT_FALSE(combine(by_splits, 2, "")) << "SPLITS 2: an ordinary launch";
  const auto by_rows = with("ROWS > 100");
  EXPECT_TRUE(combine(by_rows, 2, "ROWS=130"));
  EXPECT_FALSE(combine(by_rows, 2, "ROWS=100"));
  const auto undefined = with("0 / 0");
  try {
    undefined.variant_launch(row_sum_config(2), undefined.resolve_problem(""), kDevice);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(
        std::string(error.what()).find("KernelSpecification.Launches[2].ProgrammaticIf: cannot be evaluated"),
        std::string::npos)
        << error.what();
  }
}

// ClusterSize: evaluated per config into the launch; launches inherit it like the rest of the geometry.
TEST(Launches, ClusterSizeIsPartOfTheGeometry) {
  const auto space = SearchSpace::load(kSpaces / "cluster_copy.json");
  const auto launch = space.variant_launch({{"CLUSTER", 4}, {"BLOCK", 128}, {"SMEM_KB", 0}},
                                           space.resolve_problem("N=1000"), kDevice);
  EXPECT_EQ(launch.cluster, (std::array<std::uint32_t, 3>{4, 1, 1}));
  EXPECT_EQ(launch.grid, (std::array<std::uint32_t, 3>{8, 1, 1}));  // cdiv(1000, 128 * 4) * 4
  EXPECT_EQ(space.reference_launch(space.resolve_problem("N=1000"), kDevice).cluster,
            (std::array<std::uint32_t, 3>{1, 1, 1}));
  const auto row_sum = SearchSpace::load(kSpaces / "row_sum.json");
  EXPECT_EQ(row_sum.variant_launch(row_sum_config(2), row_sum.resolve_problem(""), kDevice).cluster,
            (std::array<std::uint32_t, 3>{1, 1, 1}));
}

}  // namespace launches_test
}  // namespace evotune
