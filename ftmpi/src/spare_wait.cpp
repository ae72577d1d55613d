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
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <ftmpi/debug_log.h>

#include "ftmpi_knobs/knobs.h"
#include "runtime.h"

namespace ftmpi {

bool Runtime::is_spare() const { return knobs::get_if_set(knobs::Id::spare_fd).has_value(); }

// The daemon's message: NUL-terminated "FTMPI_NAME=value" entries, then an empty entry.
bool Runtime::wait_for_assignment(std::string* err) {
  const int fd = static_cast<int>(knobs::integer(knobs::Id::spare_fd));
  FTMPI_DLOG("startup", "MPI_Init: hot spare (process %d) waiting for a rank", rank_);
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
