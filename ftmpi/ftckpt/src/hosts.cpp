#include "hosts.hpp"

#include <map>
#include <string>

namespace ftckpt {

namespace {

std::string& host_name_override() {
  static std::string name;
  return name;
}

}  // namespace

std::uint64_t my_host_key() {
  std::string name = host_name_override();
  if (name.empty()) {
    char buf[MPI_MAX_PROCESSOR_NAME + 1] = {};
    int len = 0;
    if (MPI_Get_processor_name(buf, &len) == MPI_SUCCESS) name.assign(buf, static_cast<std::size_t>(len));
  }
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  h &= ~(std::uint64_t{1} << 63);  // fits a non-negative long long (exchange_meta's MAX)
  return h == 0 ? 1 : h;
}

std::vector<int> hosts_from_keys(const std::vector<std::uint64_t>& keys) {
  const int n = static_cast<int>(keys.size());
  std::vector<std::uint64_t> filled(keys);
  std::uint64_t last = 0;
  for (int r = 0; r < n; ++r) last = filled[r] = keys[r] != 0 ? keys[r] : last;
  last = 0;
  for (int r = n - 1; r >= 0; --r) last = filled[r] = filled[r] != 0 ? filled[r] : last;
  std::map<std::uint64_t, int> number;
  std::vector<int> hosts(n);
  for (int r = 0; r < n; ++r)
    hosts[r] = number.emplace(filled[r], static_cast<int>(number.size())).first->second;
  if (number.size() < 2) hosts.clear();
  return hosts;
}

Placement epoch_placement(const Epoch& e, int df, int sd) {
  return e.hosts.empty() ? Placement(e.n, df, sd) : Placement(e.n, df, sd, e.hosts);
}

}  // namespace ftckpt

extern "C" int FTCKPT_Test_host_name(const char* name) {
  ftckpt::host_name_override() = name ? name : "";
  return MPI_SUCCESS;
}
