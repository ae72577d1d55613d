#include "file_rendezvous.h"

#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>

namespace ftmpi::transport::test {

namespace {

std::string path_of(const std::string& dir, const std::string& name, int rank) {
  return dir + "/" + name + "." + std::to_string(rank);
}

bool exists(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0;
}

// Written under a temporary name and renamed: a reader never sees half a file.
void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  TT_CHECK(out.good() && rename(tmp.c_str(), path.c_str()) == 0, "cannot write %s", path.c_str());
}

// Polls the endpoint while waiting, so messages already sent to us keep moving.
void wait_until(FileJob& job, const std::string& what, double timeout_s,
                const std::function<bool()>& ready) {
  const double deadline = now_seconds() + timeout_s;
  while (!ready()) {
    TT_CHECK(now_seconds() < deadline, "rank %d: timed out waiting for %s", job.rank,
             what.c_str());
    if (job.waiter != nullptr) job.waiter->progress();
    usleep(200);
  }
}

}  // namespace

void FileJob::post(const std::string& name) const {
  write_file(path_of(dir, name, rank), {});
}

bool FileJob::posted(const std::string& name, int from) const {
  return exists(path_of(dir, name, from));
}

void FileJob::wait_for(const std::string& name, int from, double timeout_s) {
  wait_until(*this, name + " from rank " + std::to_string(from), timeout_s,
             [&] { return posted(name, from); });
}

void FileJob::barrier(const std::string& name, const std::vector<int>& who, double timeout_s) {
  post("barrier-" + name);
  std::vector<int> all = who;
  if (all.empty()) {
    for (int r = 0; r < size; ++r) all.push_back(r);
  }
  wait_until(*this, "barrier " + name, timeout_s, [&] {
    for (int r : all) {
      if (!posted("barrier-" + name, r)) return false;
    }
    return true;
  });
}

void join_file_job(FileJob* job, int rank, int size, const std::string& dir,
                   const std::string& provider) {
  TT_CHECK(rank >= 0 && rank < size, "rank %d out of 0..%d", rank, size - 1);
  job->rank = rank;
  job->size = size;
  job->dir = dir;
  std::string err;
  job->ep = Endpoint::open(provider, &err);
  TT_CHECK(job->ep != nullptr, "rank %d: open: %s", rank, err.c_str());
  job->waiter = std::make_unique<Waiter>(*job->ep);
  write_file(path_of(dir, "addr", rank), job->ep->address());
  std::vector<std::vector<std::uint8_t>> addrs;
  for (int r = 0; r < size; ++r) {
    const std::string path = path_of(dir, "addr", r);
    wait_until(*job, "the address of rank " + std::to_string(r), 60.0,
               [&] { return exists(path); });
    std::ifstream in(path, std::ios::binary);
    addrs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  TT_CHECK(job->ep->insert_peers(addrs) == Status::ok, "rank %d: insert_peers: %s", rank,
           job->ep->last_error().c_str());
}

}  // namespace ftmpi::transport::test
