// Ticks, bands and the fixed formatting the report's bytes depend on.
#include "report/scale.hpp"

#include <gtest/gtest.h>

#include "report/text_format.hpp"

namespace evotune::report {
namespace scale_test {

std::vector<std::string> labels(const Scale& scale) {
  std::vector<std::string> texts;
  for (const auto& tick : scale.ticks()) texts.push_back(tick.label);
  return texts;
}

TEST(ReportScale, LinearTicksAreRoundStepsInsideTheDomain) {
  EXPECT_EQ(labels(Scale::linear(0, 200, 0, 100)),
            (std::vector<std::string>{"0", "50", "100", "150", "200"}));
  EXPECT_EQ(labels(Scale::linear(11.3, 13.8, 0, 100)),
            (std::vector<std::string>{"11.5", "12.0", "12.5", "13.0", "13.5"}));
  EXPECT_EQ(labels(Scale::linear(-1, 1, 0, 100)).front(), "-1.0");
}

TEST(ReportScale, LogTicksPickTheSparsestRoundSetWithFourTicks) {
  EXPECT_EQ(labels(Scale::log(1, 10000, 0, 100)),
            (std::vector<std::string>{"1", "10", "100", "1000", "10000"}));
  EXPECT_EQ(labels(Scale::log(0.5, 20, 0, 100)),
            (std::vector<std::string>{"0.5", "1", "2", "5", "10", "20"}));
  EXPECT_EQ(labels(Scale::log(11.2, 60, 0, 100)),
            (std::vector<std::string>{"15", "20", "30", "40", "50", "60"}));
  // Too narrow for round values: linear ticks.
  EXPECT_EQ(labels(Scale::log(11.3, 13.8, 0, 100)),
            (std::vector<std::string>{"11.5", "12.0", "12.5", "13.0", "13.5"}));
}

TEST(ReportScale, MapsTheDomainOntoThePixelsEitherWay) {
  const Scale y = Scale::log(10, 1000, 300, 100);
  EXPECT_DOUBLE_EQ(y(10), 300);
  EXPECT_DOUBLE_EQ(y(100), 200);
  EXPECT_DOUBLE_EQ(y(1000), 100);
  const Scale flat = Scale::linear(5, 5, 0, 10);  // an empty domain is widened, not divided by zero
  EXPECT_DOUBLE_EQ(flat(5), 5);
}

TEST(ReportBand, GroupsAreSetApartAndNamed) {
  const Band band({{"16", "BLOCK_M"}, {"32", "BLOCK_M"}, {"0", "PAD"}}, 0, 350, 0.2);
  EXPECT_DOUBLE_EQ(band.step(), 100);  // three slots and half a slot between the groups
  EXPECT_DOUBLE_EQ(band.centre(0), 50);
  EXPECT_DOUBLE_EQ(band.centre(1), 150);
  EXPECT_DOUBLE_EQ(band.centre(2), 300);
  EXPECT_DOUBLE_EQ(band.width(), 80);
  const auto groups = band.groups();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "BLOCK_M");
  EXPECT_EQ(groups[0].last, 1u);
  EXPECT_EQ(groups[1].first, 2u);
  EXPECT_TRUE(Band({{"a", ""}, {"b", ""}}, 0, 10).groups().empty());
}

TEST(ReportTextFormat, IsFixedAndEscaped) {
  EXPECT_EQ(fixed(-0.0001, 2), "0.00");
  EXPECT_EQ(fixed(2.5, 1), "2.5");
  EXPECT_EQ(time_text(11.7), "11.70");
  EXPECT_EQ(time_text(2365.3), "2365");
  EXPECT_EQ(time_text(0.8125), "0.8125");
  EXPECT_EQ(ratio_text(1), "1.00");
  EXPECT_EQ(percent_text(0.0109), "1.1%");
  EXPECT_EQ(escape_xml("a<b & \"c\"\x01"), "a&lt;b &amp; &quot;c&quot;?");
}

}  // namespace scale_test
}  // namespace evotune::report
