// A hot spare's wait inside MPI_Init (issue 17 item 5; daemon side: daemon/src/job_spares.cpp).
//
// ftmpid starts K spares per job besides its ranks. Each is an ordinary PMIx client of the
// job's namespace whose process index is one the survivors will hand out at a later REBUILD
// (the daemon keeps spares on the next free indices), so everything slow about a new process
// (exec, loading libraries, PMIx_Init, opening the transport, publishing its address) is done
// before any failure. Then it blocks in read() on FTMPI_SPARE_FD: no CPU, no spinning, not a
// member of MPI_COMM_WORLD. When the survivors ask for a replacement with this index, the
// daemon writes the FTMPI_* variables a freshly started replacement would have got (the
// REBUILD plan above all), and MPI_Init goes on exactly as a replacement's does (Rebuilder::join).
// End of file instead means the job ended without needing this spare.
#include <poll.h>
#include <pmix.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <ftmpi/debug_log.h>

#include "ftmpi_knobs/knobs.h"
#include "runtime.h"

namespace ftmpi {
namespace {
// While the job starts, a spare looks for the ranks' addresses every kPrefetchRetryMs, at most
// kPrefetchPasses times (2 s); then it blocks for good.
constexpr int kPrefetchPasses = 40;
constexpr int kPrefetchRetryMs = 50;
}  // namespace

// A spare's join used to look up every member's address through the daemon, one round trip
// each, on the repair's path (7 lookups: 1.0-1.6 ms of the REBUILD on 3 namespace hosts at load
// ~15). The original ranks' addresses never change (a replacement gets a new index), so the
// spare takes them while it waits. They reach its daemon with the start-up fence's data, all
// at once; PMIX_IMMEDIATE has the daemon answer "not found" until then instead of fetching the
// value from another host (direct modex), which waits for a rank that may never publish one
// (it died in MPI_Init). A pass gives up after kMissesPerPass misses in a row while it has
// found nothing (the fence has not come yet): one round trip per pass, not one per rank.
// Ranks that never published stay empty and are looked up as before.
bool Runtime::prefetch_addresses() {
  constexpr int kMissesPerPass = 3;
  prefetched_.resize(static_cast<std::size_t>(size_));
  bool all = true;
  bool found = false;
  int misses = 0;
  for (int r = 0; r < size_; ++r) {
    auto& addr = prefetched_[static_cast<std::size_t>(r)];
    if (!addr.empty()) continue;
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, nspace_.c_str(), static_cast<pmix_rank_t>(r));
    pmix_info_t info[2];
    bool immediate = true;
    int seconds = 1;  // guards a local rank's value the daemon might wait for
    PMIX_INFO_LOAD(&info[0], PMIX_IMMEDIATE, &immediate, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_value_t* got = nullptr;
    const pmix_status_t rc = PMIx_Get(&peer, kAddressKey, info, 2, &got);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc == PMIX_SUCCESS && got != nullptr && got->type == PMIX_BYTE_OBJECT) {
      const auto* bytes = reinterpret_cast<const std::uint8_t*>(got->data.bo.bytes);
      addr.assign(bytes, bytes + got->data.bo.size);
      found = true;
    } else {
      all = false;
      ++misses;
    }
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
    if (!found && misses >= kMissesPerPass) break;
  }
  return all;
}

bool Runtime::is_spare() const { return knobs::get_if_set(knobs::Id::spare_fd).has_value(); }

// The daemon's message: NUL-terminated "FTMPI_NAME=value" entries, then an empty entry.
bool Runtime::wait_for_assignment(std::string* err, const SpareWork& while_waiting) {
  const int fd = static_cast<int>(knobs::integer(knobs::Id::spare_fd));
  FTMPI_DLOG("startup", "MPI_Init: hot spare (process %d) waiting for a rank", rank_);
  bool all = false;
  for (int pass = 0; pass < kPrefetchPasses && connected_ && !(all = prefetch_addresses()); ++pass) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kPrefetchRetryMs) != 0) break;  // the assignment (or the job's end) is here
  }
  if (debug_log::enabled()) {
    std::size_t have = 0;
    for (const auto& a : prefetched_) have += a.empty() ? 0 : 1;
    FTMPI_DLOG("startup", "MPI_Init: hot spare holds %zu of %d ranks' addresses", have, size_);
  }
  if (all && while_waiting) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) == 0) while_waiting(fd, prefetched_);
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);  // blocks: a spare uses no CPU while it waits
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // The job ended (or the daemon is gone) before this spare was needed: it never was a
      // member of the job, so it leaves without a word and without disturbing anybody.
      FTMPI_DLOG("startup", "MPI_Init: hot spare released unused");
      _exit(0);
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() >= 2 && text.compare(text.size() - 2, 2, std::string("\0\0", 2)) == 0) break;
  }
  close(fd);
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\0', at);
    const std::string entry = text.substr(at, end - at);
    at = end + 1;
    if (entry.empty()) break;
    const std::size_t eq = entry.find('=');
    if (eq == std::string::npos || entry.compare(0, 6, "FTMPI_") != 0) {
      *err = "malformed assignment from the daemon";
      return false;
    }
    setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
  }
  unsetenv("FTMPI_SPARE_FD");  // the descriptor is closed; nothing must read it again
  rebuild_plan_ = knobs::text(knobs::Id::rebuild_plan);
  if (rebuild_plan_.empty()) {
    *err = "the daemon's assignment carries no FTMPI_REBUILD_PLAN";
    return false;
  }
  FTMPI_DLOG("startup", "MPI_Init: hot spare (process %d) takes a rank", rank_);
  return true;
}

}  // namespace ftmpi
