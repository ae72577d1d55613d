// PMIx upcalls. These run on PMIx's progress thread, so each one only copies what it was given
// into an Upcall and returns PMIX_SUCCESS, promising PMIx that the callback will be run later
// (from the loop thread, by Upcall::complete).
#include "pmix_module.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>
#include <utility>

namespace ftmpi::daemon {

namespace {

UpcallQueue* g_queue = nullptr;

// No exception may cross back into PMIx's C code. Copying can only fail for lack of memory;
// reporting that makes PMIx fail the client's request instead of the daemon crashing.
template <typename F>
pmix_status_t guarded(F&& copy_and_queue) noexcept {
    try {
        g_queue->push(copy_and_queue());
        return PMIX_SUCCESS;
    } catch (...) {
        return PMIX_ERR_NOMEM;
    }
}

Upcall upcall_for(UpcallKind kind, const pmix_proc_t* proc, void* cbdata) {
    Upcall u;
    u.kind = kind;
    u.cbdata = cbdata;
    if (proc != nullptr) {
        u.nspace.assign(proc->nspace, strnlen(proc->nspace, PMIX_MAX_NSLEN));
        u.rank = proc->rank;
    }
    return u;
}

pmix_status_t on_client_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::client_connected, proc, cbdata);
        u.op_cb = cbfunc;
        return u;
    });
}

pmix_status_t on_client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::client_finalized, proc, cbdata);
        u.op_cb = cbfunc;
        return u;
    });
}

pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[], size_t,
                       pmix_op_cbfunc_t cbfunc, void* cbdata) {
    // The proc list is ignored on purpose: an MPI_Abort ends the whole job (SPEC 4.7).
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::abort, proc, cbdata);
        u.status = status;
        if (msg != nullptr) u.message = msg;
        u.op_cb = cbfunc;
        return u;
    });
}

std::string fence_signature(const pmix_proc_t procs[], size_t nprocs) {
    std::vector<pmix_rank_t> ranks;
    for (size_t i = 0; i < nprocs; ++i) {
        if (procs[i].rank == PMIX_RANK_WILDCARD) return "*";
        ranks.push_back(procs[i].rank);
    }
    std::sort(ranks.begin(), ranks.end());
    std::string sig;
    for (pmix_rank_t r : ranks) sig += (sig.empty() ? "" : ",") + std::to_string(r);
    return sig;
}

pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t, char* data,
                       size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    // `data` belongs to PMIx and may be gone once we return: copy it now.
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::fence, nprocs > 0 ? &procs[0] : nullptr, cbdata);
        if (data != nullptr && ndata > 0) u.data.assign(data, data + ndata);
        u.signature = fence_signature(procs, nprocs);
        u.modex_cb = cbfunc;
        return u;
    });
}

pmix_status_t on_direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t, pmix_modex_cbfunc_t cbfunc,
                              void* cbdata) {
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::direct_modex, proc, cbdata);
        u.modex_cb = cbfunc;
        return u;
    });
}

pmix_status_t on_notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t, pmix_info_t[],
                              size_t, pmix_op_cbfunc_t, void*) {
    // A client's event: PMIx has already delivered it to the local processes it concerns, and
    // with one host there is nobody further to forward it to. Answer "done, no callback will
    // follow". Returning PMIX_SUCCESS instead promised a later callback, but PMIx 4.2 (its prm
    // framework) treats only PMIX_OPERATION_IN_PROGRESS as pending and frees the callback's
    // data at once: the late callback from our loop then wrote into freed memory (ftmpid died
    // with "malloc(): unaligned tcache chunk detected" or deadlocked; issue 16 item 3).
    // The loop only logs it, so nothing of PMIx's is kept.
    try {
        Upcall u = upcall_for(UpcallKind::notify_event, source, nullptr);
        u.status = code;
        g_queue->push(std::move(u));
    } catch (...) {
        // Not even logging it is fine: nothing depends on it.
    }
    return PMIX_OPERATION_SUCCEEDED;
}

// REBUILD (SPEC 4.2): a process of a job asks for replacement processes of its own job. Only
// the count, the first process index and the environment entries are taken; the daemon starts
// the job's own program (a replacement runs the same `main`), so the app's command is ignored.
pmix_status_t on_spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                       size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    if (napps != 1 || apps == nullptr) return PMIX_ERR_BAD_PARAM;
    return guarded([&] {
        Upcall u = upcall_for(UpcallKind::spawn, proc, cbdata);
        u.spawn_cb = cbfunc;
        u.count = apps[0].maxprocs > 0 ? static_cast<std::uint32_t>(apps[0].maxprocs) : 0;
        for (char** e = apps[0].env; e != nullptr && *e != nullptr; ++e) u.env.emplace_back(*e);
        for (size_t i = 0; i < ninfo; ++i) {
            if (PMIX_CHECK_KEY(&job_info[i], "ftmpi.base") && job_info[i].value.type == PMIX_UINT32) {
                u.base = job_info[i].value.data.uint32;
                u.has_base = true;
            }
        }
        return u;
    });
}

pmix_server_module_t g_module = [] {
    pmix_server_module_t m;
    std::memset(&m, 0, sizeof m);
    m.client_connected = on_client_connected;
    m.client_finalized = on_client_finalized;
    m.abort = on_abort;
    m.fence_nb = on_fence;
    m.direct_modex = on_direct_modex;
    m.notify_event = on_notify_event;
    m.spawn = on_spawn;
    return m;
}();

}  // namespace

pmix_server_module_t* pmix_module_bind(UpcallQueue* queue) {
    g_queue = queue;
    return &g_module;
}

}  // namespace ftmpi::daemon
