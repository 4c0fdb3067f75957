// The generator bakes constants in, deterministically.
#include "gen/kernel_source.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace {

TEST(RenderSource, DefinesEveryConstantBeforeTheTemplate) {
  const auto source = render_source("__global__ void k() {}\n", "k.cu", {{"BLOCK_M", 64}, {"D", 128}});
  const auto block_m = source.text.find("#define BLOCK_M 64\n");
  const auto d = source.text.find("#define D 128\n");
  const auto line = source.text.find("#line 1 \"k.cu\"\n");
  const auto body = source.text.find("__global__ void k()");
  ASSERT_NE(block_m, std::string::npos);
  ASSERT_NE(d, std::string::npos);
  ASSERT_NE(line, std::string::npos);
  EXPECT_LT(block_m, line);
  EXPECT_LT(d, line);
  EXPECT_LT(line, body);
  EXPECT_EQ(source.file_name, "k.cu");
}

TEST(RenderSource, SameConfigSameSourceSameHash) {
  const auto a = render_source("x", "k.cu", {{"A", 1}, {"B", 2}});
  const auto b = render_source("x", "k.cu", {{"B", 2}, {"A", 1}});
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.hash, b.hash);
}

TEST(RenderSource, DifferentValueDifferentHash) {
  EXPECT_NE(render_source("x", "k.cu", {{"A", 1}}).hash, render_source("x", "k.cu", {{"A", 2}}).hash);
  EXPECT_NE(render_source("x", "k.cu", {{"A", 1}}).hash, render_source("y", "k.cu", {{"A", 1}}).hash);
}

}  // namespace
}  // namespace evotune
