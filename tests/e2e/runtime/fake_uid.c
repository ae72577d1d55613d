/* LD_PRELOAD shim for the security tests: the process claims to be root (or $FAKE_UID) to
 * every library that asks getuid()/geteuid(), as an intruder would to fool a handshake that
 * trusts the uid a client reports about itself. The kernel still knows better. */
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static uid_t fake_id(void) {
    const char* v = getenv("FAKE_UID");
    return v != NULL ? (uid_t)strtoul(v, NULL, 10) : 0;
}

uid_t getuid(void) { return fake_id(); }
uid_t geteuid(void) { return fake_id(); }
gid_t getgid(void) { return (gid_t)fake_id(); }
gid_t getegid(void) { return (gid_t)fake_id(); }
