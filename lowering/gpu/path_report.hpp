// Which pipeline each GPU GEMM took, and why (the path report): a new op can land on a slow path
// without anyone knowing otherwise. The examples' --explain prints it; TG_EXPLAIN=1 in the
// environment prints each line to stderr as it happens.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tg {
inline std::vector<std::string>& gemm_paths() {
  static std::vector<std::string> lines;
  return lines;
}
inline void report_gemm_path(std::string line) {
  static const bool echo = [] {
    const char* e = std::getenv("TG_EXPLAIN");
    return e && *e && *e != '0';
  }();
  if (echo) std::fprintf(stderr, "tilegrad gemm: %s\n", line.c_str());
  auto& l = gemm_paths();
  if (l.size() < 1000) l.push_back(std::move(line));
}
}  // namespace tg
