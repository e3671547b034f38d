// A fixed-size array that works in host and device code (std::array's members are not __device__).
// multi_index<N> is the run-time coordinate type of every transform and descriptor.
#pragma once
#include "dsl/config.hpp"

namespace tg {
template <class T, int N>
struct array {
  T data[N > 0 ? N : 1];
  static constexpr int size() { return N; }
  TG_FN T& operator[](int i) { return data[i]; }
  TG_FN const T& operator[](int i) const { return data[i]; }
  friend TG_FN bool operator==(const array& a, const array& b) {
    TG_UNROLL for (int i = 0; i < N; ++i) if (a.data[i] != b.data[i]) return false;
    return true;
  }
  friend TG_FN bool operator!=(const array& a, const array& b) { return !(a == b); }
};

template <int N>
using multi_index = array<index_t, N>;

template <int N>
TG_FN multi_index<N> zeros() { multi_index<N> r{}; TG_UNROLL for (int i = 0; i < N; ++i) r[i] = 0; return r; }

template <int N>
TG_FN multi_index<N> operator+(multi_index<N> a, const multi_index<N>& b) { TG_UNROLL for (int i = 0; i < N; ++i) a[i] += b[i]; return a; }
template <int N>
TG_FN multi_index<N> operator-(multi_index<N> a, const multi_index<N>& b) { TG_UNROLL for (int i = 0; i < N; ++i) a[i] -= b[i]; return a; }

template <class... I>
TG_FN multi_index<sizeof...(I)> make_multi_index(I... i) { return {{static_cast<index_t>(i)...}}; }
}  // namespace tg
