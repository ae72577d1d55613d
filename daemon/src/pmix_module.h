// The PMIx server module (the upcall table) of ftmpid.
#pragma once

#include <pmix_server.h>

#include "upcall_queue.h"

namespace ftmpi::daemon {

// The module's functions copy their arguments into `queue`; PMIx allows only one server per
// process, so one queue pointer for the whole process is all the state they need.
pmix_server_module_t* pmix_module_bind(UpcallQueue* queue);

}  // namespace ftmpi::daemon
