// adaptor: a chain of stages, each a set of transforms that maps the upper (top) index of the stage
// to its lower index. Each transform in a stage is bound to the ids of the lower dimensions it
// produces and the upper dimensions it consumes; the ids are compile-time and checked to form a
// partition, so a chain that drops or duplicates a dimension does not compile.
#pragma once
#include <utility>
#include "dsl/array.hpp"
#include "dsl/tuple.hpp"

namespace tg {
template <int... I>
using seq = std::integer_sequence<int, I...>;

namespace detail {
template <int... I, int N>
TG_FN multi_index<sizeof...(I)> pick(const multi_index<N>& a, seq<I...>) { return {{a[I]...}}; }
template <int... I, int N, int M>
TG_FN void place(multi_index<N>& a, const multi_index<M>& v, seq<I...>) {
  int k = 0;
  ((a[I] = v[k++]), ...);
  (void)k; (void)v;
}
// True when the ids of all bound transforms together are exactly 0..n-1, each once.
template <int N, class... Seqs>
constexpr bool is_partition() {
  int count[N > 0 ? N : 1] = {};
  bool ok = true;
  auto mark = [&](auto s) {
    [&]<int... I>(seq<I...>) { ((I >= 0 && I < N ? ++count[I] : (ok = false, 0)), ...); }(s);
  };
  (mark(Seqs{}), ...);
  for (int i = 0; i < N; ++i) ok = ok && count[i] == 1;
  return ok;
}
}  // namespace detail

// A transform with the lower and upper dimension ids it connects inside its stage.
template <class T, class LowIds, class UpIds>
struct bound {
  static_assert(static_cast<int>(LowIds::size()) == T::n_lower, "transform: wrong number of lower ids");
  static_assert(static_cast<int>(UpIds::size()) == T::n_upper, "transform: wrong number of upper ids");
  T t;
};

template <class... Bounds>
struct stage_of;

template <class... T, class... L, class... U>
struct stage_of<bound<T, L, U>...> {
  static constexpr int n_upper = (0 + ... + T::n_upper);
  static constexpr int n_lower = (0 + ... + T::n_lower);
  static constexpr bool always_valid = (true && ... && T::always_valid);
  static constexpr bool affine = (true && ... && T::affine);
  static_assert(detail::is_partition<n_upper, U...>(), "stage: upper ids must be 0..n-1, each once");
  static_assert(detail::is_partition<n_lower, L...>(), "stage: lower ids must cover each lower dimension once");
  tuple<bound<T, L, U>...> parts;

  // Separable: every transform reads one upper dimension, so each lower dimension is a function of a
  // single upper one (lower_source()[j] names it). A GEMM kernel then evaluates such a stage once per
  // tile row and once per k instead of once per element (group_dims stages are separable).
  static constexpr bool separable = (true && ... && (T::n_upper == 1));
  static constexpr array<int, n_lower> lower_source() {
    array<int, n_lower> src{};
    (mark_source(src, L{}, U{}), ...);
    return src;
  }

  // The first lower id of the transform that reads upper dimension u alone, -1 where none: for a merge
  // its slowest digit (group_dims: the first dimension listed in the group). A GEMM lowering reads the
  // outermost coordinate of a merged reduction this way (lowering/gpu/k_order.hpp).
  static constexpr int first_lower_of(int u) {
    int r = -1;
    (first_of(r, u, L{}, U{}), ...);
    return r;
  }

  // All lower ids of the transform that reads upper dimension u alone, in its order (a merge: slowest
  // digit first), and how many (0 where none). The GEMM's box lowering reads a merged dimension's digits
  // this way (lowering/gpu/boxes.hpp).
  struct lower_list {
    array<int, n_lower> id;
    int count;
  };
  static constexpr lower_list lowers_of(int u) {
    lower_list r{};
    (lowers_into(r, u, L{}, U{}), ...);
    return r;
  }

  TG_FN multi_index<n_upper> upper_lengths() const {
    multi_index<n_upper> r{};
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      detail::place(r, b.t.upper_lengths(), up_ids(b));
    });
    return r;
  }
  TG_FN multi_index<n_lower> lower(const multi_index<n_upper>& up) const {
    multi_index<n_lower> r{};
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      detail::place(r, b.t.lower(detail::pick(up, up_ids(b))), low_ids(b));
    });
    return r;
  }
  TG_FN bool is_valid(const multi_index<n_upper>& up) const {
    bool ok = true;
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      if constexpr (!std::remove_reference_t<decltype(b.t)>::always_valid) ok = ok && b.t.is_valid(detail::pick(up, up_ids(b)));
    });
    return ok;
  }
  // Guards: the transforms that can be invalid (pad), each testing one upper coordinate.
  static constexpr int n_guards = (0 + ... + (T::always_valid ? 0 : 1));
  // The coordinates the guards test, written to out[0..n_guards).
  TG_FN void guard_coords(const multi_index<n_upper>& up, index_t* out) const {
    int k = 0;
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      using TT = std::remove_reference_t<decltype(b.t)>;
      if constexpr (!TT::always_valid) {
        static_assert(TT::n_upper == 1, "a guard tests one coordinate");
        out[k++] = detail::pick(up, up_ids(b))[0];
      }
    });
  }
  // Each guard's box (pad::box): guard k holds iff first[k] <= coords[k] < first[k] + count[k].
  TG_FN void guard_boxes(index_t* first, index_t* count) const {
    int k = 0;
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      if constexpr (!std::remove_reference_t<decltype(b.t)>::always_valid) {
        b.t.box(first[k], count[k]);
        ++k;
      }
    });
  }
  TG_FN bool guards_valid(const index_t* coords) const {
    bool ok = true;
    int k = 0;
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      if constexpr (!std::remove_reference_t<decltype(b.t)>::always_valid) {
        ok = ok && b.t.is_valid(multi_index<1>{{coords[k]}});
        ++k;
      }
    });
    return ok;
  }
  TG_FN multi_index<n_lower> lower_step(const multi_index<n_upper>& d, const multi_index<n_lower>& low_old,
                                        const multi_index<n_upper>& up_new) const {
    multi_index<n_lower> r{};
    static_for<sizeof...(T)>([&](auto i) {
      auto& b = get<i>(parts);
      detail::place(r, b.t.lower_step(detail::pick(d, up_ids(b)), detail::pick(low_old, low_ids(b)), detail::pick(up_new, up_ids(b))),
                    low_ids(b));
    });
    return r;
  }

 private:
  template <int... Ls, int... Us>
  static constexpr void mark_source(array<int, n_lower>& src, seq<Ls...>, seq<Us...>) {
    constexpr int u = sizeof...(Us) == 1 ? (0 + ... + Us) : -1;
    ((src[Ls] = u), ...);
  }
  template <int... Ls, int... Us>
  static constexpr void first_of(int& r, int u, seq<Ls...>, seq<Us...>) {
    constexpr int lows[] = {Ls..., -1};
    if (r < 0 && sizeof...(Us) == 1 && (0 + ... + Us) == u) r = lows[0];
  }
  template <int... Ls, int... Us>
  static constexpr void lowers_into(lower_list& r, int u, seq<Ls...>, seq<Us...>) {
    if (r.count == 0 && sizeof...(Us) == 1 && (0 + ... + Us) == u) ((r.id[r.count++] = Ls), ...);
  }
  template <class TT, class LL, class UU>
  static constexpr UU up_ids(const bound<TT, LL, UU>&) { return {}; }
  template <class TT, class LL, class UU>
  static constexpr LL low_ids(const bound<TT, LL, UU>&) { return {}; }
};

// Stages are stored top first: stages[0] consumes the top index, the last one yields the bottom.
template <class... Stages>
struct adaptor {
  static constexpr int n_stages = sizeof...(Stages);
  using stage_list = tuple<Stages...>;
  stage_list stages;

  template <int S>
  using stage_t = std::remove_cv_t<std::remove_reference_t<decltype(get<S>(std::declval<stage_list>()))>>;
  static constexpr int n_top = stage_t<0>::n_upper;
  static constexpr int n_bottom = stage_t<n_stages - 1>::n_lower;
  static constexpr bool always_valid = (true && ... && Stages::always_valid);
  // Stages S.. are affine: the bottom offset is affine in the level-S index and validity is a box
  // there, so along a line of that level offsets step evenly and the valid points form one run
  // (kernels test a vector's two ends instead of every element).
  template <int S>
  static constexpr bool affine_from() {
    if constexpr (S >= n_stages) return true; else return stage_t<S>::affine && affine_from<S + 1>();
  }

  // The guards of stages S.. (pads): how many, the coordinates they test at a level-S index, their
  // boxes, and validity from those coordinates alone. Where those stages are affine, the coordinates are affine
  // in the level-S index too, so kernels may tabulate them per tile row and per k and add.
  template <int S>
  static constexpr int guards_from() {
    if constexpr (S >= n_stages) return 0; else return stage_t<S>::n_guards + guards_from<S + 1>();
  }
  template <int S, int N>
  TG_FN void guard_coords(const multi_index<N>& level, index_t* out) const {
    const auto& st = get<S>(stages);
    st.guard_coords(level, out);
    if constexpr (S + 1 < n_stages) guard_coords<S + 1>(st.lower(level), out + stage_t<S>::n_guards);
  }
  template <int S>
  TG_FN void guard_boxes(index_t* first, index_t* count) const {
    get<S>(stages).guard_boxes(first, count);
    if constexpr (S + 1 < n_stages) guard_boxes<S + 1>(first + stage_t<S>::n_guards, count + stage_t<S>::n_guards);
  }
  template <int S>
  TG_FN bool guards_valid(const index_t* coords) const {
    bool ok = get<S>(stages).guards_valid(coords);
    if constexpr (S + 1 < n_stages) ok = ok && guards_valid<S + 1>(coords + stage_t<S>::n_guards);
    return ok;
  }

  // Level l is the index above stage l (level 0 = top, level n_stages = bottom).
  template <int L>
  static constexpr int level_size() {
    if constexpr (L == 0) return n_top; else return stage_t<L - 1>::n_lower;
  }
  template <int L>
  static constexpr int level_offset() {
    if constexpr (L == 0) return 0; else return level_offset<L - 1>() + level_size<L - 1>();
  }
  static constexpr int n_hidden = level_offset<n_stages>() + n_bottom;

  TG_FN multi_index<n_top> top_lengths() const { return get<0>(stages).upper_lengths(); }
  TG_FN index_t top_length(int i) const { return top_lengths()[i]; }

  TG_FN multi_index<n_bottom> bottom(const multi_index<n_top>& top) const {
    return descend<0>(top);
  }
  TG_FN bool is_valid(const multi_index<n_top>& top) const {
    if constexpr (always_valid) { return true; } else { bool ok = true; check<0>(top, ok); return ok; }
  }
  // The same from an index at level S (the input of stage S), skipping the stages above it.
  template <int S, int N>
  TG_FN multi_index<n_bottom> bottom_from(const multi_index<N>& level) const { return descend<S>(level); }
  template <int S, int N>
  TG_FN bool valid_from(const multi_index<N>& level) const { bool ok = true; check<S>(level, ok); return ok; }

 private:
  template <int S, int N>
  TG_FN multi_index<n_bottom> descend(const multi_index<N>& up) const {
    auto low = get<S>(stages).lower(up);
    if constexpr (S + 1 == n_stages) return low; else return descend<S + 1>(low);
  }
  template <int S, int N>
  TG_FN void check(const multi_index<N>& up, bool& ok) const {
    const auto& st = get<S>(stages);
    if constexpr (!std::remove_reference_t<decltype(st)>::always_valid) ok = ok && st.is_valid(up);
    if constexpr (S + 1 < n_stages) check<S + 1>(st.lower(up), ok);
  }
};

// Binds transforms to dimension ids: stage_of(tg::make_tuple(t...), tg::make_tuple(seq<low>...), tg::make_tuple(seq<up>...)).
template <class... T, class... L, class... U>
TG_FN auto make_stage(tuple<T...> ts, tuple<L...>, tuple<U...>) {
  static_assert(sizeof...(T) == sizeof...(L) && sizeof...(T) == sizeof...(U), "one id list per transform");
  using S = stage_of<bound<T, L, U>...>;
  S s{};
  static_for<sizeof...(T)>([&](auto i) { get<i>(s.parts).t = get<i>(ts); });
  return s;
}

// Puts a new stage on top of an adaptor: its lower ids name the adaptor's current top dimensions.
template <class... Stages, class NewStage>
TG_FN auto stack(const adaptor<Stages...>& a, const NewStage& s) {
  static_assert(NewStage::n_lower == adaptor<Stages...>::n_top, "transform: the lower ids must name every top dimension of the descriptor once");
  adaptor<NewStage, Stages...> r{};
  get<0>(r.stages) = s;
  static_for<sizeof...(Stages)>([&](auto i) { get<decltype(i)::value + 1>(r.stages) = get<i>(a.stages); });
  return r;
}

template <class Stage>
TG_FN adaptor<Stage> make_adaptor(const Stage& s) { adaptor<Stage> r{}; get<0>(r.stages) = s; return r; }
}  // namespace tg
