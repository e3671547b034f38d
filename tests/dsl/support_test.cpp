// tests/dsl/support.hpp is itself checked where a mistake in it would make other tests test nothing:
// strides_for turns a layout permutation into strides and must reject a permutation that is not one
// of the tensor's rank (issue 21: a 1-d test passed a rank-3 permutation for a rank-4 tensor and read
// past its end).
#include "dsl/array.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "support.hpp"

using namespace tg::test;

namespace {
TEST(Support, StridesForDenseLayouts) {
  const multi_index<4> len{{2, 3, 5, 7}};
  EXPECT_EQ(vec(strides_for(len, {0, 1, 2, 3})), (std::vector<index_t>{105, 35, 7, 1}));  // row-major
  EXPECT_EQ(vec(strides_for(len, {1, 3, 0, 2})), (std::vector<index_t>{5, 70, 1, 10}));   // [G, N, C, W] as N W G C
  EXPECT_EQ(vec(strides_for(len, {3, 2, 1, 0})), (std::vector<index_t>{1, 2, 6, 30}));    // column-major
}

TEST(Support, StridesForRejectsAWrongLengthPermutation) {
  const multi_index<4> len{{1, 4, 2, 9}};
  EXPECT_THROW(strides_for(len, {1, 2, 0}), std::invalid_argument);  // the call k_order_test made
  EXPECT_THROW(strides_for(len, {}), std::invalid_argument);
  EXPECT_THROW(strides_for(len, {0, 1, 2, 3, 4}), std::invalid_argument);
  EXPECT_THROW(strides_for(multi_index<1>{{3}}, {0, 0}), std::invalid_argument);
}

TEST(Support, StridesForRejectsANonPermutation) {
  const multi_index<3> len{{2, 3, 4}};
  EXPECT_THROW(strides_for(len, {0, 1, 1}), std::invalid_argument);   // repeated dimension
  EXPECT_THROW(strides_for(len, {0, 1, 3}), std::invalid_argument);   // out of range
  EXPECT_THROW(strides_for(len, {-1, 0, 1}), std::invalid_argument);  // negative
  try {
    strides_for(len, {2, 0});
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("3 dimensions"), std::string::npos) << e.what();  // says what was expected
  }
}
}  // namespace
