// eventfd-backed queue of PMIx upcalls, plus their completion helpers.
#include "upcall_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace ftmpi::daemon {

namespace {

// PMIx calls this once it no longer needs the blob we returned for a fence or modex.
void release_blob(void* cbdata) noexcept { delete static_cast<std::vector<char>*>(cbdata); }

}  // namespace

void Upcall::complete(pmix_status_t st) {
    if (op_cb != nullptr) {
        op_cb(st, cbdata);
        op_cb = nullptr;
    }
    if (modex_cb != nullptr) {
        modex_cb(st, nullptr, 0, cbdata, nullptr, nullptr);
        modex_cb = nullptr;
    }
    if (spawn_cb != nullptr) complete_spawn(st, std::string());
}

void Upcall::complete_spawn(pmix_status_t st, const std::string& ns) {
    if (spawn_cb == nullptr) return complete(st);
    pmix_nspace_t out;
    PMIX_LOAD_NSPACE(out, ns.c_str());
    spawn_cb(st, out, cbdata);
    spawn_cb = nullptr;
}

void Upcall::complete_with_data(pmix_status_t st, std::vector<char> blob) {
    if (modex_cb == nullptr) return complete(st);
    auto* owned = new std::vector<char>(std::move(blob));
    modex_cb(st, owned->empty() ? nullptr : owned->data(), owned->size(), cbdata, release_blob, owned);
    modex_cb = nullptr;
}

UpcallQueue::UpcallQueue() { efd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

UpcallQueue::~UpcallQueue() {
    if (efd_ >= 0) close(efd_);
}

void UpcallQueue::push(Upcall&& u) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        items_.push_back(std::move(u));
    }
    std::uint64_t one = 1;
    ssize_t ignored = write(efd_, &one, sizeof one);
    (void)ignored;  // only fails if the counter would overflow, which still leaves it readable
}

std::deque<Upcall> UpcallQueue::drain() {
    std::uint64_t count = 0;
    ssize_t ignored = read(efd_, &count, sizeof count);
    (void)ignored;
    std::deque<Upcall> out;
    std::lock_guard<std::mutex> lock(mu_);
    out.swap(items_);
    return out;
}

}  // namespace ftmpi::daemon
