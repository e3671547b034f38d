// Which pipeline each GPU call took, and why (the path report): a new op can land on a slow path
// without anyone knowing otherwise. The examples' --explain prints it; TG_EXPLAIN=1 in the
// environment prints each line to stderr as it happens ("tilegrad <pipeline>: <line>").
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace tg {
struct path_line {
  std::string pipeline, line;  // "gemm", "relayout"; the plan taken and why
};
inline std::vector<path_line>& pipeline_paths() {
  static std::vector<path_line> lines;
  return lines;
}
inline void report_path(std::string pipeline, std::string line) {
  static const bool echo = [] {
    const char* e = std::getenv("TG_EXPLAIN");
    return e && *e && *e != '0';
  }();
  if (echo) std::fprintf(stderr, "tilegrad %s: %s\n", pipeline.c_str(), line.c_str());
  auto& l = pipeline_paths();
  if (l.size() < 1000) l.push_back({std::move(pipeline), std::move(line)});
}
inline void report_gemm_path(std::string line) { report_path("gemm", std::move(line)); }
inline void report_relayout_path(std::string line) { report_path("relayout", std::move(line)); }
}  // namespace tg
