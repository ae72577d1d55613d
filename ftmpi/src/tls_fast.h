// Thread-locals read on every call or every poll (the library lock's depth, the fiber running
// on this thread). A thread-local of a shared library is found through a __tls_get_addr call
// (~11 instructions and a call) in the default model; initial-exec reads it at a fixed offset
// from the thread pointer. libftmpi is linked by the program, so its few bytes of static TLS are
// reserved at load; they also fit glibc's static TLS surplus when a language binding dlopens
// the library.
#pragma once

#define FTMPI_TLS_FAST __attribute__((tls_model("initial-exec")))
