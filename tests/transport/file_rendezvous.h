// Harness for transport programs that run as separate processes on (namespace) hosts, without
// mpirun: each process opens its Endpoint from the environment (FTMPI_NHOSTS, FTMPI_NET_ADDR
// as ftmpid would set them), publishes its address as a file in a directory every host sees
// (tests/netns/hosts.sh: under $FTNS), reads everyone's, and inserts them in rank order, so
// PeerId == rank (itself included, as the MPI engine does). Barriers are files too.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftmpi/transport/endpoint.h"
#include "two_process.h"

namespace ftmpi::transport::test {

struct FileJob {
  int rank = 0;
  int size = 0;
  std::string dir;  // shared by every process of the job
  std::unique_ptr<Endpoint> ep;
  std::unique_ptr<Waiter> waiter;  // every wait goes through it: nothing completes unseen

  // Waits (driving the endpoint through the waiter, so transfers progress) until every rank in `who` (all
  // ranks when empty) has reached the barrier of that name; fails the test after timeout_s.
  void barrier(const std::string& name, const std::vector<int>& who = {},
               double timeout_s = 60.0);
  // A one-way signal: `name` posted by this rank / waited for from rank `from`.
  void post(const std::string& name) const;
  void wait_for(const std::string& name, int from, double timeout_s = 60.0);
  bool posted(const std::string& name, int from) const;
};

// Opens the endpoint ("" = from the environment), exchanges addresses through dir and inserts
// them. Exits the process with a message on failure.
void join_file_job(FileJob* job, int rank, int size, const std::string& dir,
                   const std::string& provider = "");

}  // namespace ftmpi::transport::test
