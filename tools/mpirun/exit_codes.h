// The exit codes mpirun derives from its ranks' ends (daemon/README.md, exit rules).
#pragma once

#include "ftmpi_proto/messages.h"

namespace ftmpi::mpirun {

// Exit statuses are 8 bits; a non-zero code must not wrap to success.
inline int normalize_exit(int code) {
    if (code != 0 && (code & 0xff) == 0) return 1;
    return code & 0xff;
}

// A failed rank's code: 128 + signal when killed, else its non-zero status (1 for none).
inline int failure_code(const proto::RankExited& m) {
    if (m.signaled) return 128 + m.code;
    return m.code != 0 ? m.code : 1;
}

}  // namespace ftmpi::mpirun
