// Memory checks before allocating. A problem whose sizes fit in 64 bits may still need far more
// memory than the machine has, and on Linux allocating it does not fail cleanly: memory is
// overcommitted, and the process is killed once it touches more pages than there are (issue 21).
// So host memory an op or an example takes is first compared with what the host can give, and a
// problem too large gets insufficient_memory, naming the tensor and the bytes.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <unistd.h>
#include "lowering/backend.hpp"
#include "ops/check.hpp"

namespace tg::ops {
// "17592186044416 bytes (16 TiB)": exact, and readable. From 2^63 on (a count that overflowed),
// "more than" 2^63 - 1 bytes.
inline std::string describe_bytes(std::uint64_t bytes) {
  if (bytes > static_cast<std::uint64_t>(max_size)) return "more than " + describe_bytes(static_cast<std::uint64_t>(max_size));
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, ++u;
  char readable[32];
  std::snprintf(readable, sizeof readable, "%.3g %s", v, units[u]);
  return std::to_string(bytes) + " bytes" + (u ? std::string(" (") + readable + ")" : "");
}

// A valid problem too large for this machine: `tensor` needs more `where` ("host" or "device")
// memory than is available. Thrown before allocating. It is an invalid_problem (parameter: the
// tensor), so callers that reject bad problems reject these too; the examples exit 2 on both.
struct insufficient_memory : invalid_problem {
  std::uint64_t bytes, available;
  // detail, when not empty, follows the bytes needed (what they count).
  insufficient_memory(const std::string& op, const std::string& tensor, const std::string& where, std::uint64_t bytes,
                      std::uint64_t available, const std::string& detail = "")
      : invalid_problem(op + ": " + tensor + " needs " + describe_bytes(bytes) + " of " + where + " memory" + detail + ", more than the " +
                            describe_bytes(available) + " available",
                        tensor),
        bytes(bytes),
        available(available) {}
};

// What a new host allocation can get now: MemAvailable of /proc/meminfo (free memory plus what the
// kernel can reclaim without swapping), else the free physical pages; when neither can be read,
// the largest value (nothing is refused).
inline std::uint64_t host_available_bytes() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    unsigned long long kib = 0;
    bool found = false;
    while (!found && std::fgets(line, sizeof line, f)) found = std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    std::fclose(f);
    if (found) return static_cast<std::uint64_t>(kib) * 1024u;
  }
#if defined(_SC_AVPHYS_PAGES)
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
#endif
  return UINT64_MAX;
}

inline void require_memory(const char* op, const std::string& tensor, const std::string& where, std::uint64_t bytes, std::uint64_t available) {
  if (bytes > available) throw insufficient_memory(op, tensor, where, bytes, available);
}

// Before an op program takes `bytes` of scratch from its backend. The host backend's scratch is a
// zero-filled std::vector, so it is checked against the host's memory first; the GPU backend's comes
// from its device arena (lowering/gpu/backend.hpp), where a failed allocation throws by itself.
template <class Backend>
void require_scratch(const Backend&, const char* op, index_t bytes) {
  if constexpr (std::is_same_v<Backend, host_backend>) require_memory(op, "scratch", "host", static_cast<std::uint64_t>(bytes), host_available_bytes());
}
}  // namespace tg::ops
