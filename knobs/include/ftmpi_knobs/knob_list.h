// THE table of every FTMPI_* environment variable a program of ftmpi reads (library, transport,
// collectives, daemon, mpirun, tools). Nothing else may call getenv("FTMPI_..."): read a knob
// with ftmpi::knobs::integer(Id::...) & co. (knobs.h), which parse with one function.
// `ftmpi-info` and `mpirun --help` print this table; README.md's knob section is generated
// from `ftmpi-info --markdown`.
//
// One line per knob:
//   FTMPI_KNOB(id, NAME, type, default, min, max, choices, layer, meaning)
// type:    flag (0/1, yes/no, on/off, true/false), integer, size (bytes; K/M/G suffix = powers
//          of 1024), number (decimal, may be fractional), text, choice (one of `choices`, '|'-
//          separated, case-insensitive).
// default: text parsed like a user's value; "" = none fixed (the meaning says what then).
// min/max: inclusive range for integer, size and number (ignored otherwise).
// layer:   who reads it: library, transport, collectives, daemon, mpirun, tools, internal (set
//          by ftmpid for each rank, not by users), test (test hooks; never in production).
//
// To add a knob: add a line here (keep the groups), use its Id where you read it, and run
// `ftmpi-info --markdown` to refresh README.md's table. The knobs unit test checks the table.
#pragma once

#define FTMPI_KNOB_LIST(FTMPI_KNOB)                                                              \
  /* ---- library: fault tolerance ---- */                                                      \
  FTMPI_KNOB(comm_mode, "FTMPI_COMM_MODE", choice, "abort", 0, 0,                               \
             "abort|shrink|blank|rebuild|rebuild_append|ulfm", "library",                       \
             "what a communicator does when a member fails; ulfm: MPIX_ interface (mpirun "   \
             "--comm-mode wins)")                                                               \
  FTMPI_KNOB(msg_mode, "FTMPI_MSG_MODE", choice, "nop", 0, 0, "nop|reset|cont", "library",      \
             "messages in flight at a failure: nop (= reset) drops them, cont keeps them "      \
             "(mpirun --msg-mode wins)")                                                        \
  FTMPI_KNOB(rebuild_timeout, "FTMPI_REBUILD_TIMEOUT", integer, "30", 1, 86400, "", "library",  \
             "seconds an interrupted REBUILD waits for its replacements before giving up")      \
  FTMPI_KNOB(spare_preconnect, "FTMPI_SPARE_PRECONNECT", flag, "1", 0, 0, "", "library",        \
             "1: a hot spare opens its connections to the ranks while it waits, so a REBUILD's " \
             "hello to the survivors pays no connection setup; 0: at the repair")              \
  FTMPI_KNOB(line_buffered_stdout, "FTMPI_LINE_BUFFERED_STDOUT", flag, "1", 0, 0, "", "library",\
             "1: a rank started by mpirun line-buffers its stdout (a pipe to the relay), as on a " \
             "terminal, so lines printed before a rank dies are not lost; 0: stdio's default "   \
             "(fully buffered)")                                                                \
  FTMPI_KNOB(debug, "FTMPI_DEBUG", flag, "0", 0, 0, "", "library",                             \
             "1: one line per event on stderr from mpirun, ftmpid and every rank (ftmpi-debug " \
             "<monotonic s> rank <R> pid <P> <component>: ...): start-up phases, failures "      \
             "detected, declared, purged, repaired; 0: off, and free")                          \
  /* ---- library: waiting ---- */                                                              \
  FTMPI_KNOB(spin_polls, "FTMPI_SPIN_POLLS", integer, "", 0, 1e15, "", "library",               \
             "polls before a blocked call starts yielding (default 20000, 3 when "              \
             "oversubscribed: more processes of the job on this machine than cores)")           \
  FTMPI_KNOB(yield_polls, "FTMPI_YIELD_POLLS", integer, "", 0, 1e15, "", "library",             \
             "sched_yield polls after spinning, before sleeping (default 200, 2000 when "       \
             "oversubscribed, 10 when oversubscribed and polling libfabric too)")               \
  FTMPI_KNOB(nbc_start_polls, "FTMPI_NBC_START_POLLS", integer, "", 0, 1000000, "", "library",   \
             "polls a nonblocking collective's start makes before it returns when its first "    \
             "round is not complete (default 32, 0 when oversubscribed)")                       \
  FTMPI_KNOB(max_sleep_us, "FTMPI_MAX_SLEEP_US", integer, "500", 1, 1000000, "", "library",     \
             "longest sleep of an idle blocked call, microseconds")                             \
  FTMPI_KNOB(async_progress, "FTMPI_ASYNC_PROGRESS", flag, "1", 0, 0, "", "library",          \
             "1: a progress thread moves nonblocking collectives on while the application "     \
             "computes (it exists from the first one, sleeps on the shm doorbell; the library " \
             "lock is on from then); 0: they move only inside MPI calls")                       \
  /* ---- collectives: algorithm thresholds (every rank must see the same values) ---- */       \
  FTMPI_KNOB(oversubscribed, "FTMPI_OVERSUBSCRIBED", flag, "0", 0, 0, "", "collectives",        \
             "1: the job has more processes on a host than cores (mpirun sets it, job-wide): "  \
             "bcast and alltoall take the algorithms with the fewest waits up to larger "       \
             "sizes (FTMPI_COLL_BCAST_LARGE 512K, FTMPI_COLL_ALLTOALL_LARGE 256K unless set)")  \
  FTMPI_KNOB(coll_bcast_large, "FTMPI_COLL_BCAST_LARGE", size, "12288", 0, 1.0 * (1ull << 62),  \
             "", "collectives",                                                                 \
             "message bytes from which bcast uses scatter + ring allgather, not a binomial "    \
             "tree")                                                                            \
  FTMPI_KNOB(coll_bcast_pipeline, "FTMPI_COLL_BCAST_PIPELINE", size, "4M", 0,                   \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "message bytes from which bcast uses a segmented, pipelined chain")                \
  FTMPI_KNOB(coll_bcast_segment, "FTMPI_COLL_BCAST_SEGMENT", size, "128K", 1,                   \
             1.0 * (1ull << 62), "", "collectives", "segment size of the pipelined bcast chain") \
  FTMPI_KNOB(coll_allreduce_large, "FTMPI_COLL_ALLREDUCE_LARGE", size, "2048", 0,               \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "message bytes from which a commutative allreduce uses Rabenseifner, not "         \
             "recursive doubling")                                                              \
  FTMPI_KNOB(coll_allreduce_direct, "FTMPI_COLL_ALLREDUCE_DIRECT", size, "0", 0,                \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "message bytes up to which a long commutative allreduce (3+ members) sends block " \
             "v to member v and the combined blocks to all, each step at once (0: never)")      \
  FTMPI_KNOB(coll_reduce_scatter_large, "FTMPI_COLL_REDUCE_SCATTER_LARGE", size, "65536", 0,    \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "total bytes from which a commutative reduce_scatter uses a ring, not reduce + "   \
             "scatterv")                                                                        \
  FTMPI_KNOB(coll_gather_large, "FTMPI_COLL_GATHER_LARGE", size, "16384", 0,                    \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "bytes per process from which gather is linear, not a binomial tree")              \
  FTMPI_KNOB(coll_scatter_large, "FTMPI_COLL_SCATTER_LARGE", size, "16384", 0,                  \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "bytes per process from which scatter is linear, not a binomial tree")             \
  FTMPI_KNOB(coll_allgather_large, "FTMPI_COLL_ALLGATHER_LARGE", size, "65536", 0,              \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "total gathered bytes from which allgather uses a ring, not Bruck's algorithm")    \
  FTMPI_KNOB(coll_allgather_direct, "FTMPI_COLL_ALLGATHER_DIRECT", size, "0", 0,                \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "block bytes up to which an allgather of blocks over 256 B sends its block to "    \
             "every member at once and waits once (while all n(n-1) blocks add up to 4 MiB at " \
             "most), not Bruck's algorithm or a ring (0: never)")                               \
  FTMPI_KNOB(coll_alltoall_large, "FTMPI_COLL_ALLTOALL_LARGE", size, "32768", 0,                \
             1.0 * (1ull << 62), "", "collectives",                                             \
             "bytes per peer from which alltoall(v) uses pairwise exchange, not everything at " \
             "once")                                                                            \
  FTMPI_KNOB(coll_barrier_fan, "FTMPI_COLL_BARRIER_FAN", integer, "8", 0, 1e9, "",             \
             "collectives",                                                                     \
             "members up to which barrier is a fan-in/fan-out through the first member (from "  \
             "3 members), not dissemination")                                                   \
  FTMPI_KNOB(coll_allreduce_fan, "FTMPI_COLL_ALLREDUCE_FAN", integer, "8", 0, 1e9, "",         \
             "collectives",                                                                     \
             "members up to which a short allreduce is a fan-in/fan-out through the first "     \
             "member (from 3 members), not recursive doubling")                                 \
  FTMPI_KNOB(coll_alltoall_fan, "FTMPI_COLL_ALLTOALL_FAN", integer, "8", 0, 1e9, "",           \
             "collectives",                                                                     \
             "members up to which an alltoall of blocks up to 256 B goes through the first "    \
             "member (from 3 members), not every message at once")                              \
  FTMPI_KNOB(coll_allgather_fan, "FTMPI_COLL_ALLGATHER_FAN", integer, "8", 0, 1e9, "",         \
             "collectives",                                                                     \
             "members up to which an allgather of blocks up to 256 B goes through the first "   \
             "member (from 3 members), not Bruck's algorithm")                                  \
  FTMPI_KNOB(coll_direct_members, "FTMPI_COLL_DIRECT_MEMBERS", integer, "4", 0, 1e9, "",      \
             "collectives",                                                                     \
             "members up to which barrier, a short allreduce, and allgather/alltoall of blocks " \
             "up to 256 B message every member directly, all at once, ahead of the fans (the "  \
             "last member to arrive never waits)")                                              \
  /* ---- transport ---- */                                                                     \
  FTMPI_KNOB(provider, "FTMPI_PROVIDER", text, "shm", 0, 0, "", "transport",                    \
             "shm: ftmpi's own shared memory (one host, libfabric never loaded); or a "         \
             "libfabric provider for every peer: tcp (= tcp;ofi_rxm) or any other name")        \
  FTMPI_KNOB(transport_retry_timeout, "FTMPI_TRANSPORT_RETRY_TIMEOUT", number, "60", 0, 1e9,    \
             "", "transport",                                                                   \
             "seconds a receiver waits for a sender that claimed its part of a shared copy "    \
             "before giving up; 0 waits forever")                                               \
  FTMPI_KNOB(shm_cma, "FTMPI_SHM_CMA", flag, "1", 0, 0, "", "transport",                        \
             "1: shm receivers read large messages with process_vm_readv; 0: payloads not in "  \
             "a bulk slot are streamed through the ring")                                       \
  FTMPI_KNOB(shm_single_copy, "FTMPI_SHM_SINGLE_COPY", choice, "auto", 0, 0, "auto|0|1",        \
             "transport",                                                                       \
             "shm sends of 32 KiB and more while this process has a receive of 32 KiB or more " \
             "posted (an exchange), and all from FTMPI_SHM_DIRECT_MIN bytes: 1 the receiver "   \
             "reads them with process_vm_readv (one copy; the send completes once read), 0 "    \
             "they are staged in bulk pages up to a slot's size (complete at once), auto 1 "    \
             "when the job is not oversubscribed and process_vm_readv costs under 3 memcpys "   \
             "here (timed once)")                                                               \
  FTMPI_KNOB(shm_direct_min, "FTMPI_SHM_DIRECT_MIN", size, "16K", 0, 1.0 * (1ull << 62), "",   \
             "transport",                                                                       \
             "message bytes from which every shm send, not only half of an exchange, follows "  \
             "FTMPI_SHM_SINGLE_COPY; 0: only exchanges do")                                     \
  FTMPI_KNOB(shm_ring, "FTMPI_SHM_RING", flag, "1", 0, 0, "", "transport",                      \
             "1: each sender claims a private ring in its receiver's region; 0: every sender "  \
             "uses the receiver's one shared ring (under a lock)")                              \
  FTMPI_KNOB(shm_rings, "FTMPI_SHM_RINGS", integer, "128", 1, 65536, "", "transport",           \
             "private rings per receiving process = how many different senders it can have "   \
             "over the job (later ones use the shared ring)")                                              \
  FTMPI_KNOB(shm_ring_kb, "FTMPI_SHM_RING_KB", integer, "64", 32, 1048576, "", "transport",     \
             "size of one ring in KiB, a power of two; a full ring makes the sender queue in "  \
             "order")                                                                           \
  FTMPI_KNOB(shm_bulk_kb, "FTMPI_SHM_BULK_KB", integer, "512", 0, 1048576, "", "transport",     \
             "size of a bulk slot in KiB: larger shm messages up to this are staged by the "    \
             "sender and copied out by the receiver; 0: no slots")                              \
  FTMPI_KNOB(shm_bulk_slots, "FTMPI_SHM_BULK_SLOTS", integer, "4", 0, 1024, "", "transport",    \
             "bulk slots per process (reserved in /dev/shm at start, slots x size); 0: none")   \
  FTMPI_KNOB(vendor_backtrace, "FTMPI_VENDOR_BACKTRACE", choice, "0", 0, 0, "0|1", "library",  \
             "1: load the system's libfabric.so.1 with its vendor libraries (InfiniPath/PSM) "  \
             "even for tcp, and let them install their signal handlers, which hide how a rank " \
             "died; 0: ftmpid and the library keep them out, and tcp loads the trimmed "        \
             "libftmpi_fabric_tcp.so, which has none")                                          \
  /* ---- several hosts: liveness between mpirun and the daemons ---- */                       \
  FTMPI_KNOB(heartbeat_period_ms, "FTMPI_HEARTBEAT_PERIOD_MS", integer, "100", 1, 3600000, "",  \
             "mpirun",                                                                          \
             "milliseconds between heartbeats on a link to a remote daemon that sent nothing "  \
             "else (mpirun --heartbeat-period wins)")                                           \
  FTMPI_KNOB(heartbeat_timeout_ms, "FTMPI_HEARTBEAT_TIMEOUT_MS", integer, "1000", 2, 3600000,   \
             "", "mpirun",                                                                      \
             "milliseconds of silence after which mpirun declares a host failed and a daemon "  \
             "fences itself off (kills its ranks, exits); at least twice the period (mpirun "   \
             "--heartbeat-timeout wins)")                                                       \
  /* ---- daemon, mpirun, tools ---- */                                                         \
  FTMPI_KNOB(daemon_socket, "FTMPI_DAEMON_SOCKET", text, "", 0, 0, "", "mpirun",                \
             "control socket of a shared daemon to use instead of a private one (default "      \
             "${TMPDIR:-/tmp}/ftmpi-$UID/ftmpid.sock)")                                                    \
  FTMPI_KNOB(spares, "FTMPI_SPARES", integer, "0", 0, 1024, "", "mpirun",                      \
             "hot spares per job: processes that wait inside MPI_Init, outside "                 \
             "MPI_COMM_WORLD, and take a failed rank at a REBUILD repair (mpirun --spares wins)") \
  FTMPI_KNOB(daemon_log, "FTMPI_DAEMON_LOG", text, "", 0, 0, "", "mpirun",                      \
             "file where a private daemon started by mpirun logs verbosely (default: quiet)")   \
  FTMPI_KNOB(launcher_exec, "FTMPI_LAUNCHER_EXEC", text, "", 0, 0, "", "mpirun",              \
             "program run as PATH HOST WORDS... (like ssh) to start a daemon on a remote host " \
             "(mpirun --launcher-exec wins)")                                                   \
  FTMPI_KNOB(iface, "FTMPI_IFACE", text, "", 0, 0, "", "mpirun",                                \
             "interface name or IPv4 CIDR whose address remote daemons connect back to "        \
             "(default: the route to the first remote host; mpirun --iface wins)")              \
  FTMPI_KNOB(bind, "FTMPI_BIND", choice, "auto", 0, 0, "auto|core|none", "mpirun",             \
             "auto: each process on a core of its own while a host's processes of the job fit " \
             "on its cores, unbound when oversubscribed; core: always (least loaded core); "    \
             "none: never (mpirun --bind-to wins; a shared ftmpid with none never binds)")      \
  FTMPI_KNOB(report_bindings, "FTMPI_REPORT_BINDINGS", flag, "0", 0, 0, "", "mpirun",          \
             "1: one line per process on stderr saying where it is bound (mpirun "             \
             "--report-bindings)")                                                              \
  /* ---- set by ftmpid in each rank ---- */                                                    \
  FTMPI_KNOB(jobid, "FTMPI_JOBID", text, "", 0, 0, "", "internal",                              \
             "the job's id (its PMIx namespace)")                                               \
  FTMPI_KNOB(nprocs, "FTMPI_NPROCS", integer, "", 1, 1e9, "", "internal",                       \
             "the job's size")                                                                  \
  FTMPI_KNOB(rank, "FTMPI_RANK", integer, "", 0, 1e9, "", "internal", "this process's rank")    \
  FTMPI_KNOB(local_rank, "FTMPI_LOCAL_RANK", integer, "", 0, 1e9, "", "internal",               \
             "this process's rank among the job's processes on its host")                      \
  FTMPI_KNOB(monitor_socket, "FTMPI_MONITOR_SOCKET", text, "", 0, 0, "", "internal",            \
             "datagram socket where the library reports communicators to its daemon (cominfo)") \
  FTMPI_KNOB(event_seal, "FTMPI_EVENT_SEAL", text, "", 0, 0, "", "internal",                   \
             "the job's random secret: failure events that do not carry it are ignored")        \
  FTMPI_KNOB(nhosts, "FTMPI_NHOSTS", integer, "1", 1, 1e6, "", "internal",                      \
             "hosts the job spans; above 1 the transport opens libfabric (tcp;ofi_rxm) for "    \
             "peers on other hosts beside shm for this host's")                                 \
  FTMPI_KNOB(net_addr, "FTMPI_NET_ADDR", text, "", 0, 0, "", "internal",                        \
             "IPv4 address of this host on the job's network (the local end of its daemon's "   \
             "connection to mpirun): the libfabric endpoint binds to it, never to loopback")    \
  FTMPI_KNOB(rebuild_plan, "FTMPI_REBUILD_PLAN", text, "", 0, 0, "", "internal",                \
             "a REBUILD replacement's place in the repaired world, set for the processes "      \
             "ftmpid starts as replacements")                                                   \
  FTMPI_KNOB(spare_fd, "FTMPI_SPARE_FD", integer, "", 3, 1023, "", "internal",                 \
             "set by ftmpid for a hot spare: MPI_Init blocks reading this descriptor until the " \
             "daemon hands the spare a failed rank (REBUILD) or closes it (job end)")          \
  /* ---- test hooks ---- */                                                                    \
  FTMPI_KNOB(test_delay_failure_events_ms, "FTMPI_TEST_DELAY_FAILURE_EVENTS_MS", integer, "0",  \
             0, 3600000, "", "test",                                                            \
             "tests only: hold the daemon's failure reports back this long (ft.suspect.*)")     \
  FTMPI_KNOB(test_agreement_seq_start, "FTMPI_TEST_AGREEMENT_SEQ_START", integer, "0", 0,       \
             4294967295.0, "", "test",                                                          \
             "tests only: first agreement number of every communicator (ft.memory.wrap)")     \
  FTMPI_KNOB(test_daemon_stall, "FTMPI_TEST_DAEMON_STALL", flag, "0", 0, 0, "", "test",         \
             "tests only: ftmpid stops running its event loop (a deadlocked daemon)")
