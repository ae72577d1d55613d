// The process-wide MPI state: one instance, created by MPI_Init, owned here. The C API files
// reach it through lib(); nothing below the API layer touches globals.
#pragma once

#include <mpi.h>

#include <thread>
#include <vector>

#include "attributes.h"
#include "comm.h"
#include "consensus.h"
#include "construct.h"
#include "datatype.h"
#include "engine.h"
#include "error.h"
#include "ft.h"
#include "nbc.h"
#include "rebuild.h"
#include "reduction.h"
#include "runtime.h"
#include "ulfm.h"

namespace ftmpi {

struct Library {
  Runtime runtime;
  Engine engine;
  CommTable comms;
  DatatypeTable types;
  OpTable ops;
  Attributes attrs;
  FaultHandler ft{&comms, &engine, &runtime};
  Consensus consensus{&engine};
  Rebuilder rebuilder{&comms, &engine, &consensus, &runtime};
  Constructor construct{&comms, &engine, &consensus, &rebuilder};
  Ulfm ulfm{&comms, &engine, &consensus, &construct};
  Nbc nbc{&engine, &construct, &types};
  bool initialized = false;
  bool finalized = false;
  int init_state = FTMPI_INIT_NEW;
  int thread_level = MPI_THREAD_FUNNELED;
  std::thread::id main_thread;  // the thread that called MPI_Init (MPI_Is_thread_main)
  // User error handlers; handle = kFirstUserErrhandler + index.
  std::vector<MPI_Comm_errhandler_function*> errhandlers;
};

Library& lib();
constexpr MPI_Errhandler kFirstUserErrhandler = 3;

// API-edge helpers. Both return an MPI error code; errors go through the communicator's handler
// (MPI_COMM_WORLD's when there is no valid communicator), which may end the job.
int raise(Comm* comm, Err e);
int raise_code(Comm* comm, int code);
int raise_world(Err e);
// Err::other with a message, for calls made outside the MPI_Init..MPI_Finalize window.
Err check_initialized(const char* fn);

}  // namespace ftmpi
