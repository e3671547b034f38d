// docs/new-op.md's tutorial is the library's forward convolution: its first C++ block must be, line for
// line, the text of ops/conv_fwd.hpp between the `--8<--` marks, so the tutorial cannot drift from the
// op that conv_fwd_test.cpp checks against the naive reference (and the GPU runs).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << "cannot read " << path;
  std::vector<std::string> out;
  for (std::string l; std::getline(f, l);) out.push_back(l);
  return out;
}

// The lines strictly between the first line containing `start` and the next containing `end`.
std::vector<std::string> between(const std::vector<std::string>& lines, const std::string& start, const std::string& end) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : lines) {
    if (!in) { in = l.find(start) != std::string::npos; continue; }
    if (l.find(end) != std::string::npos) return out;
    out.push_back(l);
  }
  ADD_FAILURE() << "no block between '" << start << "' and '" << end << "'";
  return {};
}

std::string joined(const std::vector<std::string>& v) {
  std::ostringstream s;
  for (const auto& l : v) s << l << "\n";
  return s.str();
}

TEST(Tutorial, NewOpShowsTheLibrarysConvFwd) {
  const std::string root = TG_SOURCE_DIR;
  const auto op = between(lines_of(root + "/ops/conv_fwd.hpp"), "// --8<-- [start:op]", "// --8<-- [end:op]");
  const auto doc = between(lines_of(root + "/docs/new-op.md"), "```cpp", "```");
  ASSERT_GT(op.size(), 5u) << "the marked op text is missing from ops/conv_fwd.hpp";
  EXPECT_NE(joined(op).find("gemm("), std::string::npos) << "the marked text is not the op program";
  EXPECT_EQ(joined(doc), joined(op)) << "docs/new-op.md's first ```cpp block differs from ops/conv_fwd.hpp's marked text";
}
}  // namespace
