// The timing modes: their names, the auto rule, the choice of G and the texts of a timing method.
#include "core/timing_mode.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace timing_mode_test {

TEST(TimingMode, NamesRoundTripAndUnknownOnesAreRefused) {
  for (const TimingMode mode : {TimingMode::single, TimingMode::graph, TimingMode::automatic})
    EXPECT_EQ(timing_mode_from_string(to_string(mode)), mode);
  EXPECT_EQ(to_string(TimingMode::automatic), "auto");
  EXPECT_FALSE(timing_mode_from_string("automatic"));
  EXPECT_FALSE(timing_mode_from_string(""));
}

TEST(TimingMode, AutoTimesAGraphBelowTheThresholdOnly) {
  EXPECT_TRUE(uses_graph(TimingMode::automatic, 3.2));
  EXPECT_TRUE(uses_graph(TimingMode::automatic, kAutoGraphBelowUs - 0.01));
  EXPECT_FALSE(uses_graph(TimingMode::automatic, kAutoGraphBelowUs));
  EXPECT_FALSE(uses_graph(TimingMode::automatic, 2000));
  EXPECT_TRUE(uses_graph(TimingMode::graph, 2000));
  EXPECT_FALSE(uses_graph(TimingMode::single, 1));
}

TEST(TimingMode, GraphExecutionsFillAReplayOfAboutAHundredMicroseconds) {
  EXPECT_EQ(graph_executions_for(3.0), 20);  // ceil(100 / 3) = 34, capped
  EXPECT_EQ(graph_executions_for(5.0), 20);
  EXPECT_EQ(graph_executions_for(7.0), 15);  // ceil(14.3)
  EXPECT_EQ(graph_executions_for(49.0), 3);
  EXPECT_EQ(graph_executions_for(100.0), 1);
  EXPECT_EQ(graph_executions_for(5000.0), 1);
  EXPECT_EQ(graph_executions_for(0.0), kGraphMaxExecutions);
}

TEST(TimingMode, MethodsReadShortInTablesAndInFullInSentences) {
  EXPECT_EQ(short_text(TimingMethod{true, 12, true}), "graph x12 flush");
  EXPECT_EQ(short_text(TimingMethod{false, 0, false}), "single no-flush");
  EXPECT_EQ(short_text(TimingMethod{false, 0, true, "cuStreamEndCapture: invalidated"}), "single* flush");
  EXPECT_EQ(describe(TimingMethod{true, 12, true}),
            "a CUDA graph of 12 executions per replay, L2 flushed before each replay");
  EXPECT_EQ(describe(TimingMethod{false, 0, false, "cuStreamEndCapture: invalidated"}),
            "single launches, L2 not flushed (graph capture failed: cuStreamEndCapture: invalidated)");
}

}  // namespace timing_mode_test
}  // namespace evotune
