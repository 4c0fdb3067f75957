// row_sum.cu with split 1's partial sums never written (tests/gpu/launches_test.cpp): the combine reads NaN.
// Included by its path from the repository root, where the tests run.
#define ROW_SUM_FAULT 1
#include "tests/data/spaces/row_sum.cu"
