// `evotune report` refuses bad input with one line, a non-zero exit, and no file written.
#include <gtest/gtest.h>

#include "cli/cli_error_fixture.hpp"

namespace evotune {
namespace report_command_errors_test {

class ReportCommandErrors : public test::CliErrorTest {
 protected:
  // `report SPACE --db DB` into the temp folder, plus `extra`.
  std::string report(const std::string& space, const std::filesystem::path& db,
                     const std::string& extra = "") {
    return "report " + space + " --db " + db.string() + " -o " + (dir_ / "report.html").string() + " --svg " +
           (dir_ / "svg").string() + extra;
  }
};

TEST_F(ReportCommandErrors, SpaceNotInTheDatabase) {
  expect_refused(report("search_spaces/flash_attn_fwd.json", make_results_db()),
                 "no results for flash_attn_fwd");
}

TEST_F(ReportCommandErrors, ProblemNotInTheDatabase) {
  expect_refused(report(test::kSaxpy, make_results_db(), " --problem N=8192"),
                 "no results for saxpy with problem ALIGN=4,N=8192");
}

// The problem is known (another space, or a run that stored nothing, recorded it) but has no measurements of
// this space.
TEST_F(ReportCommandErrors, ProblemWithoutMeasurementsOfTheSpace) {
  const auto db = make_results_db();
  Store(db).upsert_problem({{"ALIGN", 4}, {"N", 8192}});
  expect_refused(report(test::kSaxpy, db, " --problem N=8192"), "no measurements of saxpy");
}

TEST_F(ReportCommandErrors, MissingDatabase) {
  expect_refused(report(test::kSaxpy, dir_ / "none.db"), "none.db");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "none.db"));
}

TEST_F(ReportCommandErrors, UnreadableDatabase) {
  store_test::write_bytes(dir_ / "garbage.db", std::string(4096, 'x'));
  expect_refused(report(test::kSaxpy, dir_ / "garbage.db"), "garbage.db: not a SQLite database");
}

TEST_F(ReportCommandErrors, PairThatIsNotTwoParametersOfTheSpace) {
  const auto db = make_results_db();
  expect_refused(report(test::kSaxpy, db, " --pair BLOCK,WARPS"),
                 "--pair: saxpy has no parameter 'WARPS' (its parameters: BLOCK, ITEMS, VECTOR)");
  expect_refused(report(test::kSaxpy, db, " --pair BLOCK"), "--pair takes two parameter names");
  expect_refused(report(test::kSaxpy, db, " --pair BLOCK,BLOCK"), "name two different parameters");
}

TEST_F(ReportCommandErrors, SoundDatabaseWritesThePage) {
  const auto result = test::run_evotune(report(test::kSaxpy, make_results_db()));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "report.html"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "svg" / "top-configs.svg"));
}

}  // namespace report_command_errors_test
}  // namespace evotune
