#include "client.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/messages.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::tools {

namespace {
constexpr auto kTimeout = std::chrono::milliseconds(1000);

bool exists(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}
}  // namespace

std::vector<std::pair<std::string, int>> discover(const std::string& explicit_socket) {
    std::vector<std::pair<std::string, int>> out;
    if (!explicit_socket.empty()) return {{explicit_socket, 0}};
    if (auto env = knobs::raw(knobs::Id::daemon_socket)) return {{*env, 0}};
    const std::string def = proto::default_socket_path();
    if (exists(def)) out.emplace_back(def, 0);
    const std::string dir = proto::daemon_registry_dir();
    if (DIR* d = opendir(dir.c_str())) {
        std::vector<std::pair<std::string, int>> found;
        while (dirent* e = readdir(d)) {
            char* end = nullptr;
            long pid = std::strtol(e->d_name, &end, 10);
            if (end == e->d_name || *end != '\0' || pid <= 0) continue;
            std::ifstream in(dir + "/" + e->d_name);
            std::string sock;
            if (!std::getline(in, sock) || sock.empty()) continue;
            const bool alive = kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
            if (!alive && !exists(sock)) {
                unlink((dir + "/" + e->d_name).c_str());  // stale, and its daemon cleaned up
                continue;
            }
            found.emplace_back(sock, static_cast<int>(pid));
        }
        closedir(d);
        std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.second < b.second; });
        for (auto& f : found) {
            auto same = std::find_if(out.begin(), out.end(), [&](auto& o) { return o.first == f.first; });
            if (same != out.end()) {
                same->second = f.second;
            } else {
                out.push_back(f);
            }
        }
    }
    return out;
}

DaemonAnswer query_daemon(const std::string& socket, bool with_cpu) {
    DaemonAnswer a;
    a.socket = socket;
    std::string token, why;
    if (proto::token_read(proto::token_path_for_socket(socket), token, why) != proto::ProtoStatus::ok) {
        a.error = "no token: " + why;
        return a;
    }
    int fd = -1;
    if (proto::unix_connect(socket, fd) != proto::ProtoStatus::ok) {
        a.error = std::string("cannot connect: ") + std::strerror(errno);
        return a;
    }
    proto::Hello hello;
    hello.kind = proto::ClientKind::tool;
    hello.token = token;
    proto::FrameDecoder dec;
    proto::Frame f;
    proto::HelloAck ack;
    proto::ProtoStatus st = proto::write_all(fd, proto::encode(hello));
    if (st == proto::ProtoStatus::ok) st = proto::read_frame(fd, dec, f, kTimeout);
    if (st == proto::ProtoStatus::ok) st = proto::decode(f, ack);
    if (st == proto::ProtoStatus::ok) st = proto::write_all(fd, proto::encode_query_state(with_cpu));
    for (int skip = 0; st == proto::ProtoStatus::ok && skip < 8; ++skip) {
        st = proto::read_frame(fd, dec, f, kTimeout);
        if (st != proto::ProtoStatus::ok) break;
        if (f.type == static_cast<std::uint16_t>(proto::MsgType::job_table)) {
            st = proto::decode(f, a.snap);
            a.ok = st == proto::ProtoStatus::ok;
            break;
        }
        if (f.type == static_cast<std::uint16_t>(proto::MsgType::error_reply)) {
            st = proto::ProtoStatus::malformed;
            break;
        }
    }
    close(fd);
    if (!a.ok) a.error = std::string("no answer (") + proto::to_string(st) + ")";
    return a;
}

std::vector<DaemonAnswer> query_all(const std::string& explicit_socket, bool with_cpu) {
    std::vector<DaemonAnswer> out;
    for (auto& [sock, pid] : discover(explicit_socket)) {
        DaemonAnswer a = query_daemon(sock, with_cpu);
        a.pid = pid;
        // A private daemon that exited between discovery and query is not a failure.
        if (!a.ok && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH && !exists(sock)) continue;
        out.push_back(std::move(a));
    }
    return out;
}

}  // namespace ftmpi::tools
