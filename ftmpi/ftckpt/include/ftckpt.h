/* ftckpt: coordinated in-memory checkpoints for ftmpi (SPEC section 7).
 *
 * Every process keeps its own checkpoint in memory (level 1) and DF copies in the memory of
 * other processes, placed by the Bondarenko-Yakobovsky formula (level 2)
 *     receiver(i, j, k) = (i + j * DF^(k mod SD) + k mod SD) mod N,   j = 1..DF,
 * for the last SD saves, optional XOR parity groups (level 3) and optional files every n-th
 * save (level 4). After the application repaired its communicator, FTCKPT_Recover finds the
 * newest iteration the failed processes can be rebuilt from, and the lowest level that can
 * serve it, from the failure topology alone (RLFFN for the copies), and rolls everybody back
 * to it: with REBUILD each replacement process gets the state of the rank it took; with
 * SHRINK or BLANK FTCKPT_Fetch hands any process's protected data of that iteration to
 * whoever needs it.
 *
 * Usage (all calls collective over the communicator given to FTCKPT_Init unless noted):
 *
 *   FTCKPT_Config cfg; FTCKPT_Config_default(&cfg); cfg.df = 2; cfg.sd = 2;
 *   FTCKPT_Init(MPI_COMM_WORLD, &cfg);
 *   FTCKPT_Protect(0, field, n, MPI_DOUBLE);            // local, no communication
 *   for (...) {
 *     rc = compute_step();                              // any MPI call may see a failure
 *     if (rc == MPI_SUCCESS && time_to_save) rc = FTCKPT_Save();
 *     if (rc != MPI_SUCCESS) {                          // a process died
 *       MPI_Comm tmp; MPI_Comm_dup(MPI_COMM_WORLD, &tmp); MPI_Comm_free(&tmp);  // repair
 *       FTCKPT_Recover(&k);                             // roll back to save k
 *       FTCKPT_Recovery_info(...); FTCKPT_Fetch(...);   // SHRINK: take over lost rows
 *     }
 *   }
 *   FTCKPT_Finalize();
 *
 * REBUILD (mpirun --comm-mode rebuild; FTCKPT_Init must have been given MPI_COMM_WORLD): the
 * survivors do the same as above (no Fetch needed: the ranks do not change). A replacement
 * starts from main and runs the same start-up code, then the survivors' repair and Recover:
 *
 *   MPI_Init(...);                                      // returns with WORLD repaired
 *   FTCKPT_Init(MPI_COMM_WORLD, &cfg);                  // same config; local for a replacement
 *   FTCKPT_Protect(0, field, n, MPI_DOUBLE);            // same ids and sizes as its predecessor
 *   FTMPI_Init_state(&st);
 *   if (st == FTMPI_INIT_RESTARTED) {
 *     MPI_Comm tmp; MPI_Comm_dup(MPI_COMM_WORLD, &tmp); MPI_Comm_free(&tmp);  // the survivors' call
 *     FTCKPT_Recover(&k);                               // field now holds its rank's save k
 *   }
 *
 * Its Recover makes exactly the collective calls the survivors' Recover makes; the survivors
 * tell it the iteration, the counters and the level, and the survivor that holds its rank's
 * copy (or rebuilt it from parity) sends it the image; at level 4 it reads the file. If
 * Recover fails because another process died meanwhile, replacement and survivors alike
 * repair again (MPI_Comm_dup) and call Recover again. The next FTCKPT_Save includes the
 * replacement like any member, so copies lost with the dead process exist again once it
 * completed.
 *
 * The library learns which processes failed by itself: it keeps the MPI_Group of the
 * communicator as it was at every save generation ("epoch") and translates it into the
 * repaired communicator, so the application passes no failure list. Recover must therefore
 * be called after the communicator given to FTCKPT_Init was repaired in place (MPI_Comm_dup
 * on it by every survivor); if another failure interrupts Recover or Fetch, repair again and
 * call Recover again - failures accumulate until the next save completes.
 *
 * Return values are MPI error codes, or the FTCKPT_ERR_* codes below (above
 * MPI_ERR_LASTCODE); FTCKPT_Error_string describes both. Messages explaining a refusal or an
 * unrecoverable failure are also printed on stderr by the lowest surviving rank. */
#ifndef FTCKPT_H
#define FTCKPT_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The chosen (N, DF, SD) tolerates fewer failures than required_tolerance (refused). */
#define FTCKPT_ERR_TOLERANCE (MPI_ERR_LASTCODE + 1)
/* No kept iteration can be rebuilt: every copy of some failed process is lost, in memory and
 * on disk. The application cannot continue from a checkpoint. */
#define FTCKPT_ERR_UNRECOVERABLE (MPI_ERR_LASTCODE + 2)
/* Recover was called before any save completed. */
#define FTCKPT_ERR_NO_CHECKPOINT (MPI_ERR_LASTCODE + 3)
/* Fetch asked for an id the process did not protect at the recovered iteration. */
#define FTCKPT_ERR_NOT_FOUND (MPI_ERR_LASTCODE + 4)
/* Call out of order: not initialised, Fetch before Recover, Save on a broken library
 * communicator (call Recover first). */
#define FTCKPT_ERR_STATE (MPI_ERR_LASTCODE + 5)

/* Where FTCKPT_Recover found the data (FTCKPT_Recovery_info). */
#define FTCKPT_LEVEL_NONE 0   /* nothing recovered yet */
#define FTCKPT_LEVEL_LOCAL 1  /* no process of that iteration was lost: own memory only */
#define FTCKPT_LEVEL_COPIES 2 /* lost processes' data from the placement copies */
#define FTCKPT_LEVEL_XOR 3    /* some lost process rebuilt from its XOR group's parity */
#define FTCKPT_LEVEL_FILES 4  /* from the files of level 4 */

typedef struct FTCKPT_Config {
  int df;                 /* duplication factor: copies per process and save (>= 1) */
  int sd;                 /* storage depth: saves kept (>= 1); SD+1 slots are allocated so
                             a save never overwrites an iteration recovery may need */
  int required_tolerance; /* simultaneous failures the job must survive (0: no requirement) */
  int refuse_if_low;      /* nonzero: FTCKPT_Init fails with FTCKPT_ERR_TOLERANCE when the
                             exact tolerance is below required_tolerance; zero: warn only */
  const char *l4_dir;     /* directory for level-4 files, visible to every process (NULL or
                             "": no files); the string is copied */
  int l4_every;           /* write files at every n-th save (save numbers divisible by n) */
  int verbose;            /* nonzero: the lowest rank reports tolerance, recoveries, memory */
  int l3_group;           /* level 3: XOR groups of this many consecutive ranks (>= 2), each
                             member keeping 1/(g-1) of an image as parity, so any one loss
                             per group is rebuilt even when its copies are lost too;
                             0: off. Added after 0.1.0, at the end, so older callers that
                             fill the struct through FTCKPT_Config_default keep working */
} FTCKPT_Config;

/* Defaults: DF 2, SD 2, no requirement, warn only, no files, l4_every 10, quiet, no level 3.
 * Local. */
void FTCKPT_Config_default(FTCKPT_Config *cfg);

/* Duplicates comm for the library's own messages, validates the configuration and computes
 * with an exact search how many simultaneous failures (N, DF, SD) tolerates; warns or refuses
 * (FTCKPT_ERR_TOLERANCE) when that is below cfg->required_tolerance. Collective.
 * In a REBUILD replacement (FTMPI_Init_state gives FTMPI_INIT_RESTARTED; the first Init of
 * the process) it only records the configuration: no communication, and FTCKPT_Save is
 * refused (FTCKPT_ERR_STATE) until its FTCKPT_Recover succeeded. */
int FTCKPT_Init(MPI_Comm comm, const FTCKPT_Config *cfg);

/* Registers (or replaces, or with count 0 removes) region `id`: `count` elements of a
 * contiguous datatype at ptr. Saved by every later FTCKPT_Save. Local. */
int FTCKPT_Protect(int id, void *ptr, int count, MPI_Datatype type);

/* Coordinated save of every protected region as iteration k = (last saved or recovered) + 1:
 * local copy, DF copies sent to receiver(i, j, k) all at once, files when due, then one
 * agreement (allreduce) so the save counts only when every member completed it. On error
 * the iteration is discarded everywhere and the older ones are intact. Collective. */
int FTCKPT_Save(void);

/* After the communicator was repaired: finds the newest kept iteration every lost process can
 * be rebuilt from (memory copies via RLFFN, else files), restores this process's own regions
 * whose size did not change since that save - in a REBUILD replacement, those of the rank it
 * took, sent by a survivor - discards newer iterations and starts a new save generation on
 * the repaired communicator. *iteration receives the save number (0-based). Collective over
 * the survivors and the replacements. FTCKPT_ERR_UNRECOVERABLE (on every process) when
 * nothing can be rebuilt; FTCKPT_ERR_NO_CHECKPOINT when no save had completed (the library
 * then starts afresh, save numbers from 0); another MPI error when a process died
 * meanwhile (repair again and call again); MPI_ERR_ARG when the processes' configurations
 * differ. */
int FTCKPT_Recover(int *iteration);

/* Describes the last recovery: the communicator size when the recovered iteration was saved,
 * this process's rank then (a replacement: the rank whose state it got, -1 if none), for
 * each rank o of that time its rank now - a lost rank whose state went to a REBUILD
 * replacement: the replacement's rank - or -1 when it is lost (up to maxn entries), and the
 * level used. Any pointer may be NULL. Local. */
int FTCKPT_Recovery_info(int *old_size, int *old_rank, int maxn, int *new_rank_of_old,
                         int *level);

/* Region `id` of process old_rank (numbering of the recovered iteration) as it was at the
 * recovered iteration. Collective: every member calls it with the same old_rank and id;
 * members that do not need the data pass buf = NULL. The holder found by RLFFN (or old_rank
 * itself if it survived) sends it; with level 4 each reader reads the file. count*size of
 * type must equal the saved size (MPI_ERR_COUNT otherwise). */
int FTCKPT_Fetch(int old_rank, int id, void *buf, int count, MPI_Datatype type);

/* Simultaneous failures the current (N, DF, SD) tolerates (exact). Local. */
int FTCKPT_Tolerated(int *failures);

/* Hosts of the current communicator and how many of them may fail at once (each taking all
 * of its processes) with a consistent checkpoint surviving (exact). With several hosts no
 * copy is placed on its owner's host; with one host *tolerated_hosts is 0. Hosts are told
 * apart by MPI_Get_processor_name; after a FTCKPT_Recover the counts are the repaired
 * communicator's. Local. */
int FTCKPT_Tolerated_hosts(int *hosts, int *tolerated_hosts);

/* Bytes this process holds for checkpoints (own images and copies of others). Local. */
int FTCKPT_Memory_usage(long long *bytes);

/* Releases memory, the library communicator and this process's level-4 files. Collective. */
int FTCKPT_Finalize(void);

/* Text for an FTCKPT_ERR_* or MPI error code. */
const char *FTCKPT_Error_string(int code);

/* Testing hook: this process SIGKILLs itself in the middle of save number k, after its copies
 * were posted and before the save is agreed (k < 0 disarms). Local. */
int FTCKPT_Test_kill_in_save(int k);

/* Testing hook: this process SIGKILLs itself inside its next FTCKPT_Recover call, after the
 * REBUILD hand-off messages (a replacement's state) were posted and before they completed
 * (0 disarms). Local. */
int FTCKPT_Test_kill_in_recover(int arm);

/* Testing and benchmarking: how FTCKPT_Recover chooses the level. 0 (default): from the
 * failure topology, without communication. 1: the way seed 001 improves on - every candidate
 * (iteration, level), newest iteration and lowest level first, is validated with one
 * allreduce round ("does everybody have what it needs?") until one passes. Both choose the
 * same iteration and level. Must be the same on every member. Local. */
int FTCKPT_Test_level_search(int rounds);

/* Seconds the last FTCKPT_Recover spent choosing the level (after the communicator was
 * re-created, before any data moved) and the number of validation rounds it ran. Local. */
int FTCKPT_Test_last_selection(double *seconds, int *rounds);

/* Testing hook: this process names its host `name` instead of MPI_Get_processor_name's (NULL
 * or "" restores it), so tests on one machine can place copies as on several hosts. Call
 * before FTCKPT_Init, and before a REBUILD replacement's Init. Local. */
int FTCKPT_Test_host_name(const char *name);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* FTCKPT_H */
