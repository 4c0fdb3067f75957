// A kernel's name against a module's symbols: extern "C" names as they are, C++ kernels by their mangling.
#include "core/kernel_symbol.hpp"

#include <gtest/gtest.h>

namespace evotune {
namespace kernel_symbol_test {

TEST(KernelSymbol, ExternCNamesAreTheirOwnSymbol) {
  EXPECT_EQ(kernel_symbol("saxpy", {"saxpy", "_Z5saxpyPf"}), "saxpy");
}

TEST(KernelSymbol, ACppKernelIsFoundByItsMangling) {
  // BAT's pnpoly: __global__ void cn_pnpoly(int*, float2*, int), beside cn_pnpoly_naive.
  const std::vector<std::string> symbols{"_Z15cn_pnpoly_naivePiP6float2i", "_Z9cn_pnpolyPiP6float2i"};
  EXPECT_EQ(kernel_symbol("cn_pnpoly", symbols), "_Z9cn_pnpolyPiP6float2i");
  EXPECT_EQ(kernel_symbol("cn_pnpoly_naive", symbols), "_Z15cn_pnpoly_naivePiP6float2i");
  EXPECT_EQ(kernel_symbol("cn_pnpol", symbols), std::nullopt);  // a prefix of a name is not the name
  EXPECT_EQ(kernel_symbol("pnpoly", symbols), std::nullopt);
}

TEST(KernelSymbol, OverloadsTemplatesAndNestedNamesAreNotGuessed) {
  EXPECT_EQ(kernel_symbol("k", {"_Z1kPf", "_Z1kPd"}), std::nullopt);  // two overloads
  EXPECT_EQ(kernel_symbol("k", {"_Z1kILi4EEvPf"}), std::nullopt);     // a template instance
  EXPECT_EQ(kernel_symbol("k", {"_ZN2ns1kEPf"}), std::nullopt);       // ns::k
  EXPECT_EQ(kernel_symbol("", {"", "_Z0"}), std::nullopt);
  EXPECT_EQ(kernel_symbol("k", {"_Z1kv", "_Z1kILi4EEvPf"}), "_Z1kv");  // k() beside a k<4>
}

}  // namespace kernel_symbol_test
}  // namespace evotune
