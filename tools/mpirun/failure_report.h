// The lines mpirun prints on stderr when a rank fails (SPEC 4.7), e.g.
//   ftmpi: rank 1 (pid 1234) killed by signal 9 (Killed)
//   ftmpi: rank 1 (pid 1234) exited with status 3
//   ftmpi: rank 1 (pid 1234) exited without calling MPI_Finalize
// A failure the job survives (non-ABORT modes) also says when and how it is repaired.
#pragma once

#include <string>

#include "ftmpi_proto/messages.h"

namespace ftmpi::mpirun {

// `host`: the rank's host, named in a job on several hosts ("rank 1 (pid 1234 on node2) ...").
std::string format_rank_failure(const proto::RankExited& m, proto::CommMode mode, const std::string& host = "");
std::string format_abort(const proto::AbortRequested& m);
// Writes `line` to stderr with one write(2), so that lines of mpirun never interleave.
void say(const std::string& line);

}  // namespace ftmpi::mpirun
