// einsum_dims (einsum.cpp): Einsum output dims from the equation, by the operator's rules
// (numpy's einsum). Each case is worked by hand from the rules; the executed check (torch
// runs the same equations) is the real-model size test's einsum_forms and maxvit_t models.
#include <gtest/gtest.h>

#include <stdexcept>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {
namespace {

using Dims = std::vector<int64_t>;

TEST(OnnxEinsum, ExplicitOutputsFollowTheLabels) {
  EXPECT_EQ(einsum_dims("bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}), (Dims{2, 3, 5}));
  EXPECT_EQ(einsum_dims("ij->ji", {{3, 7}}), (Dims{7, 3}));
  EXPECT_EQ(einsum_dims("ij,ij->", {{3, 7}, {3, 7}}), (Dims{}));  // a scalar
  EXPECT_EQ(einsum_dims("bii->bi", {{2, 5, 5}}), (Dims{2, 5}));   // a diagonal
  // MaxViT's form: upper-case labels and spaces.
  EXPECT_EQ(einsum_dims("B G H I D, B G H J D -> B G H I J", {{1, 4, 2, 49, 32}, {1, 4, 2, 49, 32}}),
            (Dims{1, 4, 2, 49, 49}));
}

TEST(OnnxEinsum, ImplicitOutputIsLabelsUsedOnceInAsciiOrder) {
  // i, A, k used once; j twice (summed): ASCII order puts 'A' before 'i'.
  EXPECT_EQ(einsum_dims("iAj,jk", {{3, 4, 6}, {6, 5}}), (Dims{4, 3, 5}));
  EXPECT_EQ(einsum_dims("Bij,Bkj", {{2, 4, 6}, {2, 5, 6}}), (Dims{4, 5}));  // B used twice
  EXPECT_EQ(einsum_dims("ij...,jk", {{3, 4, 5}, {4, 2}}), (Dims{5, 3, 2}));  // ellipsis first
}

TEST(OnnxEinsum, EllipsisBroadcastsRightAlignedAndSizeOneStretches) {
  EXPECT_EQ(einsum_dims("...ij,...jk", {{4, 1, 2, 3}, {5, 3, 6}}), (Dims{4, 5, 2, 6}));
  EXPECT_EQ(einsum_dims("...ij,...jk->...ik", {{7, 4, 6}, {1, 6, 3}}), (Dims{7, 4, 3}));
  EXPECT_EQ(einsum_dims("ij,ij->ij", {{1, 3}, {2, 3}}), (Dims{2, 3}));  // a label of size 1
  EXPECT_EQ(einsum_dims("...j->j", {{2, 3, 6}}), (Dims{6}));            // ellipsis summed out
  EXPECT_EQ(einsum_dims("i...k->k...i", {{2, 3, 4, 5}}), (Dims{5, 3, 4, 2}));
}

TEST(OnnxEinsum, UnknownDimsStayUnknownUnlessAnotherInputSizesThem) {
  EXPECT_EQ(einsum_dims("bij,bjk->bik", {{-1, 3, 4}, {2, 4, 5}}), (Dims{2, 3, 5}));
  EXPECT_EQ(einsum_dims("bij,bjk->bik", {{-1, 3, 4}, {-1, 4, 5}}), (Dims{-1, 3, 5}));
  // A size-1 dim against an unknown one: the unknown one decides.
  EXPECT_EQ(einsum_dims("ij,ij->ij", {{1, 3}, {-1, 3}}), (Dims{-1, 3}));
}

TEST(OnnxEinsum, BadEquationsSayWhy) {
  auto why = [](const std::string& eq, const std::vector<Dims>& in) -> std::string {
    try {
      einsum_dims(eq, in);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(why("ij,jk->il", {{2, 3}, {3, 4}}).find("'l' is in no input"), std::string::npos);
  EXPECT_NE(why("ijk,jk->ik", {{2, 3}, {3, 4}}).find("rank 2"), std::string::npos);
  EXPECT_NE(why("ij,jk->ik", {{2, 3}, {4, 5}}).find("label 'j' is 3"), std::string::npos);
  EXPECT_NE(why("ij,jk->ik", {{2, 3}}).find("2 input terms for 1 inputs"), std::string::npos);
  EXPECT_NE(why("i1,1k", {{2, 3}, {3, 4}}).find("'1'"), std::string::npos);
  EXPECT_NE(why("ij->ii", {{2, 3}}).find("appears twice"), std::string::npos);
  EXPECT_NE(why("...i...", {{2, 3}}).find("two ellipses"), std::string::npos);
  EXPECT_NE(why("ii->i", {{2, 3}}).find("repeats label 'i'"), std::string::npos);
  EXPECT_NE(why("...ij,...jk", {{2, 3, 4}, {5, 4, 6}}).find("under '...'"), std::string::npos);
}

}  // namespace
}  // namespace memplan::onnx_fe
