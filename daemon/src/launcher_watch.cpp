// See launcher_watch.h.
#include "launcher_watch.h"

#include <poll.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>

#include "log.h"

namespace ftmpi::daemon {

namespace {

// Blocks (without spinning) until the launcher's end of the pipe is closed, then gives the
// loop `grace` to finish in order. Touches no daemon state: only this descriptor, the names to
// remove (copied in before anything can go wrong) and _exit.
void watchdog(int fd, std::chrono::milliseconds grace, LastResortCleanup cleanup) {
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        int rc = poll(&p, 1, -1);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return;  // cannot watch; the loop's own watch still works
        if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) break;
        char buf[64];
        ssize_t n = read(fd, buf, sizeof buf);  // mpirun never writes; drain whatever comes
        if (n == 0) break;
        if (n < 0 && errno != EINTR && errno != EAGAIN) break;
    }
    std::this_thread::sleep_for(grace);
    // Still here: the loop is stuck. exit_group ends every thread, and the ranks' death signal
    // (PR_SET_PDEATHSIG) fires as the thread that forked them goes.
    static const char msg[] = "ftmpid: launcher gone and the daemon did not stop in time; exiting\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    cleanup.run();  // ends the ranks and removes their segments first (last_resort_cleanup.h)
    _exit(1);
}

}  // namespace

bool LauncherWatch::start(EventLoop& loop, int fd, std::chrono::milliseconds grace, LastResortCleanup cleanup,
                          std::function<void()> on_gone) {
    fd_ = fd;
    try {
        std::thread(watchdog, fd, grace, std::move(cleanup)).detach();
    } catch (...) {
        return false;
    }
    // The loop's view of the same descriptor; EPOLLHUP arrives with EPOLLIN at end of file.
    return loop.add_fd(fd, EPOLLIN, [this, &loop, on_gone = std::move(on_gone)](std::uint32_t events) {
        if (reported_) return;
        if (!(events & (EPOLLHUP | EPOLLERR))) {
            char buf[64];
            if (read(fd_, buf, sizeof buf) != 0) return;  // data or a spurious wake-up
        }
        reported_ = true;
        loop.remove_fd(fd_);  // level-triggered HUP would fire forever; the watchdog keeps the fd
        FTMPID_INFO("the launcher is gone; ending its jobs");
        on_gone();
    });
}

}  // namespace ftmpi::daemon
