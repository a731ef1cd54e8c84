// Conv and ConvTranspose: hand-computed cases for groups, dilations, strides, padding and
// output_padding/output_shape, and a differential sweep against a direct loop-nest definition.
#include <random>

#include "common/error.h"
#include "float_test_util.h"

namespace tauvta::cpu {
namespace {

using namespace testing_util;

TEST(FloatConv, GroupedConvWithBias) {
  // Two groups of one channel: group 0 sums 2x2 windows, group 1 takes x[i][j] - x[i+1][j+1].
  Tensor x = iota({1, 2, 3, 3});  // channel 0 = 1..9, channel 1 = 10..18
  Tensor w = Tensor::from_floats({2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1});
  Tensor b = Tensor::from_floats({2}, {1.0f, 0.5f});
  Tensor y = eval1("Conv", {&x, &w, &b}, {{"group", int64_t(2)}});
  EXPECT_TRUE(near(y, {1, 2, 2, 2}, {13, 17, 25, 29, -3.5f, -3.5f, -3.5f, -3.5f}));
}

TEST(FloatConv, DilatedConv) {
  Tensor x = iota({1, 1, 5, 5}, 0.0f);  // x[r][c] = 5r + c
  Tensor w = Tensor::from_floats({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = eval1("Conv", {&x, &w}, {{"dilations", std::vector<int64_t>{2, 2}}});
  // out[i][j] = x[i][j] + x[i][j+2] + x[i+2][j] + x[i+2][j+2] = 20i + 4j + 24
  EXPECT_TRUE(near(y, {1, 1, 3, 3}, {24, 28, 32, 44, 48, 52, 64, 68, 72}));
}

TEST(FloatConv, StridedPaddedConv) {
  Tensor x = iota({1, 1, 3, 3});
  Tensor w = Tensor::from_floats({1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  Tensor y = eval1("Conv", {&x, &w},
                   {{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"strides", std::vector<int64_t>{2, 2}}});
  EXPECT_TRUE(near(y, {1, 1, 2, 2}, {12, 16, 24, 28}));
}

TEST(FloatConv, AsymmetricPadsAndAutoPad) {
  Tensor x = iota({1, 1, 1, 4});
  Tensor w = Tensor::from_floats({1, 1, 1, 2}, {1, 10});
  // pads: 1 before, 0 after on width -> windows (0,1) (1,2) (2,3) (3,4) = x shifted right by one
  Tensor y = eval1("Conv", {&x, &w}, {{"pads", std::vector<int64_t>{0, 1, 0, 0}}});
  EXPECT_TRUE(near(y, {1, 1, 1, 4}, {10, 21, 32, 43}));
  // SAME_UPPER pads the end: windows (1,2) (2,3) (3,4) (4,0)
  y = eval1("Conv", {&x, &w}, {{"auto_pad", std::string("SAME_UPPER")}});
  EXPECT_TRUE(near(y, {1, 1, 1, 4}, {21, 32, 43, 4}));
  y = eval1("Conv", {&x, &w}, {{"auto_pad", std::string("SAME_LOWER")}});
  EXPECT_TRUE(near(y, {1, 1, 1, 4}, {10, 21, 32, 43}));
}

TEST(FloatConv, DepthwiseWithChannelMultiplier) {
  Tensor x = iota({1, 2, 2, 2});  // c0 = 1..4, c1 = 5..8
  Tensor w = Tensor::from_floats({4, 1, 1, 1}, {1, -1, 2, 3});
  Tensor y = eval1("Conv", {&x, &w}, {{"group", int64_t(2)}});
  EXPECT_TRUE(near(y, {1, 4, 2, 2}, {1, 2, 3, 4, -1, -2, -3, -4, 10, 12, 14, 16, 15, 18, 21, 24}));
}

TEST(FloatConvTranspose, OverlappingStrideOne) {
  Tensor x = Tensor::from_floats({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = Tensor::from_floats({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor y = eval1("ConvTranspose", {&x, &w});
  EXPECT_TRUE(near(y, {1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4}));
  y = eval1("ConvTranspose", {&x, &w}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  EXPECT_TRUE(near(y, {1, 1, 1, 1}, {10}));
}

TEST(FloatConvTranspose, OutputPaddingAddsRowsThatOnlyHoldTheBias) {
  Tensor x = Tensor::from_floats({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = Tensor::from_floats({1, 1, 2, 2}, {1, 1, 1, 1});
  Tensor b = Tensor::from_floats({1}, {0.5f});
  const std::vector<float> expected = {1.5, 1.5, 2.5, 2.5, 0.5,  //
                                       1.5, 1.5, 2.5, 2.5, 0.5,  //
                                       3.5, 3.5, 4.5, 4.5, 0.5,  //
                                       3.5, 3.5, 4.5, 4.5, 0.5,  //
                                       0.5, 0.5, 0.5, 0.5, 0.5};
  Tensor y = eval1("ConvTranspose", {&x, &w, &b},
                   {{"strides", std::vector<int64_t>{2, 2}}, {"output_padding", std::vector<int64_t>{1, 1}}});
  EXPECT_TRUE(near(y, {1, 1, 5, 5}, expected));
  // output_shape asking for the same size gives the same result.
  y = eval1("ConvTranspose", {&x, &w, &b},
            {{"strides", std::vector<int64_t>{2, 2}}, {"output_shape", std::vector<int64_t>{5, 5}}});
  EXPECT_TRUE(near(y, {1, 1, 5, 5}, expected));
}

TEST(FloatConvTranspose, Groups) {
  Tensor x = iota({1, 2, 1, 2});
  Tensor w = Tensor::from_floats({2, 1, 1, 1}, {2, 3});
  Tensor y = eval1("ConvTranspose", {&x, &w}, {{"group", int64_t(2)}});
  EXPECT_TRUE(near(y, {1, 2, 1, 2}, {2, 4, 9, 12}));
}

TEST(FloatConv, RejectsChannelMismatchNamingTheNode) {
  Tensor x = iota({1, 3, 4, 4});
  Tensor w = iota({2, 2, 3, 3});
  try {
    eval1("Conv", {&x, &w});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 'n_Conv' (Conv): group 1 does not fit input channels 3 and weights [2,2,3,3]");
  }
}

// Direct definitions: y[n][m][o] = b[m] + sum_{c,k} x[n][g*Cg+c][o*s - p + k*d] * w[m][c][k].
struct ConvCase {
  int64_t n, c, m, group, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr;
};

Tensor random_tensor(Shape s, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(size_t(graph::num_elements(s)));
  for (float& f : v) f = d(rng);
  return Tensor::from_floats(std::move(s), std::move(v));
}

Tensor run_case(const ConvCase& k, const Tensor& x, const Tensor& w, const Tensor& b) {
  return eval1("Conv", {&x, &w, &b},
               {{"group", k.group},
                {"strides", std::vector<int64_t>{k.sh, k.sw}},
                {"dilations", std::vector<int64_t>{k.dh, k.dw}},
                {"pads", std::vector<int64_t>{k.pt, k.pl, k.pb, k.pr}}});
}

std::vector<float> direct_conv(const ConvCase& k, const Tensor& x, const Tensor& w, const Tensor& b, int64_t oh,
                               int64_t ow) {
  const float* px = x.data<float>();
  const float* pw = w.data<float>();
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  std::vector<float> ref;
  for (int64_t n = 0; n < k.n; ++n) {
    for (int64_t m = 0; m < k.m; ++m) {
      const int64_t g = m / mg;
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          double s = b.data<float>()[m];
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t a = 0; a < k.kh; ++a) {
              for (int64_t e = 0; e < k.kw; ++e) {
                const int64_t ih = i * k.sh - k.pt + a * k.dh, iw = j * k.sw - k.pl + e * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w) continue;
                s += double(px[((n * k.c + g * cg + c) * k.h + ih) * k.w + iw]) * pw[((m * cg + c) * k.kh + a) * k.kw + e];
              }
            }
          }
          ref.push_back(float(s));
        }
      }
    }
  }
  return ref;
}

void check_case(const ConvCase& k, std::mt19937& rng, const std::string& what) {
  Tensor x = random_tensor({k.n, k.c, k.h, k.w}, rng);
  Tensor w = random_tensor({k.m, k.c / k.group, k.kh, k.kw}, rng);
  Tensor b = random_tensor({k.m}, rng);
  Tensor y = run_case(k, x, w, b);
  const int64_t oh = (k.h + k.pt + k.pb - (k.kh - 1) * k.dh - 1) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - (k.kw - 1) * k.dw - 1) / k.sw + 1;
  ASSERT_EQ(y.shape(), (Shape{k.n, k.m, oh, ow})) << what;
  ASSERT_TRUE(near(y, y.shape(), direct_conv(k, x, w, b, oh, ow), 1e-4f)) << what;
}

TEST(FloatConv, MatchesDirectDefinitionOnRandomShapes) {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return int64_t(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  for (int trial = 0; trial < 60; ++trial) {
    ConvCase k{};
    k.group = pick(1, 3);
    k.c = k.group * pick(1, 4);
    k.m = k.group * pick(1, 5);
    k.n = pick(1, 3);
    k.kh = pick(1, 4), k.kw = pick(1, 4), k.sh = pick(1, 3), k.sw = pick(1, 3), k.dh = pick(1, 2), k.dw = pick(1, 2);
    k.pt = pick(0, 2), k.pl = pick(0, 2), k.pb = pick(0, 2), k.pr = pick(0, 2);
    k.h = (k.kh - 1) * k.dh + 1 + pick(0, 9);
    k.w = (k.kw - 1) * k.dw + 1 + pick(0, 40);
    check_case(k, rng, "trial " + std::to_string(trial));
  }
}

TEST(FloatConv, LargeImagesRunInBandsOfOutputRows) {
  // 64 channels x 3x3 over 40 x 600: the column matrix of one image (576 x 24000 floats) is larger
  // than one band, so im2col and the GEMM run band by band (and with stride 2, over a band edge
  // that is not a multiple of the stride).
  std::mt19937 rng(5);
  ConvCase k{2, 64, 3, 1, 40, 600, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  check_case(k, rng, "stride 1");
  k.sh = 2;
  k.sw = 2;
  k.pt = 0;
  check_case(k, rng, "stride 2");
}

TEST(FloatConvTranspose, MatchesScatterDefinitionOnRandomShapes) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return int64_t(std::uniform_int_distribution<int>(lo, hi)(rng)); };
  for (int trial = 0; trial < 40; ++trial) {
    const int64_t group = pick(1, 2), c = group * pick(1, 3), mg = pick(1, 3), n = pick(1, 2);
    const int64_t h = pick(1, 5), wd = pick(1, 7), kh = pick(1, 3), kw = pick(1, 3), sh = pick(1, 3), sw = pick(1, 3);
    const int64_t dh = pick(1, 2), dw = pick(1, 2), pt = pick(0, 1), pl = pick(0, 1), pb = pick(0, 1), pr = pick(0, 1);
    const int64_t oph = pick(0, sh - 1), opw = pick(0, sw - 1);
    const int64_t oh = sh * (h - 1) + oph + (kh - 1) * dh + 1 - pt - pb;
    const int64_t ow = sw * (wd - 1) + opw + (kw - 1) * dw + 1 - pl - pr;
    if (oh <= 0 || ow <= 0) continue;
    Tensor x = random_tensor({n, c, h, wd}, rng);
    Tensor w = random_tensor({c, mg, kh, kw}, rng);
    Tensor y = eval1("ConvTranspose", {&x, &w},
                     {{"group", group},
                      {"strides", std::vector<int64_t>{sh, sw}},
                      {"dilations", std::vector<int64_t>{dh, dw}},
                      {"pads", std::vector<int64_t>{pt, pl, pb, pr}},
                      {"output_padding", std::vector<int64_t>{oph, opw}}});
    const int64_t m = mg * group, cg = c / group;
    ASSERT_EQ(y.shape(), (Shape{n, m, oh, ow}));
    std::vector<double> ref(size_t(n * m * oh * ow), 0.0);
    const float* px = x.data<float>();
    const float* pw = w.data<float>();
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t ci = 0; ci < c; ++ci) {
        const int64_t g = ci / cg;
        for (int64_t mo = 0; mo < mg; ++mo) {
          for (int64_t i = 0; i < h; ++i) {
            for (int64_t j = 0; j < wd; ++j) {
              for (int64_t a = 0; a < kh; ++a) {
                for (int64_t e = 0; e < kw; ++e) {
                  const int64_t yh = i * sh - pt + a * dh, yw = j * sw - pl + e * dw;
                  if (yh < 0 || yh >= oh || yw < 0 || yw >= ow) continue;
                  ref[size_t(((b * m + g * mg + mo) * oh + yh) * ow + yw)] +=
                      double(px[((b * c + ci) * h + i) * wd + j]) * pw[((ci * mg + mo) * kh + a) * kw + e];
                }
              }
            }
          }
        }
      }
    }
    ASSERT_TRUE(near(y, y.shape(), std::vector<float>(ref.begin(), ref.end()), 1e-4f)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tauvta::cpu
