/* The bad-input suite: every MPI_* and FTMPI_* function of mpi.h / ftmpi.h is called with each
 * kind of invalid argument that applies to it, under MPI_ERRORS_RETURN, and must return the
 * right error class (never crash or hang) with an MPI_Error_string text that says what was wrong
 * (the class text plus a detail; for rank, root, tag and count errors the detail names the bad
 * number). Then a user error handler must be called once, with the right communicator and code,
 * for representative errors; and calls before MPI_Init and after MPI_Finalize must fail cleanly.
 *
 * Rules that keep it deterministic and hang-free at any process count: every rank makes the same
 * calls with the same arguments; a collective is only given arguments every rank rejects before
 * communicating; arguments only the root looks at are tested on MPI_COMM_SELF, where every rank
 * is the root.
 *
 * Conventions of ftmpi this file pins (the standard leaves them open): a NULL pointer where a
 * request handle is read or written is MPI_ERR_REQUEST (the request argument is what is bad);
 * any other NULL pointer, negative block lengths, sizes and displacements, bad modes and bad
 * error handlers are MPI_ERR_ARG; a pack that overflows the output is MPI_ERR_TRUNCATE; a bad
 * dimension count or grid shape is MPI_ERR_DIMS; a call before MPI_Init or after MPI_Finalize
 * is MPI_ERR_OTHER.
 *
 * Functions with no invalid argument to give (listed in kNotApplicable below): MPI_Wtime and
 * MPI_Wtick take none; MPI_Abort ends the job whatever it is given. Everything else declared in
 * the headers is in kDeclared and must be exercised: the program fails if one is not. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* ---- bookkeeping -------------------------------------------------------------------------- */

static int rank = 0, size = 1, nchecks = 0, nfailed = 0, tag_ub = 0;

static const char *const kDeclared[] = {
    "MPI_Keyval_create", "MPI_Keyval_free", "MPI_Attr_put", "MPI_Attr_get", "MPI_Attr_delete",
    "MPI_Comm_create_keyval", "MPI_Comm_free_keyval", "MPI_Comm_set_attr", "MPI_Comm_get_attr",
    "MPI_Comm_delete_attr", "MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Initialized",
    "MPI_Finalized", "MPI_Abort", "MPI_Wtime", "MPI_Wtick", "MPI_Get_processor_name",
    "MPI_Get_version", "MPI_Query_thread", "MPI_Is_thread_main", "MPI_Error_class",
    "MPI_Error_string", "MPI_Comm_set_errhandler", "MPI_Comm_get_errhandler",
    "MPI_Errhandler_set", "MPI_Errhandler_get", "MPI_Comm_create_errhandler",
    "MPI_Errhandler_create", "MPI_Errhandler_free", "MPI_Comm_rank", "MPI_Comm_size",
    "MPI_Comm_dup", "MPI_Comm_split", "MPI_Comm_free", "MPI_Comm_group", "MPI_Comm_create",
    "MPI_Comm_compare", "MPI_Comm_set_name", "MPI_Comm_get_name", "MPI_Send", "MPI_Recv",
    "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Test", "MPI_Waitall", "MPI_Get_count",
    "MPI_Rsend", "MPI_Irsend", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Waitany",
    "MPI_Testany", "MPI_Waitsome", "MPI_Testsome", "MPI_Testall", "MPI_Request_free",
    "MPI_Cancel", "MPI_Test_cancelled", "MPI_Ssend", "MPI_Issend", "MPI_Buffer_attach",
    "MPI_Buffer_detach", "MPI_Bsend", "MPI_Ibsend", "MPI_Send_init", "MPI_Ssend_init",
    "MPI_Bsend_init", "MPI_Rsend_init", "MPI_Recv_init", "MPI_Start", "MPI_Startall",
    "MPI_Iprobe", "MPI_Probe", "MPI_Type_size", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce",
    "MPI_Allreduce", "MPI_Reduce_scatter", "MPI_Scan", "MPI_Gather", "MPI_Gatherv",
    "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Op_create", "MPI_Op_free", "MPI_Type_contiguous", "MPI_Type_vector",
    "MPI_Type_hvector", "MPI_Type_create_hvector", "MPI_Type_indexed",
    "MPI_Type_create_indexed_block", "MPI_Type_hindexed", "MPI_Type_create_hindexed",
    "MPI_Type_struct", "MPI_Type_create_struct", "MPI_Type_create_resized", "MPI_Type_dup",
    "MPI_Type_commit", "MPI_Type_free", "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub",
    "MPI_Type_get_extent", "MPI_Type_get_true_extent", "MPI_Type_get_envelope",
    "MPI_Get_elements", "MPI_Address", "MPI_Get_address", "MPI_Pack", "MPI_Unpack",
    "MPI_Pack_size", "MPI_Group_size", "MPI_Group_rank", "MPI_Group_translate_ranks",
    "MPI_Group_compare", "MPI_Group_union", "MPI_Group_intersection", "MPI_Group_difference",
    "MPI_Group_incl", "MPI_Group_excl", "MPI_Group_range_incl", "MPI_Group_range_excl",
    "MPI_Group_free", "MPI_Dims_create", "MPI_Cart_create", "MPI_Cart_get", "MPI_Cartdim_get",
    "MPI_Cart_rank", "MPI_Cart_coords", "MPI_Cart_shift", "MPI_Cart_sub", "MPI_Cart_map",
    "MPI_Graph_create", "MPI_Graph_get", "MPI_Graphdims_get", "MPI_Graph_neighbors_count",
    "MPI_Graph_neighbors", "MPI_Graph_map", "MPI_Topo_test", "MPI_Comm_test_inter",
    "MPI_Comm_remote_size", "MPI_Comm_remote_group", "MPI_Intercomm_create",
    "MPI_Intercomm_merge", "FTMPI_Init_state", "FTMPI_Comm_set_mode", "FTMPI_Comm_get_mode",
    "FTMPI_Comm_set_coll_mode", "FTMPI_Comm_get_coll_mode", "FTMPI_Comm_state",
    "FTMPI_Comm_proc_state", "FTMPI_Comm_failed_ranks", "FTMPI_Comm_valid_size",
};
static const char *const kNotApplicable[] = {"MPI_Wtime", "MPI_Wtick", "MPI_Abort"};
#define NDECLARED ((int)(sizeof kDeclared / sizeof kDeclared[0]))
#define NNA ((int)(sizeof kNotApplicable / sizeof kNotApplicable[0]))
static int exercised[NDECLARED];

/* Marks the function a check's call text starts with. */
static void note_function(const char *call) {
  char name[64];
  size_t n = 0;
  while (call[n] != '\0' && call[n] != '(' && !isspace((unsigned char)call[n]) &&
         n + 1 < sizeof name) {
    name[n] = call[n];
    ++n;
  }
  name[n] = '\0';
  for (int i = 0; i < NDECLARED; ++i) {
    if (strcmp(kDeclared[i], name) == 0) exercised[i] = 1;
  }
}

static const char *class_name(int cls) {
  static const char *const names[] = {
      "MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
      "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_REQUEST", "MPI_ERR_ROOT", "MPI_ERR_GROUP",
      "MPI_ERR_OP", "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN",
      "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN", "MPI_ERR_IN_STATUS",
      "MPI_ERR_PENDING", "MPI_ERR_KEYVAL", "MPI_ERR_NO_MEM"};
  if (cls >= 0 && cls < (int)(sizeof names / sizeof names[0])) return names[cls];
  return "(not an error class)";
}

static void report(int line, const char *call, const char *what) {
  fprintf(stderr, "rank %d: bad_input.c:%d: FAIL: %s: %s\n", rank, line, call, what);
  nfailed++;
}

/* n appears in s as a whole number (not as part of a longer one). */
static int mentions(const char *s, long long n) {
  char num[32];
  snprintf(num, sizeof num, "%lld", n);
  size_t k = strlen(num);
  for (const char *p = strstr(s, num); p != NULL; p = strstr(p + 1, num)) {
    int starts = p == s || !(isdigit((unsigned char)p[-1]) || (n >= 0 && p[-1] == '-'));
    if (starts && !isdigit((unsigned char)p[k])) return 1;
  }
  return 0;
}

/* The heart of the suite: rc must be of class `want`; its text must be the class text followed
 * by a detail, and (when has_n) the detail must name n. */
static void check_error(int rc, int want, int has_n, long long n, const char *call, int line) {
  char msg[2 * MPI_MAX_ERROR_STRING + 64];
  nchecks++;
  note_function(call);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = -1;
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  text[0] = '\0';
  if (rc != MPI_SUCCESS && MPI_Error_string(rc, text, &len) != MPI_SUCCESS) {
    report(line, call, "MPI_Error_string refused the code");
    return;
  }
  if (cls != want) {
    snprintf(msg, sizeof msg, "returned %s (code %d, \"%s\"), expected %s", class_name(cls), rc,
             text, class_name(want));
    report(line, call, msg);
    return;
  }
  char base[MPI_MAX_ERROR_STRING];
  int blen = 0;
  MPI_Error_string(want, base, &blen);
  if (len <= 0 || (int)strlen(text) != len) {
    snprintf(msg, sizeof msg, "error string is empty or its length %d is wrong", len);
    report(line, call, msg);
  } else if (strncmp(text, base, (size_t)blen) != 0 || len <= blen + 2) {
    snprintf(msg, sizeof msg, "error string \"%s\" does not say what was wrong", text);
    report(line, call, msg);
  } else if (has_n && !mentions(text + blen, n)) {
    snprintf(msg, sizeof msg, "error string \"%s\" does not mention %lld", text, n);
    report(line, call, msg);
  }
}

static void check_true(int cond, const char *what, int line) {
  if (!cond) report(line, what, "is false");
}

/* A call that sets the scene; it must succeed (not counted as a check). */
static void setup(int rc, const char *call, int line) {
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, text, &len);
    report(line, call, text);
  }
}

#define EXPECT(call, cls) check_error((call), (cls), 0, 0, #call, __LINE__)
#define EXPECT_N(call, cls, n) check_error((call), (cls), 1, (n), #call, __LINE__)
#define SETUP(call) setup((call), #call, __LINE__)
#define TRUE(cond) check_true((cond), #cond, __LINE__)

/* Handles that are not valid objects of their kind. */
#define BADC ((MPI_Comm)12345)
#define BADT ((MPI_Datatype)12345)
#define BADG ((MPI_Group)12345)
#define BADO ((MPI_Op)12345)
#define BADK 12345
#define BADEH ((MPI_Errhandler)55)

static int v[64], w[64];
static MPI_Datatype uncommitted; /* a derived type never committed */

static int noop_copy(MPI_Comm c, int k, void *x, void *in, void *out, int *flag) {
  (void)c, (void)k, (void)x, (void)in, (void)out;
  *flag = 0;
  return MPI_SUCCESS;
}
static int noop_delete(MPI_Comm c, int k, void *val, void *x) {
  (void)c, (void)k, (void)val, (void)x;
  return MPI_SUCCESS;
}
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *t) {
  (void)t;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}
static void ignore_errors(MPI_Comm *c, int *code, ...) { (void)c, (void)code; }

/* ---- before MPI_Init ---------------------------------------------------------------------- */

static void before_init(void) {
  int x = 0, flag = -1;
  MPI_Comm c;
  MPI_Request r = (MPI_Request)777;
  SETUP(MPI_Initialized(&flag));
  TRUE(flag == 0);
  EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &x), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_size(MPI_COMM_WORLD, &x), MPI_ERR_OTHER);
  EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
  EXPECT(MPI_Recv(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
  EXPECT(MPI_Iprobe(0, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
  EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
  EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
  EXPECT(MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &r, &flag), MPI_ERR_OTHER);
  EXPECT(MPI_Buffer_attach(v, 64), MPI_ERR_OTHER);
  EXPECT(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &x), MPI_ERR_OTHER);
  int pos = 0;
  EXPECT(MPI_Pack(v, 1, MPI_INT, w, 64, &pos, MPI_COMM_WORLD), MPI_ERR_OTHER);
  int dims[1] = {1}, periods[1] = {0};
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c), MPI_ERR_OTHER);
  EXPECT(FTMPI_Comm_state(MPI_COMM_WORLD, &x), MPI_ERR_OTHER);
  EXPECT(MPI_Finalize(), MPI_ERR_OTHER);
}

/* ---- environment and error handling ------------------------------------------------------- */

static void environment(int *argc, char ***argv) {
  int x, y, len, cls, provided = -1, before = -1, after = -1;
  char s[MPI_MAX_ERROR_STRING], name[MPI_MAX_PROCESSOR_NAME];
  MPI_Errhandler eh;
  EXPECT(MPI_Init(argc, argv), MPI_ERR_OTHER);
  SETUP(MPI_Query_thread(&before));
  EXPECT(MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided), MPI_ERR_OTHER);
  SETUP(MPI_Query_thread(&after));
  TRUE(after == before); /* a refused MPI_Init_thread changes nothing */
  EXPECT(MPI_Initialized(NULL), MPI_ERR_ARG);
  EXPECT(MPI_Finalized(NULL), MPI_ERR_ARG);
  EXPECT(MPI_Get_processor_name(NULL, &len), MPI_ERR_ARG);
  EXPECT(MPI_Get_processor_name(name, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Get_version(NULL, &y), MPI_ERR_ARG);
  EXPECT(MPI_Get_version(&x, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Query_thread(NULL), MPI_ERR_ARG);
  EXPECT(MPI_Is_thread_main(NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Init_state(NULL), MPI_ERR_ARG);

  EXPECT(MPI_Error_class(MPI_ERR_RANK, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Error_class(-1, &cls), MPI_ERR_ARG, -1);
  EXPECT_N(MPI_Error_class(MPI_ERR_LASTCODE, &cls), MPI_ERR_ARG, MPI_ERR_LASTCODE);
  /* class 3 with a detail slot that was never handed out */
  EXPECT_N(MPI_Error_class(64 * 100000 + 3, &cls), MPI_ERR_ARG, 64 * 100000 + 3);
  EXPECT(MPI_Error_string(MPI_ERR_RANK, NULL, &len), MPI_ERR_ARG);
  EXPECT(MPI_Error_string(MPI_ERR_RANK, s, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Error_string(-5, s, &len), MPI_ERR_ARG, -5);
  /* An old code keeps its class, and its text never shows a later error's detail. */
  int old = MPI_Send(v, 1, MPI_INT, size + 17, 0, MPI_COMM_WORLD);
  for (int i = 0; i < 300; ++i) (void)MPI_Send(v, 1, MPI_INT, -1000 - i, 0, MPI_COMM_WORLD);
  SETUP(MPI_Error_class(old, &cls));
  TRUE(cls == MPI_ERR_RANK);
  SETUP(MPI_Error_string(old, s, &len));
  TRUE(strstr(s, "MPI_ERR_RANK") == s && strstr(s, "rank -1") == NULL);

  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
  EXPECT(MPI_Comm_set_errhandler(BADC, MPI_ERRORS_RETURN), MPI_ERR_COMM);
  EXPECT_N(MPI_Comm_set_errhandler(MPI_COMM_WORLD, BADEH), MPI_ERR_ARG, BADEH);
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRHANDLER_NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_SELF, -3), MPI_ERR_ARG);
  EXPECT(MPI_Comm_get_errhandler(MPI_COMM_NULL, &eh), MPI_ERR_COMM);
  EXPECT(MPI_Comm_get_errhandler(BADC, &eh), MPI_ERR_COMM);
  EXPECT(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Errhandler_set(MPI_COMM_NULL, MPI_ERRORS_RETURN), MPI_ERR_COMM);
  EXPECT(MPI_Errhandler_set(MPI_COMM_WORLD, BADEH), MPI_ERR_ARG);
  EXPECT(MPI_Errhandler_get(BADC, &eh), MPI_ERR_COMM);
  EXPECT(MPI_Errhandler_get(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG);
  EXPECT(MPI_Comm_create_errhandler(ignore_errors, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Errhandler_create(NULL, &eh), MPI_ERR_ARG);
  EXPECT(MPI_Errhandler_create(ignore_errors, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Errhandler_free(NULL), MPI_ERR_ARG);
  eh = BADEH;
  EXPECT(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
  eh = MPI_ERRHANDLER_NULL;
  EXPECT(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
  MPI_Errhandler still;
  SETUP(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &still));
  TRUE(still == MPI_ERRORS_RETURN); /* the refused calls left it alone */
}

/* ---- communicators ------------------------------------------------------------------------ */

static void communicators(void) {
  int x, len;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm c = MPI_COMM_NULL, cw, stale;
  MPI_Group g, wg;
  EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_rank(BADC, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_rank(-4, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_size(BADC, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_size(MPI_COMM_SELF, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM);
  EXPECT(MPI_Comm_dup(BADC, &c), MPI_ERR_COMM);
  EXPECT(MPI_Comm_dup(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c), MPI_ERR_COMM);
  EXPECT(MPI_Comm_split(BADC, 0, 0, &c), MPI_ERR_COMM);
  EXPECT_N(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c), MPI_ERR_ARG, -5);
  EXPECT(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_free(NULL), MPI_ERR_ARG);
  c = MPI_COMM_NULL;
  EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
  c = BADC;
  EXPECT(MPI_Comm_free(&c), MPI_ERR_COMM);
  cw = MPI_COMM_WORLD;
  EXPECT(MPI_Comm_free(&cw), MPI_ERR_COMM);
  TRUE(cw == MPI_COMM_WORLD);
  cw = MPI_COMM_SELF;
  EXPECT(MPI_Comm_free(&cw), MPI_ERR_COMM);
  /* a freed communicator's handle */
  SETUP(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  stale = c;
  SETUP(MPI_Comm_free(&c));
  EXPECT(MPI_Comm_free(&stale), MPI_ERR_COMM);
  EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, stale), MPI_ERR_COMM);
  EXPECT(MPI_Barrier(stale), MPI_ERR_COMM);

  EXPECT(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM);
  EXPECT(MPI_Comm_group(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  SETUP(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  EXPECT(MPI_Comm_create(MPI_COMM_NULL, wg, &c), MPI_ERR_COMM);
  EXPECT(MPI_Comm_create(BADC, wg, &c), MPI_ERR_COMM);
  EXPECT(MPI_Comm_create(MPI_COMM_WORLD, BADG, &c), MPI_ERR_GROUP);
  EXPECT(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &c), MPI_ERR_GROUP);
  EXPECT(MPI_Comm_create(MPI_COMM_WORLD, wg, NULL), MPI_ERR_ARG);
  /* a group with processes outside the communicator (needs a second process) */
  if (size > 1) EXPECT(MPI_Comm_create(MPI_COMM_SELF, wg, &c), MPI_ERR_GROUP);
  SETUP(MPI_Group_free(&wg));
  EXPECT(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, BADC, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
  EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_get_name(BADC, name, &len), MPI_ERR_COMM);
  EXPECT(MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &len), MPI_ERR_ARG);
  EXPECT(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), MPI_ERR_ARG);
}

/* ---- attributes --------------------------------------------------------------------------- */

static void attributes(void) {
  int k, stale, flag;
  void *val;
  EXPECT(MPI_Comm_create_keyval(noop_copy, noop_delete, NULL, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Keyval_create(noop_copy, noop_delete, NULL, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG);
  EXPECT(MPI_Keyval_free(NULL), MPI_ERR_ARG);
  k = BADK;
  EXPECT_N(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL, BADK);
  k = MPI_TAG_UB;
  EXPECT(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL);
  k = MPI_KEYVAL_INVALID;
  EXPECT(MPI_Keyval_free(&k), MPI_ERR_KEYVAL);
  SETUP(MPI_Comm_create_keyval(noop_copy, noop_delete, &k, NULL));
  stale = k;
  SETUP(MPI_Comm_free_keyval(&k));
  TRUE(k == MPI_KEYVAL_INVALID);
  EXPECT(MPI_Keyval_free(&stale), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, stale, v), MPI_ERR_KEYVAL);

  EXPECT(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, v), MPI_ERR_COMM);
  EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, BADK, v), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, v), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, v), MPI_ERR_KEYVAL);
  EXPECT(MPI_Attr_put(BADC, MPI_TAG_UB, v), MPI_ERR_COMM);
  EXPECT(MPI_Attr_put(MPI_COMM_WORLD, BADK, v), MPI_ERR_KEYVAL);
  EXPECT(MPI_Attr_put(MPI_COMM_SELF, FTMPI_COMM_STATE, v), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_NULL, MPI_TAG_UB, &val, &flag), MPI_ERR_COMM);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, BADK, &val, &flag), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &val, &flag), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG);
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Attr_get(BADC, MPI_TAG_UB, &val, &flag), MPI_ERR_COMM);
  EXPECT(MPI_Attr_get(MPI_COMM_WORLD, BADK, &val, &flag), MPI_ERR_KEYVAL);
  EXPECT(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &val, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_delete_attr(MPI_COMM_NULL, MPI_TAG_UB), MPI_ERR_COMM);
  EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, BADK), MPI_ERR_KEYVAL);
  EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
  EXPECT(MPI_Attr_delete(BADC, MPI_TAG_UB), MPI_ERR_COMM);
  EXPECT(MPI_Attr_delete(MPI_COMM_WORLD, BADK), MPI_ERR_KEYVAL);
}

/* ---- point-to-point ----------------------------------------------------------------------- */

static MPI_Request req;
#define NO_REQ
#define REQ_ARG , &req
#define NO_STATUS , MPI_STATUS_IGNORE

/* The arguments every send checks. F is a send-like call; TAIL is what follows the
 * communicator (nothing, or the request). */
#define SEND_CHECKS(F, TAIL)                                                                   \
  do {                                                                                         \
    EXPECT_N(F(v, 1, MPI_INT, size + 17, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK, size + 17);    \
    EXPECT_N(F(v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK, -7);                  \
    EXPECT_N(F(v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK,           \
             MPI_ANY_SOURCE);                                                                  \
    EXPECT_N(F(v, 1, MPI_INT, size, 0, MPI_COMM_SELF TAIL), MPI_ERR_RANK, size);               \
    EXPECT_N(F(v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD TAIL), MPI_ERR_TAG, -5);                   \
    EXPECT(F(v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD TAIL), MPI_ERR_TAG);                \
    EXPECT_N(F(v, 1, MPI_INT, 0, tag_ub + 1, MPI_COMM_WORLD TAIL), MPI_ERR_TAG, tag_ub + 1);   \
    EXPECT_N(F(v, 1, MPI_INT, MPI_PROC_NULL, -5, MPI_COMM_WORLD TAIL), MPI_ERR_TAG, -5);       \
    EXPECT_N(F(v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_COUNT, -1);                 \
    EXPECT_N(F(v, -1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD TAIL), MPI_ERR_COUNT, -1);     \
    EXPECT(F(v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);               \
    EXPECT(F(v, 1, BADT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);                            \
    EXPECT(F(v, 1, uncommitted, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);                     \
    EXPECT(F(NULL, 2, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_BUFFER);                    \
    EXPECT(F(MPI_IN_PLACE, 2, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_BUFFER);            \
    EXPECT(F(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL TAIL), MPI_ERR_COMM);                          \
    EXPECT(F(v, 1, MPI_INT, 0, 0, BADC TAIL), MPI_ERR_COMM);                                   \
  } while (0)

#define RECV_CHECKS(F, TAIL)                                                                   \
  do {                                                                                         \
    EXPECT_N(F(w, 1, MPI_INT, size + 17, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK, size + 17);    \
    EXPECT_N(F(w, 1, MPI_INT, -7, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK, -7);                  \
    EXPECT_N(F(w, 1, MPI_INT, MPI_ROOT, 0, MPI_COMM_WORLD TAIL), MPI_ERR_RANK, MPI_ROOT);      \
    EXPECT_N(F(w, 1, MPI_INT, 1, 0, MPI_COMM_SELF TAIL), MPI_ERR_RANK, 1);                     \
    EXPECT_N(F(w, 1, MPI_INT, 0, -5, MPI_COMM_WORLD TAIL), MPI_ERR_TAG, -5);                   \
    EXPECT_N(F(w, 1, MPI_INT, 0, tag_ub + 1, MPI_COMM_WORLD TAIL), MPI_ERR_TAG, tag_ub + 1);   \
    EXPECT_N(F(w, 1, MPI_INT, MPI_ANY_SOURCE, INT_MIN, MPI_COMM_WORLD TAIL), MPI_ERR_TAG,      \
             INT_MIN);                                                                         \
    EXPECT_N(F(w, -1, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_COUNT, -1);                 \
    EXPECT(F(w, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);               \
    EXPECT(F(w, 1, BADT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);                            \
    EXPECT(F(w, 1, uncommitted, MPI_PROC_NULL, 0, MPI_COMM_WORLD TAIL), MPI_ERR_TYPE);         \
    EXPECT(F(NULL, 2, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_BUFFER);                    \
    EXPECT(F(MPI_IN_PLACE, 2, MPI_INT, 0, 0, MPI_COMM_WORLD TAIL), MPI_ERR_BUFFER);            \
    EXPECT(F(w, 1, MPI_INT, 0, 0, MPI_COMM_NULL TAIL), MPI_ERR_COMM);                          \
    EXPECT(F(w, 1, MPI_INT, 0, 0, BADC TAIL), MPI_ERR_COMM);                                   \
  } while (0)

static void point_to_point(void) {
  MPI_Status st;
  int flag;
  SEND_CHECKS(MPI_Send, NO_REQ);
  SEND_CHECKS(MPI_Rsend, NO_REQ);
  SEND_CHECKS(MPI_Ssend, NO_REQ);
  SEND_CHECKS(MPI_Bsend, NO_REQ);
  SEND_CHECKS(MPI_Isend, REQ_ARG);
  SEND_CHECKS(MPI_Irsend, REQ_ARG);
  SEND_CHECKS(MPI_Issend, REQ_ARG);
  SEND_CHECKS(MPI_Ibsend, REQ_ARG);
  SEND_CHECKS(MPI_Send_init, REQ_ARG);
  SEND_CHECKS(MPI_Ssend_init, REQ_ARG);
  SEND_CHECKS(MPI_Bsend_init, REQ_ARG);
  SEND_CHECKS(MPI_Rsend_init, REQ_ARG);
  RECV_CHECKS(MPI_Recv, NO_STATUS);
  RECV_CHECKS(MPI_Irecv, REQ_ARG);
  RECV_CHECKS(MPI_Recv_init, REQ_ARG);
  EXPECT(MPI_Isend(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Irsend(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Issend(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Ibsend(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Irecv(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Send_init(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Ssend_init(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Bsend_init(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Rsend_init(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  EXPECT(MPI_Recv_init(w, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);

  /* Sendrecv: a bad send half must not leave the (valid) receive half posted, and the reverse;
   * the receives name this process itself so a leftover one would wait forever. */
  EXPECT_N(MPI_Sendrecv(v, 1, MPI_INT, size + 17, 0, w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Sendrecv(v, 1, MPI_INT, rank, -5, w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_TAG, -5);
  EXPECT_N(MPI_Sendrecv(v, -1, MPI_INT, rank, 0, w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_COUNT, -1);
  EXPECT(MPI_Sendrecv(v, 1, BADT, rank, 0, w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_TYPE);
  EXPECT(MPI_Sendrecv(NULL, 1, MPI_INT, rank, 0, w, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_BUFFER);
  EXPECT_N(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, w, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, w, 1, MPI_INT, rank, tag_ub + 1, MPI_COMM_WORLD,
                        &st), MPI_ERR_TAG, tag_ub + 1);
  EXPECT_N(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, w, -2, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_COUNT, -2);
  EXPECT(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, w, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD,
                      &st), MPI_ERR_TYPE);
  EXPECT(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_BUFFER);
  EXPECT(MPI_Sendrecv(v, 1, MPI_INT, 0, 0, w, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  EXPECT(MPI_Sendrecv(v, 1, MPI_INT, 0, 0, w, 1, MPI_INT, 0, 0, BADC, &st), MPI_ERR_COMM);
  EXPECT_N(MPI_Sendrecv_replace(w, 1, MPI_INT, size + 17, 0, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Sendrecv_replace(w, 1, MPI_INT, rank, MPI_ANY_TAG, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_TAG, MPI_ANY_TAG);
  EXPECT_N(MPI_Sendrecv_replace(w, 1, MPI_INT, rank, 0, size + 17, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Sendrecv_replace(w, 1, MPI_INT, rank, 0, rank, -5, MPI_COMM_WORLD, &st),
           MPI_ERR_TAG, -5);
  EXPECT_N(MPI_Sendrecv_replace(w, -1, MPI_INT, rank, 0, rank, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_COUNT, -1);
  EXPECT(MPI_Sendrecv_replace(w, 1, uncommitted, rank, 0, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_TYPE);
  EXPECT(MPI_Sendrecv_replace(NULL, 1, MPI_INT, rank, 0, rank, 0, MPI_COMM_WORLD, &st),
         MPI_ERR_BUFFER);
  EXPECT(MPI_Sendrecv_replace(w, 1, MPI_INT, 0, 0, 0, 0, BADC, &st), MPI_ERR_COMM);

  /* probes */
  EXPECT_N(MPI_Iprobe(size + 17, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Iprobe(-7, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Iprobe(0, -5, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG, -5);
  EXPECT_N(MPI_Iprobe(0, tag_ub + 1, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG, tag_ub + 1);
  EXPECT(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM);
  EXPECT(MPI_Iprobe(0, 0, BADC, &flag, &st), MPI_ERR_COMM);
  EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, NULL, &st), MPI_ERR_ARG);
  EXPECT_N(MPI_Probe(size + 17, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Probe(MPI_ROOT, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, MPI_ROOT);
  EXPECT_N(MPI_Probe(0, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG, -5);
  EXPECT(MPI_Probe(0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
  EXPECT(MPI_Probe(0, 0, BADC, &st), MPI_ERR_COMM);
}

/* ---- completion, persistent and buffered -------------------------------------------------- */

static void requests(void) {
  MPI_Request r, stale, reqs[3];
  MPI_Status st, sts[3];
  int flag, index, outcount, indices[3], count;
  EXPECT(MPI_Wait(NULL, &st), MPI_ERR_REQUEST);
  r = (MPI_Request)12345;
  EXPECT_N(MPI_Wait(&r, &st), MPI_ERR_REQUEST, 12345);
  r = -5;
  EXPECT_N(MPI_Wait(&r, &st), MPI_ERR_REQUEST, -5);
  EXPECT(MPI_Test(NULL, &flag, &st), MPI_ERR_REQUEST);
  r = (MPI_Request)12345;
  EXPECT_N(MPI_Test(&r, &flag, &st), MPI_ERR_REQUEST, 12345);
  r = MPI_REQUEST_NULL;
  EXPECT(MPI_Test(&r, NULL, &st), MPI_ERR_ARG);
  /* a completed request's handle */
  SETUP(MPI_Irecv(w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  stale = r;
  SETUP(MPI_Wait(&r, &st));
  TRUE(r == MPI_REQUEST_NULL);
  EXPECT(MPI_Wait(&stale, &st), MPI_ERR_REQUEST);
  EXPECT(MPI_Request_free(&stale), MPI_ERR_REQUEST);

  reqs[0] = MPI_REQUEST_NULL;
  reqs[1] = (MPI_Request)12345;
  reqs[2] = MPI_REQUEST_NULL;
  EXPECT_N(MPI_Waitall(-1, reqs, sts), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Waitall(2, NULL, sts), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Waitall(3, reqs, sts), MPI_ERR_REQUEST, 12345);
  EXPECT_N(MPI_Testall(-1, reqs, &flag, sts), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Testall(2, NULL, &flag, sts), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Testall(3, reqs, &flag, sts), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Testall(1, reqs, NULL, sts), MPI_ERR_ARG);
  EXPECT_N(MPI_Waitany(-1, reqs, &index, &st), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Waitany(2, NULL, &index, &st), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Waitany(3, reqs, &index, &st), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Waitany(1, reqs, NULL, &st), MPI_ERR_ARG);
  EXPECT_N(MPI_Testany(-1, reqs, &index, &flag, &st), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Testany(2, NULL, &index, &flag, &st), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Testany(3, reqs, &index, &flag, &st), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Testany(1, reqs, NULL, &flag, &st), MPI_ERR_ARG);
  EXPECT(MPI_Testany(1, reqs, &index, NULL, &st), MPI_ERR_ARG);
  EXPECT_N(MPI_Waitsome(-1, reqs, &outcount, indices, sts), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Waitsome(2, NULL, &outcount, indices, sts), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Waitsome(3, reqs, &outcount, indices, sts), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Waitsome(1, reqs, NULL, indices, sts), MPI_ERR_ARG);
  EXPECT(MPI_Waitsome(1, reqs, &outcount, NULL, sts), MPI_ERR_ARG);
  EXPECT_N(MPI_Testsome(-1, reqs, &outcount, indices, sts), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Testsome(2, NULL, &outcount, indices, sts), MPI_ERR_REQUEST);
  EXPECT_N(MPI_Testsome(3, reqs, &outcount, indices, sts), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Testsome(1, reqs, NULL, indices, sts), MPI_ERR_ARG);
  EXPECT(MPI_Testsome(1, reqs, &outcount, NULL, sts), MPI_ERR_ARG);

  /* the same live request twice in one array (pairwise and sorted checks) */
  MPI_Request many[20];
  SETUP(MPI_Irecv(w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  for (int i = 0; i < 20; ++i) many[i] = MPI_REQUEST_NULL;
  many[0] = many[2] = r;
  EXPECT_N(MPI_Waitall(3, many, sts), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Testall(3, many, &flag, sts), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Waitany(3, many, &index, &st), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Testany(3, many, &index, &flag, &st), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Waitsome(3, many, &outcount, indices, sts), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Testsome(3, many, &outcount, indices, sts), MPI_ERR_REQUEST, r);
  many[2] = MPI_REQUEST_NULL;
  many[19] = r;
  EXPECT_N(MPI_Waitall(20, many, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, r);
  EXPECT_N(MPI_Waitsome(20, many, &outcount, indices, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, r);
  SETUP(MPI_Wait(&r, &st)); /* still live: the refused calls completed nothing */

  EXPECT(MPI_Request_free(NULL), MPI_ERR_REQUEST);
  r = MPI_REQUEST_NULL;
  EXPECT(MPI_Request_free(&r), MPI_ERR_REQUEST);
  r = (MPI_Request)12345;
  EXPECT_N(MPI_Request_free(&r), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Cancel(NULL), MPI_ERR_REQUEST);
  r = MPI_REQUEST_NULL;
  EXPECT(MPI_Cancel(&r), MPI_ERR_REQUEST);
  r = (MPI_Request)12345;
  EXPECT_N(MPI_Cancel(&r), MPI_ERR_REQUEST, 12345);
  EXPECT(MPI_Test_cancelled(NULL, &flag), MPI_ERR_ARG);
  EXPECT(MPI_Test_cancelled(&st, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Get_count(NULL, MPI_INT, &count), MPI_ERR_ARG);
  EXPECT(MPI_Get_count(&st, MPI_DATATYPE_NULL, &count), MPI_ERR_TYPE);
  EXPECT(MPI_Get_count(&st, BADT, &count), MPI_ERR_TYPE);
  EXPECT(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);

  /* persistent requests */
  EXPECT(MPI_Start(NULL), MPI_ERR_REQUEST);
  r = MPI_REQUEST_NULL;
  EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
  r = (MPI_Request)12345;
  EXPECT_N(MPI_Start(&r), MPI_ERR_REQUEST, 12345);
  SETUP(MPI_Irecv(w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  EXPECT(MPI_Start(&r), MPI_ERR_REQUEST); /* not a persistent request */
  SETUP(MPI_Wait(&r, &st));
  SETUP(MPI_Recv_init(w, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &r));
  SETUP(MPI_Start(&r));
  EXPECT(MPI_Start(&r), MPI_ERR_REQUEST); /* already active */
  reqs[0] = r;
  EXPECT(MPI_Startall(1, reqs), MPI_ERR_REQUEST);
  /* Cancelling the active receive must complete it. If it does not, a message to itself does,
   * so that a broken cancel fails the check instead of hanging the program. */
  SETUP(MPI_Cancel(&r));
  flag = 0;
  for (double t0 = MPI_Wtime(); !flag && MPI_Wtime() - t0 < 5.0;) SETUP(MPI_Test(&r, &flag, &st));
  TRUE(flag == 1);
  if (!flag) {
    SETUP(MPI_Send(v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD));
    SETUP(MPI_Wait(&r, &st));
  }
  SETUP(MPI_Test_cancelled(&st, &flag));
  TRUE(flag == 1);
  SETUP(MPI_Request_free(&r));
  EXPECT_N(MPI_Startall(-1, reqs), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Startall(1, NULL), MPI_ERR_REQUEST);
  reqs[0] = (MPI_Request)12345;
  EXPECT_N(MPI_Startall(1, reqs), MPI_ERR_REQUEST, 12345);
  /* a refused MPI_Startall starts none of its requests */
  SETUP(MPI_Recv_init(w, 1, MPI_INT, rank, 4, MPI_COMM_WORLD, &reqs[0]));
  SETUP(MPI_Irecv(w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]));
  EXPECT_N(MPI_Startall(2, reqs), MPI_ERR_REQUEST, reqs[1]);
  SETUP(MPI_Wait(&reqs[1], &st));
  SETUP(MPI_Test(&reqs[0], &flag, &st));
  TRUE(flag == 1); /* inactive, so "complete" */
  SETUP(MPI_Request_free(&reqs[0]));

  /* buffered sends */
  static char bbuf[128 + MPI_BSEND_OVERHEAD]; /* too small for 64 ints */
  void *p;
  int bsize;
  EXPECT(MPI_Buffer_attach(NULL, 64), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Buffer_attach(bbuf, -1), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Buffer_detach(&p, &bsize), MPI_ERR_BUFFER); /* nothing attached */
  EXPECT(MPI_Bsend(v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  SETUP(MPI_Buffer_attach(bbuf, (int)sizeof bbuf));
  EXPECT(MPI_Buffer_attach(bbuf, (int)sizeof bbuf), MPI_ERR_BUFFER); /* already attached */
  EXPECT(MPI_Bsend(v, 64, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER); /* too big */
  EXPECT(MPI_Ibsend(v, 64, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER);
  EXPECT(MPI_Buffer_detach(NULL, &bsize), MPI_ERR_ARG);
  EXPECT(MPI_Buffer_detach(&p, NULL), MPI_ERR_ARG);
  SETUP(MPI_Buffer_detach(&p, &bsize));
  TRUE(p == bbuf);
}

/* ---- datatypes ---------------------------------------------------------------------------- */

static void datatypes(void) {
  MPI_Datatype t, stale;
  MPI_Aint a, b, disp[2] = {0, 8};
  int bl[2] = {1, 1}, negbl[2] = {1, -1}, idisp[2] = {0, 2}, x, ni, na, nd, comb;
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, nulltypes[2] = {MPI_INT, MPI_DATATYPE_NULL},
               badtypes[2] = {BADT, MPI_INT};
  MPI_Status st;
  EXPECT_N(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_contiguous(2, BADT, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_vector(-1, 1, 2, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Type_vector(2, -3, 2, MPI_INT, &t), MPI_ERR_ARG, -3);
  EXPECT(MPI_Type_vector(2, 1, 2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_vector(2, 1, 2, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Type_hvector(2, -3, 8, MPI_INT, &t), MPI_ERR_ARG, -3);
  EXPECT(MPI_Type_hvector(2, 1, 8, BADT, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_hvector(2, 1, 8, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_create_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Type_create_hvector(2, -3, 8, MPI_INT, &t), MPI_ERR_ARG, -3);
  EXPECT(MPI_Type_create_hvector(2, 1, 8, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_hvector(2, 1, 8, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_indexed(-1, bl, idisp, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_indexed(2, NULL, idisp, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_indexed(2, bl, NULL, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_indexed(2, negbl, idisp, MPI_INT, &t), MPI_ERR_ARG, -1);
  EXPECT(MPI_Type_indexed(2, bl, idisp, BADT, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_indexed(2, bl, idisp, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_create_indexed_block(-1, 1, idisp, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Type_create_indexed_block(2, -3, idisp, MPI_INT, &t), MPI_ERR_ARG, -3);
  EXPECT(MPI_Type_create_indexed_block(2, 1, NULL, MPI_INT, &t), MPI_ERR_ARG);
  /* checked before anything the size of count is allocated */
  EXPECT(MPI_Type_create_indexed_block(INT_MAX, 1, NULL, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_indexed_block(INT_MAX, 1, idisp, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_indexed_block(2, 1, idisp, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_indexed_block(2, 1, idisp, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_hindexed(-1, bl, disp, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_hindexed(2, NULL, disp, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_hindexed(2, bl, NULL, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_hindexed(2, negbl, disp, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_hindexed(2, bl, disp, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_hindexed(2, bl, disp, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_create_hindexed(-1, bl, disp, MPI_INT, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_create_hindexed(2, NULL, disp, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_hindexed(2, bl, NULL, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_hindexed(2, negbl, disp, MPI_INT, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_hindexed(2, bl, disp, BADT, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_struct(-1, bl, disp, types, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_struct(2, NULL, disp, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_struct(2, bl, NULL, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_struct(2, bl, disp, NULL, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_struct(2, negbl, disp, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_struct(2, bl, disp, nulltypes, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_struct(2, bl, disp, badtypes, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_struct(2, bl, disp, types, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Type_create_struct(-1, bl, disp, types, &t), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Type_create_struct(2, NULL, disp, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_struct(2, bl, NULL, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_struct(2, bl, disp, NULL, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_struct(2, negbl, disp, types, &t), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_struct(2, bl, disp, nulltypes, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_struct(2, bl, disp, badtypes, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_struct(2, bl, disp, types, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_create_resized(MPI_DATATYPE_NULL, 0, 8, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_resized(BADT, 0, 8, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_create_resized(MPI_INT, 0, 8, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_dup(MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_dup(MPI_INT, NULL), MPI_ERR_ARG);

  EXPECT(MPI_Type_commit(NULL), MPI_ERR_ARG);
  t = MPI_DATATYPE_NULL;
  EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
  t = BADT;
  EXPECT(MPI_Type_commit(&t), MPI_ERR_TYPE);
  EXPECT(MPI_Type_free(NULL), MPI_ERR_ARG);
  t = MPI_DATATYPE_NULL;
  EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
  t = MPI_INT;
  EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE); /* predefined */
  TRUE(t == MPI_INT);
  t = BADT;
  EXPECT(MPI_Type_free(&t), MPI_ERR_TYPE);
  /* a freed type's handle (checked before any other type is made: handles are reused) */
  SETUP(MPI_Type_contiguous(2, MPI_INT, &t));
  SETUP(MPI_Type_commit(&t));
  stale = t;
  SETUP(MPI_Type_free(&t));
  EXPECT(MPI_Type_free(&stale), MPI_ERR_TYPE);
  EXPECT(MPI_Type_size(stale, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Send(v, 1, stale, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);

  EXPECT(MPI_Type_size(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Type_size(BADT, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_extent(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE);
  EXPECT(MPI_Type_extent(MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_lb(BADT, &a), MPI_ERR_TYPE);
  EXPECT(MPI_Type_lb(MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_ub(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE);
  EXPECT(MPI_Type_ub(MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_extent(MPI_DATATYPE_NULL, &a, &b), MPI_ERR_TYPE);
  EXPECT(MPI_Type_get_extent(MPI_INT, NULL, &b), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_extent(MPI_INT, &a, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_true_extent(BADT, &a, &b), MPI_ERR_TYPE);
  EXPECT(MPI_Type_get_true_extent(MPI_INT, NULL, &b), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_true_extent(MPI_INT, &a, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_envelope(MPI_DATATYPE_NULL, &ni, &na, &nd, &comb), MPI_ERR_TYPE);
  EXPECT(MPI_Type_get_envelope(MPI_INT, NULL, &na, &nd, &comb), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_envelope(MPI_INT, &ni, NULL, &nd, &comb), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_envelope(MPI_INT, &ni, &na, NULL, &comb), MPI_ERR_ARG);
  EXPECT(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, NULL), MPI_ERR_ARG);
  SETUP(MPI_Recv(w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  EXPECT(MPI_Get_elements(NULL, MPI_INT, &x), MPI_ERR_ARG);
  EXPECT(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Get_elements(&st, uncommitted, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Get_count(&st, uncommitted, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Address(v, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Get_address(v, NULL), MPI_ERR_ARG);

  /* pack / unpack */
  char out[16];
  int pos = 0;
  EXPECT(MPI_Pack(v, 1, MPI_INT, out, 16, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT(MPI_Pack(v, 1, MPI_INT, out, 16, &pos, BADC), MPI_ERR_COMM);
  EXPECT_N(MPI_Pack(v, -1, MPI_INT, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Pack(v, 1, MPI_DATATYPE_NULL, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT(MPI_Pack(v, 1, uncommitted, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_N(MPI_Pack(v, 1, MPI_INT, out, -1, &pos, MPI_COMM_WORLD), MPI_ERR_ARG, -1);
  EXPECT(MPI_Pack(v, 1, MPI_INT, out, 16, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
  pos = 17;
  EXPECT_N(MPI_Pack(v, 1, MPI_INT, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_ARG, 17);
  pos = -1;
  EXPECT_N(MPI_Pack(v, 1, MPI_INT, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_ARG, -1);
  pos = 0;
  EXPECT(MPI_Pack(NULL, 1, MPI_INT, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(MPI_Pack(v, 1, MPI_INT, NULL, 16, &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(MPI_Pack(v, 5, MPI_INT, out, 16, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  TRUE(pos == 0);
  EXPECT(MPI_Unpack(out, 16, &pos, w, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_N(MPI_Unpack(out, 16, &pos, w, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Unpack(out, 16, &pos, w, 1, BADT, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT(MPI_Unpack(out, 16, &pos, w, 1, uncommitted, MPI_COMM_WORLD), MPI_ERR_TYPE);
  EXPECT_N(MPI_Unpack(out, -1, &pos, w, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG, -1);
  EXPECT(MPI_Unpack(out, 16, NULL, w, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
  pos = 20;
  EXPECT_N(MPI_Unpack(out, 16, &pos, w, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG, 20);
  pos = 0;
  EXPECT(MPI_Unpack(NULL, 16, &pos, w, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(MPI_Unpack(out, 16, &pos, NULL, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  EXPECT(MPI_Unpack(out, 16, &pos, w, 5, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  EXPECT(MPI_Pack_size(1, MPI_INT, MPI_COMM_NULL, &x), MPI_ERR_COMM);
  EXPECT_N(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &x), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &x), MPI_ERR_TYPE);
  EXPECT(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  /* sizes an int cannot hold: MPI_UNDEFINED from MPI_Type_size, an error from MPI_Pack_size */
  SETUP(MPI_Type_vector(INT_MAX, 1, 2, MPI_INT, &t));
  SETUP(MPI_Type_commit(&t));
  SETUP(MPI_Type_size(t, &x));
  TRUE(x == MPI_UNDEFINED);
  EXPECT_N(MPI_Pack_size(1, t, MPI_COMM_WORLD, &x), MPI_ERR_COUNT, 1);
  SETUP(MPI_Type_free(&t));
}

/* ---- groups ------------------------------------------------------------------------------- */

static void groups(void) {
  MPI_Group wg, g, stale;
  int x, r1[2] = {0, 0}, r2[2], bigr[1] = {size + 17}, negr[1] = {-7}, dup[2] = {0, 0};
  int range_ok[1][3] = {{0, 0, 1}}, range_zero[1][3] = {{0, 0, 0}};
  int range_big[1][3] = {{size + 17, size + 17, 1}}, range_neg[1][3] = {{-7, 0, 1}};
  int range_away[1][3] = {{1, 0, 1}}; /* a positive stride from 1 never reaches 0 */
  SETUP(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  EXPECT(MPI_Group_size(BADG, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_size(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_size(wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_rank(BADG, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_rank(MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_rank(wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_translate_ranks(BADG, 1, r1, wg, r2), MPI_ERR_GROUP);
  EXPECT(MPI_Group_translate_ranks(wg, 1, r1, MPI_GROUP_NULL, r2), MPI_ERR_GROUP);
  EXPECT_N(MPI_Group_translate_ranks(wg, -1, r1, wg, r2), MPI_ERR_ARG, -1);
  EXPECT(MPI_Group_translate_ranks(wg, 1, NULL, wg, r2), MPI_ERR_ARG);
  EXPECT(MPI_Group_translate_ranks(wg, 1, r1, wg, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Group_translate_ranks(wg, 1, bigr, wg, r2), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Group_translate_ranks(wg, 1, negr, wg, r2), MPI_ERR_RANK, -7);
  EXPECT(MPI_Group_compare(BADG, wg, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_compare(wg, MPI_GROUP_NULL, &x), MPI_ERR_GROUP);
  EXPECT(MPI_Group_compare(wg, wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_union(BADG, wg, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_union(wg, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_union(wg, wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_intersection(MPI_GROUP_NULL, wg, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_intersection(wg, BADG, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_intersection(wg, wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_difference(BADG, wg, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_difference(wg, MPI_GROUP_NULL, &g), MPI_ERR_GROUP);
  EXPECT(MPI_Group_difference(wg, wg, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_incl(BADG, 1, r1, &g), MPI_ERR_GROUP);
  EXPECT_N(MPI_Group_incl(wg, -1, r1, &g), MPI_ERR_ARG, -1);
  EXPECT_N(MPI_Group_incl(wg, size + 1, r1, &g), MPI_ERR_ARG, size + 1);
  EXPECT(MPI_Group_incl(wg, 1, NULL, &g), MPI_ERR_ARG);
  EXPECT_N(MPI_Group_incl(wg, 1, bigr, &g), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Group_incl(wg, 1, negr, &g), MPI_ERR_RANK, -7);
  if (size > 1) EXPECT(MPI_Group_incl(wg, 2, dup, &g), MPI_ERR_RANK); /* a rank twice */
  EXPECT(MPI_Group_incl(wg, 1, r1, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_excl(MPI_GROUP_NULL, 1, r1, &g), MPI_ERR_GROUP);
  EXPECT_N(MPI_Group_excl(wg, -1, r1, &g), MPI_ERR_ARG, -1);
  EXPECT(MPI_Group_excl(wg, 1, NULL, &g), MPI_ERR_ARG);
  EXPECT_N(MPI_Group_excl(wg, 1, bigr, &g), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Group_excl(wg, 1, negr, &g), MPI_ERR_RANK, -7);
  if (size > 1) EXPECT(MPI_Group_excl(wg, 2, dup, &g), MPI_ERR_RANK);
  EXPECT(MPI_Group_excl(wg, 1, r1, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_range_incl(BADG, 1, range_ok, &g), MPI_ERR_GROUP);
  EXPECT_N(MPI_Group_range_incl(wg, -1, range_ok, &g), MPI_ERR_ARG, -1);
  EXPECT(MPI_Group_range_incl(wg, 1, NULL, &g), MPI_ERR_ARG);
  EXPECT(MPI_Group_range_incl(wg, 1, range_zero, &g), MPI_ERR_ARG);
  EXPECT_N(MPI_Group_range_incl(wg, 1, range_big, &g), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Group_range_incl(wg, 1, range_neg, &g), MPI_ERR_RANK, -7);
  EXPECT(MPI_Group_range_incl(wg, 1, range_ok, NULL), MPI_ERR_ARG);
  if (size > 1) EXPECT(MPI_Group_range_incl(wg, 1, range_away, &g), MPI_ERR_ARG);
  EXPECT(MPI_Group_range_excl(MPI_GROUP_NULL, 1, range_ok, &g), MPI_ERR_GROUP);
  EXPECT_N(MPI_Group_range_excl(wg, -1, range_ok, &g), MPI_ERR_ARG, -1);
  EXPECT(MPI_Group_range_excl(wg, 1, NULL, &g), MPI_ERR_ARG);
  EXPECT(MPI_Group_range_excl(wg, 1, range_zero, &g), MPI_ERR_ARG);
  EXPECT_N(MPI_Group_range_excl(wg, 1, range_big, &g), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Group_range_excl(wg, 1, range_neg, &g), MPI_ERR_RANK, -7);
  EXPECT(MPI_Group_range_excl(wg, 1, range_ok, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Group_free(NULL), MPI_ERR_ARG);
  g = MPI_GROUP_NULL;
  EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP);
  g = BADG;
  EXPECT(MPI_Group_free(&g), MPI_ERR_GROUP);
  SETUP(MPI_Group_incl(wg, 1, r1, &g));
  stale = g;
  SETUP(MPI_Group_free(&g));
  EXPECT(MPI_Group_free(&stale), MPI_ERR_GROUP);
  EXPECT(MPI_Group_size(stale, &x), MPI_ERR_GROUP);
  SETUP(MPI_Group_free(&wg));
}

/* ---- collectives -------------------------------------------------------------------------- */

static void collectives(void) {
  MPI_Comm W = MPI_COMM_WORLD, S = MPI_COMM_SELF;
  int counts[64], negcounts[64], displs[64];
  MPI_Op op, stale;
  for (int i = 0; i < 64; ++i) counts[i] = 1, negcounts[i] = i == 0 ? -1 : 1, displs[i] = i;
  EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT(MPI_Barrier(BADC), MPI_ERR_COMM);

  EXPECT_N(MPI_Bcast(v, -1, MPI_INT, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Bcast(v, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE);
  EXPECT(MPI_Bcast(v, 1, uncommitted, 0, W), MPI_ERR_TYPE);
  EXPECT_N(MPI_Bcast(v, 1, MPI_INT, size, W), MPI_ERR_ROOT, size);
  EXPECT_N(MPI_Bcast(v, 1, MPI_INT, -1, W), MPI_ERR_ROOT, -1);
  EXPECT_N(MPI_Bcast(v, 1, MPI_INT, 1, S), MPI_ERR_ROOT, 1);
  EXPECT(MPI_Bcast(NULL, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Bcast(v, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);

  EXPECT_N(MPI_Reduce(v, w, -1, MPI_INT, MPI_SUM, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Reduce(v, w, 1, BADT, MPI_SUM, 0, W), MPI_ERR_TYPE);
  EXPECT(MPI_Reduce(v, w, 1, MPI_INT, MPI_OP_NULL, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_INT, BADO, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_INT, MPI_MAXLOC, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_2INT, MPI_SUM, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_FLOAT, MPI_BAND, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_DOUBLE, MPI_LXOR, 0, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce(v, w, 1, MPI_INT, MPI_REPLACE, 0, W), MPI_ERR_OP);
  EXPECT_N(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, size, W), MPI_ERR_ROOT, size);
  EXPECT_N(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, -3, W), MPI_ERR_ROOT, -3);
  EXPECT(MPI_Reduce(NULL, w, 1, MPI_INT, MPI_SUM, 0, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce(v, NULL, 1, MPI_INT, MPI_SUM, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce(v, v, 1, MPI_INT, MPI_SUM, 0, S), MPI_ERR_BUFFER); /* aliased */
  EXPECT(MPI_Reduce(v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, 0, BADC), MPI_ERR_COMM);

  EXPECT_N(MPI_Allreduce(v, w, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_DATATYPE_NULL, MPI_SUM, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allreduce(v, w, 1, uncommitted, MPI_SUM, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_INT, -4, W), MPI_ERR_OP);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_DOUBLE_INT, MPI_PROD, W), MPI_ERR_OP);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_BYTE, MPI_MAX, W), MPI_ERR_OP);
  EXPECT(MPI_Allreduce(NULL, w, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allreduce(v, NULL, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allreduce(v, v, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allreduce(v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);

  EXPECT(MPI_Reduce_scatter(v, w, NULL, MPI_INT, MPI_SUM, W), MPI_ERR_ARG);
  EXPECT_N(MPI_Reduce_scatter(v, w, negcounts, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Reduce_scatter(v, w, counts, BADT, MPI_SUM, W), MPI_ERR_TYPE);
  EXPECT(MPI_Reduce_scatter(v, w, counts, MPI_INT, MPI_OP_NULL, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce_scatter(v, w, counts, MPI_FLOAT, MPI_BXOR, W), MPI_ERR_OP);
  EXPECT(MPI_Reduce_scatter(NULL, w, counts, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce_scatter(v, NULL, counts, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce_scatter(v, v, counts, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Reduce_scatter(v, w, counts, MPI_INT, MPI_SUM, BADC), MPI_ERR_COMM);

  EXPECT_N(MPI_Scan(v, w, -1, MPI_INT, MPI_SUM, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Scan(v, w, 1, MPI_DATATYPE_NULL, MPI_SUM, W), MPI_ERR_TYPE);
  EXPECT(MPI_Scan(v, w, 1, MPI_INT, BADO, W), MPI_ERR_OP);
  EXPECT(MPI_Scan(v, w, 1, MPI_FLOAT_INT, MPI_SUM, W), MPI_ERR_OP);
  EXPECT(MPI_Scan(NULL, w, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Scan(v, NULL, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Scan(v, v, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Scan(v, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Scan(v, w, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);

  /* gather family: the root-only arguments on MPI_COMM_SELF */
  EXPECT_N(MPI_Gather(v, -1, MPI_INT, w, 1, MPI_INT, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Gather(v, 1, MPI_DATATYPE_NULL, w, 1, MPI_INT, 0, W), MPI_ERR_TYPE);
  EXPECT_N(MPI_Gather(v, 1, MPI_INT, w, 1, MPI_INT, size + 17, W), MPI_ERR_ROOT, size + 17);
  EXPECT(MPI_Gather(NULL, 1, MPI_INT, w, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Gather(v, 1, MPI_INT, w, -2, MPI_INT, 0, S), MPI_ERR_COUNT, -2);
  EXPECT(MPI_Gather(v, 1, MPI_INT, w, 1, BADT, 0, S), MPI_ERR_TYPE);
  EXPECT(MPI_Gather(v, 1, MPI_INT, NULL, 1, MPI_INT, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Gather(v, 1, MPI_INT, v, 1, MPI_INT, 0, S), MPI_ERR_BUFFER); /* aliased */
  EXPECT(MPI_Gather(v, 1, MPI_INT, w, 1, MPI_INT, 0, BADC), MPI_ERR_COMM);
  /* MPI_IN_PLACE is the root's send buffer only; here the root's receive buffer is bad too */
  EXPECT(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, NULL, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Gatherv(v, -1, MPI_INT, w, counts, displs, MPI_INT, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Gatherv(v, 1, BADT, w, counts, displs, MPI_INT, 0, W), MPI_ERR_TYPE);
  EXPECT_N(MPI_Gatherv(v, 1, MPI_INT, w, counts, displs, MPI_INT, -9, W), MPI_ERR_ROOT, -9);
  EXPECT(MPI_Gatherv(NULL, 1, MPI_INT, w, counts, displs, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Gatherv(v, 1, MPI_INT, w, NULL, displs, MPI_INT, 0, S), MPI_ERR_ARG);
  EXPECT(MPI_Gatherv(v, 1, MPI_INT, w, counts, NULL, MPI_INT, 0, S), MPI_ERR_ARG);
  EXPECT_N(MPI_Gatherv(v, 1, MPI_INT, w, negcounts, displs, MPI_INT, 0, S), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Gatherv(v, 1, MPI_INT, w, counts, displs, MPI_DATATYPE_NULL, 0, S), MPI_ERR_TYPE);
  EXPECT(MPI_Gatherv(v, 1, MPI_INT, NULL, counts, displs, MPI_INT, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Gatherv(v, 1, MPI_INT, w, counts, displs, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);

  EXPECT_N(MPI_Scatter(v, 1, MPI_INT, w, -1, MPI_INT, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Scatter(v, 1, MPI_INT, w, 1, MPI_DATATYPE_NULL, 0, W), MPI_ERR_TYPE);
  EXPECT_N(MPI_Scatter(v, 1, MPI_INT, w, 1, MPI_INT, size, W), MPI_ERR_ROOT, size);
  EXPECT(MPI_Scatter(v, 1, MPI_INT, NULL, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Scatter(v, -2, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_COUNT, -2);
  EXPECT(MPI_Scatter(v, 1, BADT, w, 1, MPI_INT, 0, S), MPI_ERR_TYPE);
  EXPECT(MPI_Scatter(NULL, 1, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Scatter(v, 1, MPI_INT, v, 1, MPI_INT, 0, S), MPI_ERR_BUFFER); /* aliased */
  EXPECT(MPI_Scatter(v, 1, MPI_INT, w, 1, MPI_INT, 0, BADC), MPI_ERR_COMM);
  EXPECT(MPI_Scatter(NULL, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Scatterv(v, counts, displs, MPI_INT, w, -1, MPI_INT, 0, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Scatterv(v, counts, displs, MPI_INT, w, 1, BADT, 0, W), MPI_ERR_TYPE);
  EXPECT_N(MPI_Scatterv(v, counts, displs, MPI_INT, w, 1, MPI_INT, size + 17, W), MPI_ERR_ROOT,
           size + 17);
  EXPECT(MPI_Scatterv(v, counts, displs, MPI_INT, NULL, 1, MPI_INT, 0, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Scatterv(v, NULL, displs, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_ARG);
  EXPECT(MPI_Scatterv(v, counts, NULL, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_ARG);
  EXPECT_N(MPI_Scatterv(v, negcounts, displs, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Scatterv(v, counts, displs, MPI_DATATYPE_NULL, w, 1, MPI_INT, 0, S), MPI_ERR_TYPE);
  EXPECT(MPI_Scatterv(NULL, counts, displs, MPI_INT, w, 1, MPI_INT, 0, S), MPI_ERR_BUFFER);
  EXPECT(MPI_Scatterv(v, counts, displs, MPI_INT, w, 1, MPI_INT, 0, BADC), MPI_ERR_COMM);

  EXPECT_N(MPI_Allgather(v, -1, MPI_INT, w, 1, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Allgather(v, 1, MPI_INT, w, -1, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Allgather(v, 1, BADT, w, 1, MPI_INT, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allgather(v, 1, MPI_INT, w, 1, MPI_DATATYPE_NULL, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allgather(NULL, 1, MPI_INT, w, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgather(v, 1, MPI_INT, NULL, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgather(v, 1, MPI_INT, v, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgather(v, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgather(v, 1, MPI_INT, w, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
  EXPECT_N(MPI_Allgatherv(v, -1, MPI_INT, w, counts, displs, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Allgatherv(v, 1, MPI_DATATYPE_NULL, w, counts, displs, MPI_INT, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allgatherv(v, 1, MPI_INT, w, NULL, displs, MPI_INT, W), MPI_ERR_ARG);
  EXPECT(MPI_Allgatherv(v, 1, MPI_INT, w, counts, NULL, MPI_INT, W), MPI_ERR_ARG);
  EXPECT_N(MPI_Allgatherv(v, 1, MPI_INT, w, negcounts, displs, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Allgatherv(v, 1, MPI_INT, w, counts, displs, BADT, W), MPI_ERR_TYPE);
  EXPECT(MPI_Allgatherv(NULL, 1, MPI_INT, w, counts, displs, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgatherv(v, 1, MPI_INT, NULL, counts, displs, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Allgatherv(v, 1, MPI_INT, w, counts, displs, MPI_INT, BADC), MPI_ERR_COMM);

  EXPECT_N(MPI_Alltoall(v, -1, MPI_INT, w, 1, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Alltoall(v, 1, MPI_INT, w, -1, MPI_INT, W), MPI_ERR_COUNT, -1);
  EXPECT(MPI_Alltoall(v, 1, MPI_DATATYPE_NULL, w, 1, MPI_INT, W), MPI_ERR_TYPE);
  EXPECT(MPI_Alltoall(v, 1, MPI_INT, w, 1, uncommitted, W), MPI_ERR_TYPE);
  EXPECT(MPI_Alltoall(NULL, 1, MPI_INT, w, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Alltoall(v, 1, MPI_INT, NULL, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Alltoall(v, 1, MPI_INT, v, 1, MPI_INT, W), MPI_ERR_BUFFER);
  EXPECT(MPI_Alltoall(v, 1, MPI_INT, w, 1, MPI_INT, BADC), MPI_ERR_COMM);
  EXPECT(MPI_Alltoallv(v, NULL, displs, MPI_INT, w, counts, displs, MPI_INT, W), MPI_ERR_ARG);
  EXPECT(MPI_Alltoallv(v, counts, NULL, MPI_INT, w, counts, displs, MPI_INT, W), MPI_ERR_ARG);
  EXPECT(MPI_Alltoallv(v, counts, displs, MPI_INT, w, NULL, displs, MPI_INT, W), MPI_ERR_ARG);
  EXPECT(MPI_Alltoallv(v, counts, displs, MPI_INT, w, counts, NULL, MPI_INT, W), MPI_ERR_ARG);
  EXPECT_N(MPI_Alltoallv(v, negcounts, displs, MPI_INT, w, counts, displs, MPI_INT, W),
           MPI_ERR_COUNT, -1);
  EXPECT_N(MPI_Alltoallv(v, counts, displs, MPI_INT, w, negcounts, displs, MPI_INT, W),
           MPI_ERR_COUNT, -1);
  EXPECT(MPI_Alltoallv(v, counts, displs, BADT, w, counts, displs, MPI_INT, W), MPI_ERR_TYPE);
  EXPECT(MPI_Alltoallv(v, counts, displs, MPI_INT, w, counts, displs, MPI_DATATYPE_NULL, W),
         MPI_ERR_TYPE);
  EXPECT(MPI_Alltoallv(NULL, counts, displs, MPI_INT, w, counts, displs, MPI_INT, W),
         MPI_ERR_BUFFER);
  EXPECT(MPI_Alltoallv(v, counts, displs, MPI_INT, NULL, counts, displs, MPI_INT, W),
         MPI_ERR_BUFFER);
  EXPECT(MPI_Alltoallv(v, counts, displs, MPI_INT, w, counts, displs, MPI_INT, MPI_COMM_NULL),
         MPI_ERR_COMM);

  EXPECT(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
  EXPECT(MPI_Op_create(user_sum, 1, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Op_free(NULL), MPI_ERR_ARG);
  op = MPI_SUM;
  EXPECT(MPI_Op_free(&op), MPI_ERR_OP); /* predefined */
  op = MPI_OP_NULL;
  EXPECT(MPI_Op_free(&op), MPI_ERR_OP);
  op = BADO;
  EXPECT_N(MPI_Op_free(&op), MPI_ERR_OP, BADO);
  SETUP(MPI_Op_create(user_sum, 1, &op));
  stale = op;
  SETUP(MPI_Op_free(&op));
  EXPECT(MPI_Op_free(&stale), MPI_ERR_OP);
  EXPECT(MPI_Allreduce(v, w, 1, MPI_INT, stale, W), MPI_ERR_OP);
}

/* ---- topologies --------------------------------------------------------------------------- */

static void topologies(void) {
  MPI_Comm cart, graph, c;
  int dims1[1] = {size}, periods1[1] = {0}, zero[1] = {0}, neg[1] = {-1}, big[1] = {size + 1};
  int dims2[2] = {4, 0}, x, y, coords[2], out[4], remain[1] = {1};
  int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * (size_t)size);
  int down[2] = {2, 1}, badedge[1] = {size + 17};
  for (int i = 0; i < size; ++i) index[i] = i + 1, edges[i] = (i + 1) % size;

  EXPECT_N(MPI_Dims_create(0, 1, zero), MPI_ERR_ARG, 0);
  EXPECT_N(MPI_Dims_create(-6, 1, zero), MPI_ERR_ARG, -6);
  EXPECT_N(MPI_Dims_create(6, -1, zero), MPI_ERR_DIMS, -1);
  EXPECT(MPI_Dims_create(6, 1, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Dims_create(6, 1, neg), MPI_ERR_DIMS, -1);
  EXPECT(MPI_Dims_create(6, 2, dims2), MPI_ERR_DIMS); /* 4 does not divide 6 */

  SETUP(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, periods1, 0, &cart));
  SETUP(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  EXPECT(MPI_Cart_create(MPI_COMM_NULL, 1, dims1, periods1, 0, &c), MPI_ERR_COMM);
  EXPECT(MPI_Cart_create(BADC, 1, dims1, periods1, 0, &c), MPI_ERR_COMM);
  EXPECT_N(MPI_Cart_create(MPI_COMM_WORLD, -1, dims1, periods1, 0, &c), MPI_ERR_DIMS, -1);
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, NULL, periods1, 0, &c), MPI_ERR_ARG);
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, NULL, 0, &c), MPI_ERR_ARG);
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods1, 0, &c), MPI_ERR_DIMS);
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, big, periods1, 0, &c), MPI_ERR_DIMS);
  EXPECT(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, periods1, 0, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cart_get(MPI_COMM_NULL, 1, out, out, out), MPI_ERR_COMM);
  EXPECT(MPI_Cart_get(MPI_COMM_WORLD, 1, out, out, out), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Cart_get(graph, 1, out, out, out), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Cart_get(cart, 0, out, out, out), MPI_ERR_ARG);
  EXPECT(MPI_Cart_get(cart, 1, NULL, out, out), MPI_ERR_ARG);
  EXPECT(MPI_Cart_get(cart, 1, out, out, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cartdim_get(BADC, &x), MPI_ERR_COMM);
  EXPECT(MPI_Cartdim_get(MPI_COMM_SELF, &x), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Cartdim_get(cart, NULL), MPI_ERR_ARG);
  coords[0] = size + 17;
  EXPECT(MPI_Cart_rank(MPI_COMM_NULL, coords, &x), MPI_ERR_COMM);
  EXPECT(MPI_Cart_rank(graph, coords, &x), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Cart_rank(cart, coords, &x), MPI_ERR_ARG, size + 17); /* non-periodic */
  EXPECT(MPI_Cart_rank(cart, NULL, &x), MPI_ERR_ARG);
  coords[0] = 0;
  EXPECT(MPI_Cart_rank(cart, coords, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cart_coords(MPI_COMM_NULL, 0, 1, coords), MPI_ERR_COMM);
  EXPECT(MPI_Cart_coords(MPI_COMM_WORLD, 0, 1, coords), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Cart_coords(cart, size + 17, 1, coords), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Cart_coords(cart, -7, 1, coords), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Cart_coords(cart, 0, -1, coords), MPI_ERR_ARG, -1);
  EXPECT(MPI_Cart_coords(cart, 0, 1, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cart_shift(BADC, 0, 1, &x, &y), MPI_ERR_COMM);
  EXPECT(MPI_Cart_shift(graph, 0, 1, &x, &y), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_ERR_DIMS, -1);
  EXPECT_N(MPI_Cart_shift(cart, 1, 1, &x, &y), MPI_ERR_DIMS, 1);
  EXPECT(MPI_Cart_shift(cart, 0, 1, NULL, &y), MPI_ERR_ARG);
  EXPECT(MPI_Cart_shift(cart, 0, 1, &x, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cart_sub(MPI_COMM_NULL, remain, &c), MPI_ERR_COMM);
  EXPECT(MPI_Cart_sub(MPI_COMM_WORLD, remain, &c), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Cart_sub(graph, remain, &c), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Cart_sub(cart, NULL, &c), MPI_ERR_ARG);
  EXPECT(MPI_Cart_sub(cart, remain, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Cart_map(MPI_COMM_NULL, 1, dims1, periods1, &x), MPI_ERR_COMM);
  EXPECT_N(MPI_Cart_map(MPI_COMM_WORLD, -1, dims1, periods1, &x), MPI_ERR_DIMS, -1);
  EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, NULL, periods1, &x), MPI_ERR_ARG);
  EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, NULL, &x), MPI_ERR_ARG);
  EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, neg, periods1, &x), MPI_ERR_DIMS);
  EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, big, periods1, &x), MPI_ERR_DIMS);
  EXPECT(MPI_Cart_map(MPI_COMM_WORLD, 1, dims1, periods1, NULL), MPI_ERR_ARG);

  EXPECT(MPI_Graph_create(MPI_COMM_NULL, size, index, edges, 0, &c), MPI_ERR_COMM);
  EXPECT_N(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &c), MPI_ERR_ARG, -1);
  EXPECT_N(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &c), MPI_ERR_ARG, size + 1);
  EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size, NULL, edges, 0, &c), MPI_ERR_ARG);
  EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size, index, NULL, 0, &c), MPI_ERR_ARG);
  if (size > 1) EXPECT(MPI_Graph_create(MPI_COMM_WORLD, 2, down, edges, 0, &c), MPI_ERR_ARG);
  EXPECT_N(MPI_Graph_create(MPI_COMM_WORLD, 1, index, badedge, 0, &c), MPI_ERR_ARG, size + 17);
  EXPECT(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Graph_get(MPI_COMM_NULL, 1, 1, out, out), MPI_ERR_COMM);
  EXPECT(MPI_Graph_get(MPI_COMM_WORLD, 1, 1, out, out), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Graph_get(cart, 1, 1, out, out), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Graph_get(graph, -1, 1, out, out), MPI_ERR_ARG, -1);
  EXPECT_N(MPI_Graph_get(graph, 1, -2, out, out), MPI_ERR_ARG, -2);
  EXPECT(MPI_Graph_get(graph, 1, 1, NULL, out), MPI_ERR_ARG);
  EXPECT(MPI_Graph_get(graph, 1, 1, out, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Graphdims_get(BADC, &x, &y), MPI_ERR_COMM);
  EXPECT(MPI_Graphdims_get(cart, &x, &y), MPI_ERR_TOPOLOGY);
  EXPECT(MPI_Graphdims_get(graph, NULL, &y), MPI_ERR_ARG);
  EXPECT(MPI_Graphdims_get(graph, &x, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Graph_neighbors_count(MPI_COMM_NULL, 0, &x), MPI_ERR_COMM);
  EXPECT(MPI_Graph_neighbors_count(MPI_COMM_SELF, 0, &x), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Graph_neighbors_count(graph, size + 17, &x), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Graph_neighbors_count(graph, -7, &x), MPI_ERR_RANK, -7);
  EXPECT(MPI_Graph_neighbors_count(graph, 0, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Graph_neighbors(BADC, 0, 1, out), MPI_ERR_COMM);
  EXPECT(MPI_Graph_neighbors(cart, 0, 1, out), MPI_ERR_TOPOLOGY);
  EXPECT_N(MPI_Graph_neighbors(graph, size + 17, 1, out), MPI_ERR_RANK, size + 17);
  EXPECT_N(MPI_Graph_neighbors(graph, -7, 1, out), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Graph_neighbors(graph, 0, -1, out), MPI_ERR_ARG, -1);
  EXPECT(MPI_Graph_neighbors(graph, 0, 1, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Graph_map(MPI_COMM_NULL, size, index, edges, &x), MPI_ERR_COMM);
  EXPECT_N(MPI_Graph_map(MPI_COMM_WORLD, -1, index, edges, &x), MPI_ERR_ARG, -1);
  EXPECT(MPI_Graph_map(MPI_COMM_WORLD, size, NULL, edges, &x), MPI_ERR_ARG);
  EXPECT(MPI_Graph_map(MPI_COMM_WORLD, 1, index, badedge, &x), MPI_ERR_ARG);
  EXPECT(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Topo_test(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  EXPECT(MPI_Topo_test(BADC, &x), MPI_ERR_COMM);
  EXPECT(MPI_Topo_test(cart, NULL), MPI_ERR_ARG);
  SETUP(MPI_Comm_free(&cart));
  SETUP(MPI_Comm_free(&graph));
  free(index);
  free(edges);
}

/* ---- intercommunicators ------------------------------------------------------------------- */

static void intercommunicators(void) {
  int x, flag;
  MPI_Comm c, local, ic = MPI_COMM_NULL;
  MPI_Group g;
  EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &flag), MPI_ERR_COMM);
  EXPECT(MPI_Comm_test_inter(BADC, &flag), MPI_ERR_COMM);
  EXPECT(MPI_Comm_test_inter(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_remote_size(MPI_COMM_NULL, &x), MPI_ERR_COMM);
  EXPECT(MPI_Comm_remote_size(MPI_COMM_WORLD, &x), MPI_ERR_COMM); /* not an intercommunicator */
  EXPECT(MPI_Comm_remote_group(BADC, &g), MPI_ERR_COMM);
  EXPECT(MPI_Comm_remote_group(MPI_COMM_SELF, &g), MPI_ERR_COMM);
  EXPECT(MPI_Intercomm_merge(MPI_COMM_NULL, 0, &c), MPI_ERR_COMM);
  EXPECT(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &c), MPI_ERR_COMM);
  /* Each process is its own local group (MPI_COMM_SELF), so each one finds the bad argument
   * as its own leader: nothing waits for a partner. */
  EXPECT(MPI_Intercomm_create(MPI_COMM_NULL, 0, MPI_COMM_WORLD, 0, 5, &c), MPI_ERR_COMM);
  EXPECT(MPI_Intercomm_create(BADC, 0, MPI_COMM_WORLD, 0, 5, &c), MPI_ERR_COMM);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, 1, MPI_COMM_WORLD, 0, 5, &c), MPI_ERR_RANK, 1);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, -7, MPI_COMM_WORLD, 0, 5, &c), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, -5, &c), MPI_ERR_TAG, -5);
  EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, MPI_ANY_TAG, &c), MPI_ERR_TAG);
  EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 5, NULL), MPI_ERR_ARG);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, size + 17, 5, &c), MPI_ERR_RANK,
           size + 17);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, -7, 5, &c), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, rank, 5, &c), MPI_ERR_RANK,
           rank); /* the remote leader is the local leader itself */
  EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_NULL, 0, 5, &c), MPI_ERR_COMM);
  EXPECT(MPI_Intercomm_create(MPI_COMM_SELF, 0, BADC, 0, 5, &c), MPI_ERR_COMM);
  if (size < 2) return;

  /* a remote leader inside the local group (it would never answer the leaders' exchange) */
  EXPECT_N(MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 1, 5, &c), MPI_ERR_RANK, 1);

  /* A real intercommunicator: even and odd ranks of MPI_COMM_WORLD. */
  int color = rank % 2, rsize;
  SETUP(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
  SETUP(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &ic));
  SETUP(MPI_Comm_remote_size(ic, &rsize));
  EXPECT(MPI_Comm_remote_size(ic, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Comm_remote_group(ic, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Intercomm_merge(ic, 0, NULL), MPI_ERR_ARG);
  EXPECT(MPI_Intercomm_create(ic, 0, MPI_COMM_WORLD, 1 - color, 7, &c), MPI_ERR_COMM);
  EXPECT_N(MPI_Send(v, 1, MPI_INT, rsize, 0, ic), MPI_ERR_RANK, rsize);
  EXPECT_N(MPI_Isend(v, 1, MPI_INT, -7, 0, ic, &req), MPI_ERR_RANK, -7);
  EXPECT_N(MPI_Recv(w, 1, MPI_INT, rsize + 17, 0, ic, MPI_STATUS_IGNORE), MPI_ERR_RANK,
           rsize + 17);
  EXPECT_N(MPI_Iprobe(rsize, 0, ic, &flag, MPI_STATUS_IGNORE), MPI_ERR_RANK, rsize);
  /* MPI-2: collectives, split and create on an intercommunicator (intercomm_coll.c checks
   * what they do); refused locally, before any communication: */
  EXPECT_N(MPI_Bcast(v, 1, MPI_INT, rsize, ic), MPI_ERR_ROOT, rsize); /* not a remote rank */
  EXPECT_N(MPI_Reduce(v, w, 1, MPI_INT, MPI_SUM, -5, ic), MPI_ERR_ROOT, -5);
  EXPECT(MPI_Allreduce(MPI_IN_PLACE, w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER);
  EXPECT_N(MPI_Allgather(v, -2, MPI_INT, w, 1, MPI_INT, ic), MPI_ERR_COUNT, -2);
  EXPECT(MPI_Scan(v, w, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM); /* not defined there */
  EXPECT_N(MPI_Comm_split(ic, -3, 0, &c), MPI_ERR_ARG, -3);
  SETUP(MPI_Comm_group(MPI_COMM_WORLD, &g)); /* has the remote group's processes */
  EXPECT(MPI_Comm_create(ic, g, &c), MPI_ERR_GROUP);
  SETUP(MPI_Group_free(&g));
  /* topologies are for intracommunicators */
  int dims[1] = {1}, periods[1] = {0}, index[1] = {0};
  EXPECT(MPI_Cart_create(ic, 1, dims, periods, 0, &c), MPI_ERR_COMM);
  EXPECT(MPI_Cart_map(ic, 1, dims, periods, &x), MPI_ERR_COMM);
  EXPECT(MPI_Graph_create(ic, 1, index, index, 0, &c), MPI_ERR_COMM);
  EXPECT(MPI_Graph_map(ic, 1, index, index, &x), MPI_ERR_COMM);
  EXPECT(MPI_Cartdim_get(ic, &x), MPI_ERR_TOPOLOGY);
  EXPECT_N(FTMPI_Comm_proc_state(ic, size + 17, &x), MPI_ERR_RANK, size + 17);
  SETUP(MPI_Comm_free(&ic));
  SETUP(MPI_Comm_free(&local));
}

/* ---- FT-MPI extensions -------------------------------------------------------------------- */

static void ft_extensions(void) {
  int a, b, ranks[4], n, mode0, msg0;
  SETUP(FTMPI_Comm_get_mode(MPI_COMM_WORLD, &mode0, &msg0));
  EXPECT(FTMPI_Comm_set_mode(MPI_COMM_NULL, FTMPI_COMM_MODE_ABORT, FTMPI_MSG_MODE_NOP),
         MPI_ERR_COMM);
  EXPECT(FTMPI_Comm_set_mode(BADC, FTMPI_COMM_MODE_ABORT, FTMPI_MSG_MODE_NOP), MPI_ERR_COMM);
  EXPECT_N(FTMPI_Comm_set_mode(MPI_COMM_WORLD, 99, FTMPI_MSG_MODE_NOP), MPI_ERR_ARG, 99);
  EXPECT_N(FTMPI_Comm_set_mode(MPI_COMM_WORLD, -1, FTMPI_MSG_MODE_NOP), MPI_ERR_ARG, -1);
  EXPECT_N(FTMPI_Comm_set_mode(MPI_COMM_WORLD, FTMPI_COMM_MODE_ABORT, 7), MPI_ERR_ARG, 7);
  EXPECT(FTMPI_Comm_get_mode(MPI_COMM_NULL, &a, &b), MPI_ERR_COMM);
  EXPECT(FTMPI_Comm_get_mode(MPI_COMM_WORLD, NULL, &b), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_get_mode(MPI_COMM_WORLD, &a, NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_set_coll_mode(BADC, FTMPI_COLL_MODE_ATOMIC), MPI_ERR_COMM);
  EXPECT_N(FTMPI_Comm_set_coll_mode(MPI_COMM_WORLD, 7), MPI_ERR_ARG, 7);
  EXPECT(FTMPI_Comm_get_coll_mode(MPI_COMM_NULL, &a), MPI_ERR_COMM);
  EXPECT(FTMPI_Comm_get_coll_mode(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_state(MPI_COMM_NULL, &a), MPI_ERR_COMM);
  EXPECT(FTMPI_Comm_state(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_proc_state(BADC, 0, &a), MPI_ERR_COMM);
  EXPECT_N(FTMPI_Comm_proc_state(MPI_COMM_WORLD, size + 17, &a), MPI_ERR_RANK, size + 17);
  EXPECT_N(FTMPI_Comm_proc_state(MPI_COMM_WORLD, -7, &a), MPI_ERR_RANK, -7);
  EXPECT(FTMPI_Comm_proc_state(MPI_COMM_WORLD, 0, NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_failed_ranks(MPI_COMM_NULL, 4, ranks, &n), MPI_ERR_COMM);
  EXPECT_N(FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, -1, ranks, &n), MPI_ERR_COUNT, -1);
  EXPECT(FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 4, ranks, NULL), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 4, NULL, &n), MPI_ERR_ARG);
  EXPECT(FTMPI_Comm_valid_size(BADC, &n), MPI_ERR_COMM);
  EXPECT(FTMPI_Comm_valid_size(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  SETUP(FTMPI_Comm_get_mode(MPI_COMM_WORLD, &a, &b));
  TRUE(a == mode0 && b == msg0); /* refused calls changed nothing */
}

/* ---- user error handlers ------------------------------------------------------------------ */

static int eh_calls;
static MPI_Comm eh_comm;
static int eh_code;
static void record_error(MPI_Comm *comm, int *code, ...) {
  eh_calls++;
  eh_comm = *comm;
  eh_code = *code;
}

/* The handler ran exactly once for this call, with `comm` and the code the call returned. */
static void handled(int rc, MPI_Comm comm, int cls, const char *call, int line) {
  char msg[256];
  int c = -1;
  MPI_Error_class(rc, &c);
  nchecks++;
  if (c != cls || eh_calls != 1 || eh_comm != comm || eh_code != rc) {
    snprintf(msg, sizeof msg, "class %s (expected %s); handler called %d time(s) with comm %d "
             "(expected %d) and code %d (returned %d)", class_name(c), class_name(cls), eh_calls,
             (int)eh_comm, (int)comm, eh_code, rc);
    report(line, call, msg);
  }
  eh_calls = 0;
  eh_comm = MPI_COMM_NULL;
  eh_code = MPI_SUCCESS;
}
#define HANDLED(call, comm, cls) \
  do { eh_calls = 0; handled((call), (comm), (cls), #call, __LINE__); } while (0)

static void error_handlers(void) {
  MPI_Errhandler eh, got;
  MPI_Comm d, dd;
  MPI_Status st;
  int x;
  SETUP(MPI_Comm_create_errhandler(record_error, &eh));
  SETUP(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  SETUP(MPI_Comm_set_errhandler(d, eh));
  SETUP(MPI_Comm_get_errhandler(d, &got));
  TRUE(got == eh);
  HANDLED(MPI_Send(v, 1, MPI_INT, size + 17, 0, d), d, MPI_ERR_RANK);
  HANDLED(MPI_Ssend(v, 1, MPI_INT, 0, -5, d), d, MPI_ERR_TAG);
  HANDLED(MPI_Irecv(w, -1, MPI_INT, 0, 0, d, &req), d, MPI_ERR_COUNT);
  HANDLED(MPI_Sendrecv(v, 1, MPI_INT, rank, 0, w, 1, MPI_INT, -7, 0, d, &st), d, MPI_ERR_RANK);
  HANDLED(MPI_Probe(size + 17, 0, d, &st), d, MPI_ERR_RANK);
  HANDLED(MPI_Bcast(v, 1, MPI_INT, size, d), d, MPI_ERR_ROOT);
  HANDLED(MPI_Allreduce(v, w, 1, MPI_INT, MPI_MAXLOC, d), d, MPI_ERR_OP);
  HANDLED(MPI_Comm_get_attr(d, BADK, &got, &x), d, MPI_ERR_KEYVAL);
  HANDLED(MPI_Cart_coords(d, 0, 1, &x), d, MPI_ERR_TOPOLOGY);
  HANDLED(MPI_Pack_size(-1, MPI_INT, d, &x), d, MPI_ERR_COUNT);
  HANDLED(FTMPI_Comm_proc_state(d, -7, &x), d, MPI_ERR_RANK);
  HANDLED(MPI_Comm_set_errhandler(d, BADEH), d, MPI_ERR_ARG);
  HANDLED(MPI_Comm_split(d, -5, 0, &dd), d, MPI_ERR_ARG);
  HANDLED(MPI_Comm_remote_size(d, &x), d, MPI_ERR_COMM);
  HANDLED(MPI_Attr_put(d, MPI_TAG_UB, &x), d, MPI_ERR_KEYVAL);
  HANDLED(MPI_Cart_create(d, -1, &x, &x, 0, &dd), d, MPI_ERR_DIMS);
  HANDLED(MPI_Intercomm_create(d, size + 17, MPI_COMM_WORLD, 0, 5, &dd), d, MPI_ERR_RANK);
  int pos = 0;
  HANDLED(MPI_Pack(v, 1, MPI_INT, w, 2, &pos, d), d, MPI_ERR_TRUNCATE);
  eh_calls = 0;
  SETUP(MPI_Send(v, 1, MPI_INT, MPI_PROC_NULL, 0, d));
  TRUE(eh_calls == 0); /* not called on success */
  /* a duplicate inherits the handler; the MPI-1 names set and get the same thing */
  SETUP(MPI_Comm_dup(d, &dd));
  HANDLED(MPI_Recv(w, 1, MPI_INT, MPI_ROOT, 0, dd, &st), dd, MPI_ERR_RANK);
  SETUP(MPI_Errhandler_set(dd, MPI_ERRORS_RETURN));
  SETUP(MPI_Errhandler_get(dd, &got));
  TRUE(got == MPI_ERRORS_RETURN);
  eh_calls = 0;
  EXPECT_N(MPI_Send(v, 1, MPI_INT, -7, 0, dd), MPI_ERR_RANK, -7);
  TRUE(eh_calls == 0);
  SETUP(MPI_Comm_free(&dd));
  /* errors with no valid communicator, and on objects that name none, go to MPI_COMM_WORLD's */
  SETUP(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
  MPI_Request bad = (MPI_Request)12345;
  MPI_Datatype badt = BADT;
  MPI_Op bado = BADO;
  HANDLED(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_COMM_WORLD, MPI_ERR_COMM);
  HANDLED(MPI_Comm_rank(BADC, &x), MPI_COMM_WORLD, MPI_ERR_COMM);
  HANDLED(MPI_Group_size(BADG, &x), MPI_COMM_WORLD, MPI_ERR_GROUP);
  HANDLED(MPI_Type_commit(&badt), MPI_COMM_WORLD, MPI_ERR_TYPE);
  HANDLED(MPI_Wait(&bad, &st), MPI_COMM_WORLD, MPI_ERR_REQUEST);
  HANDLED(MPI_Op_free(&bado), MPI_COMM_WORLD, MPI_ERR_OP);
  HANDLED(MPI_Error_class(-1, &x), MPI_COMM_WORLD, MPI_ERR_ARG);
  HANDLED(MPI_Dims_create(6, -1, &x), MPI_COMM_WORLD, MPI_ERR_DIMS);
  SETUP(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh));
  HANDLED(MPI_Recv(w, 1, MPI_INT, 1, 0, MPI_COMM_SELF, &st), MPI_COMM_SELF, MPI_ERR_RANK);
  /* freeing the handle does not take the handler away from communicators using it */
  SETUP(MPI_Errhandler_free(&eh));
  TRUE(eh == MPI_ERRHANDLER_NULL);
  HANDLED(MPI_Send(v, 1, MPI_INT, 0, tag_ub + 1, d), d, MPI_ERR_TAG);
  SETUP(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  SETUP(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  SETUP(MPI_Comm_free(&d));
}

/* ---- after MPI_Finalize ------------------------------------------------------------------- */

static void after_finalize(void) {
  int x = 0, flag = 0;
  SETUP(MPI_Finalized(&flag));
  TRUE(flag == 1);
  EXPECT(MPI_Finalize(), MPI_ERR_OTHER);
  EXPECT(MPI_Init(NULL, NULL), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, &x), MPI_ERR_OTHER);
  EXPECT(MPI_Send(v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_OTHER);
  EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_ERR_OTHER);
  EXPECT(MPI_Comm_free_keyval(&x), MPI_ERR_OTHER);
}

int main(int argc, char **argv) {
  before_init();
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 2;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int flag = 0, *ub = NULL;
  SETUP(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
  tag_ub = flag && ub != NULL ? *ub : 32767;
  SETUP(MPI_Type_vector(2, 1, 2, MPI_INT, &uncommitted));

  environment(&argc, &argv);
  communicators();
  attributes();
  point_to_point();
  requests();
  datatypes();
  groups();
  collectives();
  topologies();
  intercommunicators();
  ft_extensions();
  error_handlers();
  SETUP(MPI_Type_free(&uncommitted));

  /* Every declared function must have been given bad input (or be one that takes none). */
  int missing = 0;
  for (int i = 0; i < NDECLARED; ++i) {
    int na = 0;
    for (int j = 0; j < NNA; ++j) na |= strcmp(kDeclared[i], kNotApplicable[j]) == 0;
    if (!exercised[i] && !na) {
      if (rank == 0) fprintf(stderr, "bad_input: FAIL: %s was not exercised\n", kDeclared[i]);
      missing++;
    }
  }
  nfailed += missing;

  int total = 0;
  MPI_Allreduce(&nfailed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  const int before = nfailed;
  after_finalize(); /* a failure here fails this process's exit status */
  total += nfailed - before;
  if (rank == 0) {
    int functions = 0;
    for (int i = 0; i < NDECLARED; ++i) functions += exercised[i];
    printf("bad_input: %d checks over %d of %d declared functions (%d take no bad input), "
           "%d process(es)\n", nchecks, functions, NDECLARED, NNA, size);
    if (total == 0) printf("bad_input: OK\n");
    else printf("bad_input: %d check(s) FAILED\n", total);
  }
  return total == 0 ? 0 : 1;
}
