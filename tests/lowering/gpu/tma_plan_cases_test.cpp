// The TMA plans on named cases, the tile table and the orientation per op (the checks: tma_plan_check.hpp).
#include "tma_plan_check.hpp"

using namespace tma_plan_check;
using L = tg::ops::conv_layout;

// A stride-1 convolution's forward and backward data (channels-last) get halo plans: a channel block's
// 3x3 taps are consecutive k-tiles reading one halo of the tile's 8-wide rows plus 2 (checked element
// by element by check_problem's check_plan); stride 2 along an axis gets none.
TEST(TmaPlan, HaloOfAStride1Convolution) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 3, p.K = 64, p.C = 72, p.filter[0] = p.filter[1] = 3, p.in[0] = 13, p.in[1] = 11;
  p.pad_l[0] = p.pad_l[1] = 1, p.pad_r[0] = 0, p.pad_r[1] = 2;
  std::mt19937 rng(5);
  const int before = halo_plans;
  check_problem<2>(p, rng, true);
  EXPECT_GE(halo_plans, before + 2) << "the forward and backward data take halos";
  const auto xd = p.x_desc<2>(), yd = p.y_desc<2>(), wd = p.w_desc<2>();
  std::vector<float> y(1), w(1), x(1);
  const auto data = tg::ops::make_col2im_batch(p.geometry<2>(), y.data(), w.data(), x.data(), yd, wd, xd);
  ASSERT_EQ(data.count(), 1);
  const auto h = tg::tma_gemm::plan_class<256, 64, false, tg::tma_gemm::halo_kind::rows>(data.views(0));
  ASSERT_TRUE(h.ok) << h.why;
  EXPECT_EQ(h.halo.taps, 9);
  EXPECT_EQ(h.k.count, 9);      // the 64 output channels: one block of 9 taps
  EXPECT_EQ(h.k_digit[0], 2);   // the channels first (the view's k is taps, then channels)
  EXPECT_EQ(h.halo.tap_row[8], 0);  // backward data's taps run backwards: the last tap reads the halo's corner
  p.stride[1] = 2;
  const auto xd2 = p.x_desc<2>(), yd2 = p.y_desc<2>(), wd2 = p.w_desc<2>();
  const auto fv = tg::make_gemm_views(tg::make_view(x.data(), tg::im2col<2>(xd2, p.geometry<2>())),
                                      tg::make_view(w.data(), tg::group_dims(wd2, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<tg::seq_range<3, 5>, tg::seq<2>>{})),
                                      tg::make_view(y.data(), tg::group_dims(yd2, tg::seq<0>{}, tg::seq_cat<tg::seq<1>, tg::seq_range<3, 5>>{}, tg::seq<2>{})));
  EXPECT_FALSE((tg::tma_gemm::plan_class<256, 64, false, tg::tma_gemm::halo_kind::rows>(fv).ok)) << "stride 2: the taps' rows are not consecutive halo rows";
}

// Which halo plans the launch takes (halo_tiles_fill) on an H100/H200's 132 multiprocessors: ResNet-50's
// 3x3 layers at batch 128 in fp16 and fp32 keep their halos (at most 1.33x the boxes' waves: measured
// faster), except fp32's 7x7 C512, whose 384-row halos hold 2 images a tile (2 waves against 1:
// measured 1.37x slower than the boxes, section 38); problems of one wave keep them.
struct halo_count { long long halo, boxes; };
template <class E, int BN>
halo_count halo_tiles_of(int N, int K, int C, int HW) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = N, p.K = K, p.C = C, p.filter[0] = p.filter[1] = 3, p.in[0] = p.in[1] = HW;
  p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
  const auto xd = p.x_desc<2>(), yd = p.y_desc<2>(), wd = p.w_desc<2>();
  std::vector<E> x(1), w(1), y(1);
  const auto fv = tg::make_gemm_views(tg::make_view(x.data(), tg::im2col<2>(xd, p.geometry<2>())),
                                      tg::make_view(w.data(), tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<tg::seq_range<3, 5>, tg::seq<2>>{})),
                                      tg::make_view(y.data(), tg::group_dims(yd, tg::seq<0>{}, tg::seq_cat<tg::seq<1>, tg::seq_range<3, 5>>{}, tg::seq<2>{})));
  const auto h = tg::tma_gemm::plan_class<256, BN, false, tg::tma_gemm::halo_kind::rows, tg::boxes::row_elems(sizeof(E))>(fv);
  EXPECT_TRUE(h.ok) << h.why;
  EXPECT_EQ(fv.m(), static_cast<long long>(N) * HW * HW);
  return {h.ok ? h.m.count * h.n.count : 0, (fv.m() + 255) / 256 * h.n.count};
}
TEST(TmaPlan, HaloTakenWhereItsTilesFill) {
  using tg::tma_gemm::halo_tiles_fill;
  for (int HW : {56, 28, 14, 7}) {
    const int K = 64 * 56 / HW;
    const halo_count h16 = HW == 56 ? halo_tiles_of<tg::half_t, 64>(128, K, K, HW) : halo_tiles_of<tg::half_t, 128>(128, K, K, HW);
    const halo_count h32 = HW == 56 ? halo_tiles_of<float, 64>(128, K, K, HW) : halo_tiles_of<float, 128>(128, K, K, HW);
    EXPECT_TRUE(halo_tiles_fill(h16.halo, h16.boxes, 132)) << "fp16 " << HW << "x" << HW << ": " << h16.halo << " halo tiles, " << h16.boxes;
    EXPECT_EQ(halo_tiles_fill(h32.halo, h32.boxes, 132), HW != 7) << "fp32 " << HW << "x" << HW << ": " << h32.halo << " halo tiles, " << h32.boxes;
  }
  const halo_count c512 = halo_tiles_of<float, 128>(128, 512, 512, 7);
  EXPECT_EQ(c512.halo, 64 * 4);   // 2 images a tile
  EXPECT_EQ(c512.boxes, 25 * 4);
  EXPECT_EQ((halo_tiles_of<tg::half_t, 128>(128, 512, 512, 7).halo), 32 * 4);  // 4
  const halo_count small = halo_tiles_of<float, 128>(2, 512, 512, 7);  // one wave either way
  EXPECT_TRUE(halo_tiles_fill(small.halo, small.boxes, 132));
  EXPECT_TRUE(halo_tiles_fill(396, 264, 132));   // 3 waves against 2
  EXPECT_FALSE(halo_tiles_fill(133, 132, 132));  // 2 against 1
}

// Backward weight of a stride-1 3x3 layer (channels-last) gets a k-halo plan (checked element by element
// by check_problem's check_plan): transposed, a tile's 4 m64 blocks are taps s = 0..3 of one filter row
// (3 real), a k-tile 4 x 16 output positions (the 16-wide output rows), the halo 4 rows of 16 + 2 input
// positions (fewer than an 8 x 8 k-tile's 8 x 10). Stride 2 gets none: a k16 step's positions are 2
// input positions apart along any axis a tap moves.
TEST(TmaPlan, KHaloOfBackwardWeight) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 2, p.K = 64, p.C = 72, p.filter[0] = p.filter[1] = 3, p.in[0] = 17, p.in[1] = 16;
  p.pad_l[0] = p.pad_l[1] = 1, p.pad_r[0] = 0, p.pad_r[1] = 1;
  std::mt19937 rng(7);
  const int before = k_halo_plans;
  check_problem<2>(p, rng, true);
  EXPECT_GE(k_halo_plans, before + 2) << "backward weight has k-halo plans (64 and 128 columns)";
  auto weight_views = [&](const tg::ops::conv_problem& q, std::vector<float>& y, std::vector<float>& x, std::vector<float>& w) {
    using spatial = tg::seq_range<3, 5>;
    const auto xd = q.x_desc<2>(), yd = q.y_desc<2>(), wd = q.w_desc<2>();
    return tg::make_gemm_views(tg::make_view(y.data(), tg::group_dims(yd, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                               tg::make_view(x.data(), tg::im2col_t<2>(xd, q.geometry<2>())),
                               tg::make_view(w.data(), tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{})));
  };
  std::vector<float> y(1), x(1), w(1);
  const auto h = tg::tma_gemm::plan_class<256, 64, true, tg::tma_gemm::halo_kind::k>(weight_views(p, y, x, w));
  ASSERT_TRUE(h.ok) << h.why;
  EXPECT_TRUE(h.transposed);
  EXPECT_EQ(h.k_halo.rows, 4 * 18);
  EXPECT_EQ(h.k_halo.sbo_rows, 8);  // a k16 step: 16 positions of one output row
  EXPECT_EQ(h.k_halo.block_row[1] - h.k_halo.block_row[0], 1);  // the next tap along w: one row on
  EXPECT_EQ(h.m.count, 3 * 2);  // 3 filter rows x 2 blocks of the 72 channels
  // The taps tile: all 9 taps of the 3x3 filter in one tile (blocks 0-2 the first filter column), a k-tile
  // of 8 x 8 positions, one halo of 10 x 10 rows for all of them.
  using T = tg::tma_gemm::k_halo_taps_tile;
  const auto t = tg::tma_gemm::plan_class<T::BM, T::BN, true, tg::tma_gemm::halo_kind::k>(weight_views(p, y, x, w));
  ASSERT_TRUE(t.ok) << t.why;
  EXPECT_EQ(t.k_halo.rows, 10 * 10);
  EXPECT_EQ(t.k_halo.sbo_rows, 10);  // a k16 step: two output rows of 8 positions, a halo row of 10 apart
  EXPECT_EQ(t.k_halo.block_row[1] - t.k_halo.block_row[0], 10);  // the next tap along h (the view's faster tap digit): a halo row on
  EXPECT_EQ(t.k_halo.block_row[3] - t.k_halo.block_row[0], 1);   // the next tap along w
  EXPECT_EQ(t.k_halo.block_row[8] - t.k_halo.block_row[0], 22);
  EXPECT_EQ(t.m.count, 2);  // the 72 channels' two blocks, the whole filter in each
  EXPECT_FALSE(t.m.pow2);
  p.stride[0] = p.stride[1] = 2;
  EXPECT_FALSE((tg::tma_gemm::plan_class<256, 64, true, tg::tma_gemm::halo_kind::k>(weight_views(p, y, x, w)).ok))
      << "stride 2: a k16 step's positions are not consecutive halo rows";
  EXPECT_FALSE((tg::tma_gemm::plan_class<T::BM, T::BN, true, tg::tma_gemm::halo_kind::k>(weight_views(p, y, x, w)).ok));
}

// A 3-d layer's backward weight gets k-halo plans too (the random 3-d problems may have none: one
// regression, a CI run whose two random seeds gave no 3-d k-halo, so the count is checked here).
TEST(TmaPlan, KHaloOfBackwardWeight3D) {
  tg::ops::conv_problem p;
  // One image of 3 x 9 x 10 (was two of 5 x 9 x 10: this test alone took six minutes of the sanitizer
  // lane, run after every other; the plans it must find are the same).
  p.ndim = 3, p.N = 1, p.K = 64, p.C = 64;
  for (int d = 0; d < 3; ++d) p.filter[d] = 3, p.pad_l[d] = p.pad_r[d] = 1;
  p.in[0] = 3, p.in[1] = 9, p.in[2] = 10;
  std::mt19937 rng(11);
  const int before = k_halo_plans, taps_before = taps_plans;
  check_problem<3>(p, rng, true);
  EXPECT_GE(k_halo_plans, before + 1) << "3-d backward weight has a k-halo plan";
  EXPECT_GE(taps_plans, taps_before + 1) << "... on the taps tile (a filter plane per tile)";
}

// The taps tile plans only where more than half of its 9 blocks are taps: a 1-d filter of 3 keeps the
// 256-row k-halo tile, one of 7 takes it (7 of 9 blocks real).
TEST(TmaPlan, TapsTileWhereMostBlocksAreTaps) {
  tg::ops::conv_problem p;
  p.ndim = 1, p.N = 2, p.K = 64, p.C = 64, p.filter[0] = 3, p.in[0] = 70, p.pad_l[0] = p.pad_r[0] = 1;
  std::mt19937 rng(5);
  int taps = taps_plans, k_halo = k_halo_plans;
  check_problem<1>(p, rng, true);
  EXPECT_EQ(taps_plans, taps) << "a filter of 3: no taps tile";
  EXPECT_GT(k_halo_plans, k_halo) << "a filter of 3: the 256-row k-halo tile";
  p.filter[0] = 7, p.pad_l[0] = p.pad_r[0] = 3;
  taps = taps_plans;
  check_problem<1>(p, rng, true);
  EXPECT_GT(taps_plans, taps) << "a filter of 7: the taps tile";
}

// Regression (CI, seed 1439814613): channels-first backward weight, where B = im2col(x)'s filter column
// and output column both step along x's contiguous w. The halo plan took B's orientation from the row
// digit and its boxes from the k digit: K-major boxes read as MN-major tiles. Now one rule (the row
// digit, boxes::contiguous_digit) gives both, and such B has no halo plan (its boxes would span two
// digits along w).
TEST(TmaPlan, ContiguousAxisSteppedByARowAndAKDigit) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.layout = L::nchw, p.N = 1, p.K = 128, p.C = 64, p.filter[0] = p.filter[1] = 4;
  p.in[0] = p.in[1] = 3, p.stride[0] = 3, p.pad_l[0] = 2, p.pad_r[0] = 1, p.pad_l[1] = 0, p.pad_r[1] = 2;
  std::mt19937 rng(11);
  check_problem<2>(p, rng, false);  // every plan of every GEMM, element by element
  std::vector<float> y(1), x(1), w(1);
  const auto v = bwd_weight_views<2>(p, y.data(), x.data(), w.data());
  EXPECT_EQ(tg::tma_gemm::orientation_of(v), 1) << "A K-major (dy's output columns), B MN-major (x's filter columns first)";
  EXPECT_EQ(tg::tma_gemm::orientation_of<BK32>(v), 0) << "32-bit rows: x's output columns first (tf32 tiles are K-major)";
  const auto h = tg::tma_gemm::plan_class<256, 128, false, tg::tma_gemm::halo_kind::rows>(v);
  EXPECT_FALSE(h.ok) << "B's boxes would span a filter column and 64 output columns along w";
}

// The seed's backward data (stride 2: four classes) gets a plan of one K-major box of dy and MN-major
// boxes of w per k-tile, with k-tiles of 64 channels at one tap.
TEST(TmaPlan, SeedBackwardData) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 2, p.K = 128, p.C = 128, p.filter[0] = p.filter[1] = 3, p.in[0] = p.in[1] = 9;
  p.stride[0] = p.stride[1] = 2, p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
  std::mt19937 rng(1);
  check_problem<2>(p, rng, true);
  std::vector<float> y(static_cast<std::size_t>(p.y_desc<2>().element_space), 1.0f), w(static_cast<std::size_t>(p.w_desc<2>().element_space), 1.0f);
  std::vector<float> x(1);
  const auto yd = p.y_desc<2>();
  const auto wd = p.w_desc<2>();
  const auto xd = p.x_desc<2>();
  const auto batch = tg::ops::make_col2im_batch(p.geometry<2>(), y.data(), w.data(), x.data(), yd, wd, xd);
  const auto plan = tg::tma_gemm::plan_class<128, 128>(batch.views(0));
  ASSERT_TRUE(plan.ok) << plan.why;
  EXPECT_FALSE(plan.a_mn);
  EXPECT_TRUE(plan.b_mn);
  EXPECT_EQ(plan.a.boxes, 1);
  EXPECT_EQ(plan.b.boxes, 2);
  EXPECT_EQ(plan.k.count, 2 * 2 * 2);  // 2x2 taps of class 0, 128 channels in 2 k-tiles
}

// The forward problem of the TMA sanitizer tests (tests/CMakeLists.txt, gpu.tma.*.conv_fwd) takes the
// pipeline: channels-last, C = 72 (a partial 64-channel k-tile), strides, dilations, asymmetric padding.
TEST(TmaPlan, SanitizerForward) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 2, p.K = 128, p.C = 72, p.filter[0] = p.filter[1] = 3, p.in[0] = 15, p.in[1] = 13;
  p.stride[0] = 2, p.dilation[1] = 2, p.pad_l[0] = 1, p.pad_r[0] = 2, p.pad_r[1] = 1;
  ASSERT_EQ(p.layout, tg::ops::conv_layout::nhwgc);
  std::mt19937 rng(3);
  const auto x = nonzero_data(static_cast<std::size_t>(p.x_desc<2>().element_space), rng);
  const auto w = nonzero_data(static_cast<std::size_t>(p.w_desc<2>().element_space), rng);
  std::vector<float> y(1);
  plan_backend be{true};  // no 128x128 plan fails
  tg::ops::conv_fwd<2>(be, p, x.data(), w.data(), y.data());
  EXPECT_EQ(be.planned, 1);
}

// The tile table (plan.hpp) on representative problems: which tile each takes.
TEST(TmaPlan, TileTable) {
  using tg::tma_gemm::choose_tile;
  using K = tg::tma_gemm::tile_kind;
  // backward data (K-major A, MN-major B): the seed (C = 128) and a ResNet layer with C = 64
  EXPECT_EQ(choose_tile(128 * 36 * 36, 128, false), K::m256n128);
  EXPECT_EQ(choose_tile(64 * 56 * 56, 64, false), K::m256n64);
  EXPECT_EQ(choose_tile(200, 64, false), K::m128n64);
  // backward weight (both MN-major): M = K channels; 64 columns are not instantiated there
  EXPECT_EQ(choose_tile(256, 9 * 128, true), K::m256n128);
  EXPECT_EQ(choose_tile(128, 9 * 64, true), K::m128n128);
  EXPECT_EQ(choose_tile(256, 64, true), K::m256n128);
  // forward (both K-major): K = 64 output channels take the 64-column tile as backward data's C does
  EXPECT_EQ(choose_tile(128 * 56 * 56, 64, false), K::m256n64);
  EXPECT_EQ(choose_tile(128 * 56 * 56, 256, false), K::m256n128);
  EXPECT_EQ(choose_tile(100, 64, false), K::m128n64);
}

// Each op's GEMM gets the orientation its layout implies (channels-last): backward data reads dy
// along K (K-major A) and w along C (MN-major B); backward weight both along their channels (MN-major);
// the forward convolution both along k (K-major).
TEST(TmaPlan, OrientationPerOp) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 4, p.K = 128, p.C = 128, p.filter[0] = p.filter[1] = 3, p.in[0] = p.in[1] = 12;
  p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
  const auto xd = p.x_desc<2>(), yd = p.y_desc<2>(), wd = p.w_desc<2>();
  std::vector<float> x(static_cast<std::size_t>(xd.element_space), 1.0f), y(static_cast<std::size_t>(yd.element_space), 1.0f),
      w(static_cast<std::size_t>(wd.element_space), 1.0f), out(1);
  using spatial = tg::seq_range<3, 5>;
  const auto data = tg::ops::make_col2im_batch(p.geometry<2>(), y.data(), w.data(), out.data(), yd, wd, xd);
  const auto pd = tg::tma_gemm::plan_class<256, 128>(data.views(0));
  ASSERT_TRUE(pd.ok) << pd.why;
  EXPECT_FALSE(pd.a_mn);
  EXPECT_TRUE(pd.b_mn);
  EXPECT_EQ(tg::tma_gemm::orientation_of(data.views(0)), 1);  // what the launch picks its tile by
  const auto wv = tg::make_gemm_views(tg::make_view(y.data(), tg::group_dims(yd, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                                      tg::make_view(x.data(), tg::im2col_t<2>(xd, p.geometry<2>())),
                                      tg::make_view(out.data(), tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{})));
  const auto pw = tg::tma_gemm::plan_class<128, 128>(wv);
  ASSERT_TRUE(pw.ok) << pw.why;
  EXPECT_TRUE(pw.a_mn);
  EXPECT_TRUE(pw.b_mn);
  EXPECT_EQ(tg::tma_gemm::orientation_of(wv), 3);
  const auto fv = tg::make_gemm_views(tg::make_view(x.data(), tg::im2col<2>(xd, p.geometry<2>())),
                                      tg::make_view(w.data(), tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{})),
                                      tg::make_view(out.data(), tg::group_dims(yd, tg::seq<0>{}, tg::seq_cat<tg::seq<1>, spatial>{}, tg::seq<2>{})));
  const auto pf = tg::tma_gemm::plan_class<256, 128>(fv);
  ASSERT_TRUE(pf.ok) << pf.why;
  EXPECT_FALSE(pf.a_mn);
  EXPECT_FALSE(pf.b_mn);
  EXPECT_EQ(tg::tma_gemm::orientation_of(fv), 0);
}

// Backward weight with 64 output channels (ResNet-50's first stage): the launch plans dW^T = im2col(x)^T
// dy with 256x64 tiles; that plan keeps both operands MN-major and brings what the transposed views hold.
TEST(TmaPlan, TransposedBackwardWeight) {
  tg::ops::conv_problem p;
  p.ndim = 2, p.N = 2, p.K = 64, p.C = 64, p.filter[0] = p.filter[1] = 3, p.in[0] = p.in[1] = 10;
  p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 1;
  const auto xd = p.x_desc<2>(), yd = p.y_desc<2>(), wd = p.w_desc<2>();
  std::vector<float> x(static_cast<std::size_t>(xd.element_space)), y(static_cast<std::size_t>(yd.element_space));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0f + static_cast<float>(i % 251) / 251.0f;  // never zero: a zero read is padding
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 1.0f + static_cast<float>(i % 241) / 241.0f;
  std::vector<float> out(static_cast<std::size_t>(wd.element_space));
  using spatial = tg::seq_range<3, 5>;
  const auto wv = tg::make_gemm_views(tg::make_view(y.data(), tg::group_dims(yd, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                                      tg::make_view(x.data(), tg::im2col_t<2>(xd, p.geometry<2>())),
                                      tg::make_view(out.data(), tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{})));
  const auto pt = tg::tma_gemm::plan_class<256, 64, true>(wv);
  ASSERT_TRUE(pt.ok) << pt.why;
  EXPECT_TRUE(pt.transposed);
  EXPECT_TRUE(pt.a_mn);
  EXPECT_TRUE(pt.b_mn);
  check_plan<256, 64>(transposed_views<decltype(wv)>(wv), pt);
  // A 3x3 tap's 64 channels are one box; a tile's 256 rows are 4 boxes stepping along a tap digit (4 taps
  // of a row of 3: 3 of 4 boxes real), not 256 channels of which 64 exist: taken.
  EXPECT_EQ(pt.a.boxes, 4);
  EXPECT_GE(pt.a.step_digit, 0);
  EXPECT_EQ(pt.m.count, 3);
  EXPECT_TRUE((tg::tma_gemm::plan_views<256, 64, true>(std::vector<std::remove_const_t<decltype(wv)>>{wv}).ok));
  // fp32 (tf32 tiles, 32-element boxes): a tap's 64 channels are 2 boxes, so a tile's 256 rows are 4
  // taps of 2 boxes each (3 tiles, 75% real), not 8 taps of 32 channels (6 tiles, 37.5%, which the
  // launch refused as mostly padding: regression, the fp32 3x3 C64 layer ran on half-empty 128x128 tiles).
  const auto pf = tg::tma_gemm::plan_class<256, 64, true, tg::tma_gemm::halo_kind::none, BK32>(wv);
  ASSERT_TRUE(pf.ok) << pf.why;
  EXPECT_EQ(pf.m.count, 3);
  EXPECT_EQ(pf.a.boxes, 8);
  EXPECT_EQ(pf.a.along, 2);
  EXPECT_GE(pf.a.step_digit, 0);
  EXPECT_EQ(pf.a.stacked, 2) << "a 4-d x has a free axis: each tap's 2 boxes one stacked load";
  check_plan<256, 64, BK32>(transposed_views<decltype(wv)>(wv), pf);
  // Who transposes its landed k-tiles (consumers_transpose): x's 4 stacked loads and dy's few are the
  // consumers' to transpose; 3-d (x has no free axis, its 8 boxes unstacked: 10 loads) the producer
  // warpgroup's warps'. Regression: the fp32 3x3 C64 layer ran 8% slower on the warps (session 41).
  const tg::tma_gemm::schedule sc{};
  const auto loads = [](const tg::tma_gemm::class_plan& q) { return tg::boxes::loads_of(q.a).loads + tg::boxes::loads_of(q.b).loads; };
  EXPECT_LE(loads(pf), sc.tf32_consumers_transpose_loads);
  EXPECT_TRUE(tg::tma_gemm::consumers_transpose(sc, 64, loads(pf)));
  {
    tg::ops::conv_problem q = p;
    q.ndim = 3, q.filter[2] = 3, q.in[2] = 8, q.pad_l[2] = q.pad_r[2] = 1;
    std::vector<float> x3(static_cast<std::size_t>(q.x_desc<3>().element_space), 1.5f), y3(static_cast<std::size_t>(q.y_desc<3>().element_space), 1.25f),
        w3(static_cast<std::size_t>(q.w_desc<3>().element_space));
    const auto p3 = tg::tma_gemm::plan_class<256, 64, true, tg::tma_gemm::halo_kind::none, BK32>(bwd_weight_views<3>(q, y3.data(), x3.data(), w3.data()));
    ASSERT_TRUE(p3.ok) << p3.why;
    EXPECT_EQ(p3.a.stacked, 1) << "a 5-d x has no free axis to stack along";
    EXPECT_GT(loads(p3), sc.tf32_consumers_transpose_loads);
    EXPECT_FALSE(tg::tma_gemm::consumers_transpose(sc, 64, loads(p3)));
    EXPECT_TRUE(tg::tma_gemm::consumers_transpose(sc, 128, loads(p3))) << "wide tiles: the consumers whatever the loads";
  }
  EXPECT_TRUE((tg::tma_gemm::plan_views<256, 64, true, tg::tma_gemm::halo_kind::none, BK32>(std::vector<std::remove_const_t<decltype(wv)>>{wv}).ok));
  // Untransposed, dW's 128 columns are 2 taps of 64 channels likewise.
  const auto pu = tg::tma_gemm::plan_class<128, 128>(wv);
  ASSERT_TRUE(pu.ok) << pu.why;
  EXPECT_EQ(pu.b.boxes, 2);
  EXPECT_GE(pu.b.step_digit, 0);
  check_plan<128, 128>(wv, pu);
  // A 1x1 layer's 256 channels fill the tile along the channels alone.
  p.C = 256, p.filter[0] = p.filter[1] = 1, p.pad_l[0] = p.pad_l[1] = p.pad_r[0] = p.pad_r[1] = 0;
  const auto xd1 = p.x_desc<2>(), wd1 = p.w_desc<2>(), yd1 = p.y_desc<2>();
  std::vector<float> x1(static_cast<std::size_t>(xd1.element_space), 1.5f), y1(static_cast<std::size_t>(yd1.element_space), 1.25f),
      out1(static_cast<std::size_t>(wd1.element_space));
  const auto wv1 = tg::make_gemm_views(tg::make_view(y1.data(), tg::group_dims(yd1, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                                       tg::make_view(x1.data(), tg::im2col_t<2>(xd1, p.geometry<2>())),
                                       tg::make_view(out1.data(), tg::group_dims(wd1, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{})));
  const auto taken = tg::tma_gemm::plan_views<256, 64, true>(std::vector<std::remove_const_t<decltype(wv1)>>{wv1});
  EXPECT_TRUE(taken.ok) << taken.why;
}
