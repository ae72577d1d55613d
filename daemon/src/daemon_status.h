// The daemon's status type. The code that first sees an error also writes the human-readable
// reason (a `why` string) next to it; callers only branch on the status.
#pragma once

#include <cstdint>

namespace ftmpi::daemon {

enum class [[nodiscard]] Status : std::uint8_t {
    ok,
    pmix_failed,      // a PMIx server call returned an error
    spawn_failed,     // fork/exec/pipe trouble or executable not found
    invalid_request,  // the client asked for something impossible (0 ranks, empty argv...)
    system_error,     // a system call the daemon needs failed
};

}  // namespace ftmpi::daemon
