// Ranges and lists on --problem, and problems files.
#include "space/problem_list.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/error.hpp"
#include "core/scratch_dir.hpp"

namespace evotune {
namespace problem_list_test {

using Problems = std::vector<std::string>;

std::string error_of(const std::string& text) {
  try {
    expand_problem_text(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ProblemList, TextWithoutRangesIsOneProblemAsGiven) {
  EXPECT_EQ(expand_problem_text(" B=1,H=8 "), Problems{"B=1,H=8"});
  EXPECT_EQ(expand_problem_text(""), Problems{""});
  EXPECT_EQ(expand_problem_text("Q=1"), Problems{"Q=1"});  // names are checked by resolve_sizes
}

TEST(ProblemList, GeometricAndArithmeticRangesAndLists) {
  EXPECT_EQ(expand_problem_text("S=512..4096:x2"), (Problems{"S=512", "S=1024", "S=2048", "S=4096"}));
  EXPECT_EQ(expand_problem_text("S=512..5000:x4"), (Problems{"S=512", "S=2048"}));
  EXPECT_EQ(expand_problem_text("S=100..300:+100"), (Problems{"S=100", "S=200", "S=300"}));
  EXPECT_EQ(expand_problem_text("S=3..5"), (Problems{"S=3", "S=4", "S=5"}));
  // A value without a name adds to the size before it; the first size varies slowest.
  EXPECT_EQ(expand_problem_text("B=1,8, H=8, S=512..1024:x2"),
            (Problems{"B=1,H=8,S=512", "B=1,H=8,S=1024", "B=8,H=8,S=512", "B=8,H=8,S=1024"}));
  EXPECT_EQ(expand_problem_text("S=512,1000,512"), (Problems{"S=512", "S=1000"}));  // repeats once
}

TEST(ProblemList, MalformedRangesAreOneLineErrors) {
  EXPECT_EQ(error_of("8,B=1"), "problem: malformed item '8' (expected NAME=INTEGER, e.g. S=512)");
  EXPECT_EQ(error_of("S=4096..512:x2"), "problem: empty range 'S=4096..512:x2' (4096 > 512)");
  EXPECT_EQ(error_of("S=1..8:x1"), "problem: step of 'S=1..8:x1' must be x2 or more");
  EXPECT_EQ(error_of("S=1..8:/2"), "problem: malformed step in 'S=1..8:/2' (expected :xK or :+K)");
  EXPECT_EQ(error_of("S=0..8:x2"), "problem: a geometric range must start above 0: 'S=0..8:x2'");
  EXPECT_EQ(error_of("S=1..a"),
            "problem: malformed item 'S=1..a' (expected NAME=V, NAME=A..B:xK or NAME=A..B:+K)");
  EXPECT_EQ(error_of("S=1,S=2..4"), "problem: size 'S' given twice");
  EXPECT_EQ(error_of("A=1..100,B=1..101"),
            "problem: 'A=1..100,B=1..101' expands to more than 10000 problems");
}

class ProblemsFile : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& text) {
    const auto file = dir.path() / "problems.txt";
    std::ofstream(file) << text;
    return file;
  }
  std::string error_of(const std::string& text) {
    try {
      read_problems_file(write(text));
    } catch (const Error& e) {
      return std::string(e.what()).substr((dir.path() / "problems.txt").string().size() + 16);
    }
    return "no error";
  }
  ScratchDir dir{"problems"};
};

TEST_F(ProblemsFile, LinesWithCommentsAndRanges) {
  EXPECT_EQ(read_problems_file(write("# shapes\nB=1,S=512\n\n  B=8,S=1024..2048:x2  \n")),
            (Problems{"B=1,S=512", "B=8,S=1024", "B=8,S=2048"}));
}

TEST_F(ProblemsFile, AJsonListOfTextsAndObjects) {
  EXPECT_EQ(read_problems_file(write(R"([ "B=1,S=512..1024:x2", {"B": 8, "S": 4096} ])")),
            (Problems{"B=1,S=512", "B=1,S=1024", "B=8,S=4096"}));
}

TEST_F(ProblemsFile, BadFilesAreOneLineErrorsNamingTheFile) {
  EXPECT_EQ(error_of("# nothing\n\n"), "holds no problem");
  EXPECT_EQ(error_of(R"([{"S": "big"}])"), "size 'S' is not an integer");
  EXPECT_EQ(error_of("[1]"),
            "each entry must be a problem text (\"S=512\") or an object of sizes ({\"S\": 512})");
  EXPECT_EQ(error_of("[\"S=1\""),
            "not valid JSON: " + std::string("[json.exception.parse_error.101] parse error at line 1, "
                                             "column 7: syntax error while parsing array - unexpected "
                                             "end of input; expected ']'"));
  EXPECT_EQ(error_of("S=9..1"), "problem: empty range 'S=9..1' (9 > 1)");
  EXPECT_THROW(read_problems_file(dir.path() / "missing.txt"), Error);
}

}  // namespace problem_list_test
}  // namespace evotune
