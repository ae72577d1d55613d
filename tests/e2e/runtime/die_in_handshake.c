/* LD_PRELOAD shim for the tests of issue 16 item 2: the process whose PMIX_RANK equals
 * $DIE_RANK SIGKILLs itself right after it sent its PMIx connect-ack (its first send on its
 * first TCP connection, which is PMIx's), before the server's reply: it dies INSIDE the PMIx
 * handshake, deterministically. libpmix 4.2.2's server then failed its reply, took an error path
 * that freed the rank's record twice and hung in PMIx_server_finalize at the job's end
 * (daemon/src/pmix_handshake_reply.h). Every other process is untouched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int g_fd = -1;

static int is_victim(void) {
    const char *want = getenv("DIE_RANK"), *me = getenv("PMIX_RANK");
    return want != NULL && me != NULL && strcmp(want, me) == 0;
}

int connect(int fd, const struct sockaddr *sa, socklen_t len) {
    static int (*real)(int, const struct sockaddr *, socklen_t);
    if (real == NULL) real = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
    int rc = real(fd, sa, len);
    if (g_fd < 0 && sa != NULL && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) && is_victim()) g_fd = fd;
    return rc;
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
    static ssize_t (*real)(int, const void *, size_t, int);
    if (real == NULL) real = (ssize_t (*)(int, const void *, size_t, int))dlsym(RTLD_NEXT, "send");
    ssize_t rc = real(fd, buf, n, flags);
    if (fd == g_fd) raise(SIGKILL); /* the connect-ack is out; the reply never gets read */
    return rc;
}
