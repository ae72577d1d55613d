// A launcher that pushes a host table, as mpirun's hub does for a job on several hosts, so
// the daemon's keeping of it and the tools' view can be tested on one machine:
//   host_table_client SOCKET   launches `sleep 60` as 2 ranks, pushes a 3-host table (this
//   host ok with ranks 0-1; "node-b" ok, heard 250 ms ago, ranks 2-3; "node-c" failed, ranks
//   4-5), prints "pushed <daemon pid>" and waits until its stdin closes; then kills the job and
//   exits 0 once the daemon reports job_ended.
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/host_table.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/unix_socket.h"

using namespace ftmpi::proto;

namespace {

int fail(const char* what) {
    std::fprintf(stderr, "host_table_client: %s\n", what);
    return 1;
}

std::uint64_t now_ms() {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return static_cast<std::uint64_t>(tv.tv_sec) * 1000 + static_cast<std::uint64_t>(tv.tv_usec) / 1000;
}

// Next frame of the wanted type (output and the like are skipped), within 10 s.
bool wait_for(int fd, FrameDecoder& dec, MsgType type, Frame& f) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
        if (read_frame(fd, dec, f, std::chrono::milliseconds(500)) != ProtoStatus::ok) continue;
        if (f.type == static_cast<std::uint16_t>(type)) return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: host_table_client SOCKET\n");
        return 2;
    }
    const std::string socket = argv[1];
    std::string token, why;
    if (token_read(token_path_for_socket(socket), token, why) != ProtoStatus::ok) return fail(why.c_str());
    int fd = -1;
    if (unix_connect(socket, fd) != ProtoStatus::ok) return fail("cannot connect");
    FrameDecoder dec;
    Frame f;
    Hello hello;
    hello.token = token;
    HelloAck ack;
    if (write_all(fd, encode(hello)) != ProtoStatus::ok || !wait_for(fd, dec, MsgType::hello_ack, f) ||
        decode(f, ack) != ProtoStatus::ok)
        return fail("no hello_ack");

    LaunchJob job;
    job.argv = {"sleep", "60"};
    job.env = {"PATH=/usr/bin:/bin"};
    job.cwd = "/";
    job.nprocs = 2;
    if (write_all(fd, encode(job)) != ProtoStatus::ok || !wait_for(fd, dec, MsgType::job_started, f))
        return fail("job did not start");

    char host[256] = {};
    gethostname(host, sizeof host - 1);
    HostTableUpdate table;
    table.hosts.push_back({host, HostStateV::ok, ack.daemon_pid, {0, 1}, 0, 0});
    table.hosts.push_back({"node-b", HostStateV::ok, 4242, {2, 3}, 0, now_ms() - 250});
    table.hosts.push_back({"node-c", HostStateV::failed, 4343, {4, 5}, 0, now_ms() - 5000});
    if (write_all(fd, encode(table)) != ProtoStatus::ok) return fail("cannot push the table");
    std::printf("pushed %d\n", ack.daemon_pid);
    std::fflush(stdout);

    char c;
    while (read(STDIN_FILENO, &c, 1) > 0) {
    }
    KillJob kill;
    if (write_all(fd, encode(kill)) != ProtoStatus::ok || !wait_for(fd, dec, MsgType::job_ended, f))
        return fail("no job_ended after kill_job");
    close(fd);
    return 0;
}
