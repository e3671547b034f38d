// Problem validation: every op checks its parameters before any work and names the bad one.
#pragma once
#include <stdexcept>
#include <string>

namespace tg::ops {
struct invalid_problem : std::invalid_argument {
  std::string parameter;
  invalid_problem(const std::string& op, const std::string& param, const std::string& why)
      : std::invalid_argument(op + ": invalid " + param + ": " + why), parameter(param) {}
};

inline void require(bool ok, const char* op, const std::string& param, const std::string& why) {
  if (!ok) throw invalid_problem(op, param, why);
}
}  // namespace tg::ops
