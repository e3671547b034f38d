// lowering/gpu/tma_gemm/plan_cache.hpp: a batch's cached plans equal freshly computed ones for the
// convolutions' GEMM batches (backward data's col2im classes and backward weight's single GEMM; channels-last
// and channels-first, 1-3 dimensions, strides, padding), the second lookup of a shape is a hit whatever
// the pointers, and another shape is a miss.
#include "lowering/gpu/tma_gemm/plan_cache.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "ops/conv_problem.hpp"
#include "ops/convnd_bwd_data.hpp"
#include "ops/grouped_conv_bwd_weight.hpp"

namespace {
using tg::index_t;
namespace tm = tg::tma_gemm;

// Every number of a plan, in one list (the plan's reason strings aside).
std::vector<long long> numbers(const tm::class_plan& p) {
  std::vector<long long> v{p.ok, p.a_mn, p.b_mn, p.has_k, p.groups, p.c_off0, p.c_g, p.c_vectors};
  for (const auto* o : {&p.a, &p.b}) {
    v.insert(v.end(), {o->ok, o->mn_major, o->boxes, o->box.rank, o->box.base, o->n_order});
    for (int a = 0; a < tg::arch::tma_box::max_rank; ++a)
      v.insert(v.end(), {o->box.length[a], o->box.stride[a], o->box.box[a], o->box.elem_stride[a], o->base[a]});
    for (const auto& s : o->step)
      for (const auto& d : s)
        for (int x : d) v.push_back(x);
    for (int x : o->order) v.push_back(x);
  }
  for (const auto* d : {&p.m, &p.n, &p.k}) {
    v.insert(v.end(), {d->count, d->pow2});
    for (int q = 0; q < tm::nd; ++q) v.insert(v.end(), {d->len[q], d->ext[q], d->tiles[q], d->shift[q], d->stride[q]});
  }
  for (int q = 0; q < tm::nd; ++q) v.insert(v.end(), {p.c_m[q], p.c_n[q]});
  return v;
}

void expect_same(const tm::batch_plan& a, const tm::batch_plan& b, int count) {
  EXPECT_EQ(a.ok, b.ok);
  EXPECT_EQ(a.why, b.why);
  EXPECT_EQ(a.orient, b.orient);
  for (int t = 0; t < count; ++t) EXPECT_EQ(numbers(a.plans[t]), numbers(b.plans[t])) << "GEMM " << t;
}

// Plans the batch fresh, then twice through the cache (the second time over other pointers): both
// cached results equal the fresh one; the first lookup is a miss, the second a hit.
template <class MakeBatch>
void check(MakeBatch make, const char* what) {
  SCOPED_TRACE(what);
  static std::vector<float> one(1), other(1);
  const auto batch = make(one.data()), moved = make(other.data());
  const tm::batch_plan fresh = tm::plan_views<256, 128>(batch);
  tm::plan_cache_stats s0, s1, s2;
  const tm::batch_plan first = tm::plan_views_cached<256, 128>(batch, &s0);
  const tm::batch_plan second = tm::plan_views_cached<256, 128>(moved, &s1);
  expect_same(fresh, first, static_cast<int>(batch.count()));
  expect_same(fresh, second, static_cast<int>(batch.count()));
  EXPECT_EQ(s1.hits, s0.hits + 1);
  EXPECT_EQ(s1.misses, s0.misses);
  (void)s2;
}

tg::ops::conv_problem problem(int nd, index_t stride, tg::ops::conv_layout layout) {
  tg::ops::conv_problem p;
  p.ndim = nd, p.N = 2, p.K = 128, p.C = 64, p.layout = layout;
  for (int d = 0; d < nd; ++d) p.filter[d] = 3, p.in[d] = 9 + d, p.stride[d] = stride, p.pad_l[d] = 1, p.pad_r[d] = d % 2;
  return p;
}

template <int ND>
void check_problem(const tg::ops::conv_problem& p) {
  const auto yd = p.y_desc<ND>(), wd = p.w_desc<ND>(), xd = p.x_desc<ND>();
  check([&](float* d) {
    return tg::ops::make_col2im_batch(p.geometry<ND>(), d, d, d, yd, wd, xd);
  }, "backward data");
  using spatial = tg::seq_range<3, 3 + ND>;
  check([&](float* d) {
    return tg::single(tg::make_gemm_views(tg::make_view(d, tg::group_dims(yd, tg::seq<0>{}, tg::seq<2>{}, tg::seq_cat<tg::seq<1>, spatial>{})),
                                          tg::make_view(d, tg::im2col_t<ND>(xd, p.geometry<ND>())),
                                          tg::make_view(d, tg::group_dims(wd, tg::seq<0>{}, tg::seq<1>{}, tg::seq_cat<spatial, tg::seq<2>>{}))));
  }, "backward weight");
}

TEST(PlanCache, CachedPlansEqualFreshOnes) {
  using L = tg::ops::conv_layout;
  check_problem<2>(problem(2, 2, L::nhwgc));  // four col2im classes
  check_problem<2>(problem(2, 1, L::gnhwc));
  check_problem<1>(problem(1, 3, L::nhwgc));
  check_problem<3>(problem(3, 2, L::nhwgc));  // eight classes
  check_problem<2>(problem(2, 2, L::nchw));   // no plan: channels-first (the reason is cached too)
}

TEST(PlanCache, AnotherShapeIsAMiss) {
  using L = tg::ops::conv_layout;
  const auto p = problem(2, 1, L::nhwgc);
  auto q = p;
  q.N = 3;
  std::vector<float> d(1);
  const auto batch_of = [&](const tg::ops::conv_problem& pr) {
    const auto yd = pr.y_desc<2>(), wd = pr.w_desc<2>(), xd = pr.x_desc<2>();
    return tg::ops::make_col2im_batch(pr.geometry<2>(), d.data(), d.data(), d.data(), yd, wd, xd);
  };
  tm::plan_cache_stats a, b;
  (void)tm::plan_views_cached<256, 128>(batch_of(p), &a);
  (void)tm::plan_views_cached<256, 128>(batch_of(q), &b);
  EXPECT_EQ(b.misses, a.misses + 1);
  EXPECT_EQ(tm::plan_key(batch_of(p)) == tm::plan_key(batch_of(q)), false);
}
}  // namespace
