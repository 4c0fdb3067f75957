// row_sum.cu writing one float past the end of its scratch buffer (tests/gpu/launches_test.cpp).
// Included by its path from the repository root, where the tests run.
#define ROW_SUM_FAULT 2
#include "tests/data/spaces/row_sum.cu"
