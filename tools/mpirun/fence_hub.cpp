// See fence_hub.h.
#include "fence_hub.h"

#include <cstdlib>

#include "ftmpi/debug_log.h"
#include "ftmpi_proto/unix_socket.h"

namespace ftmpi::mpirun {

void FenceHub::contribute(std::vector<Spoke>& spokes, std::size_t from, proto::FenceContribution c) {
    FTMPI_DLOG("startup", "mpirun: fence %s#%u: part of host %u (%zu bytes)", c.signature.c_str(), c.seq,
               spokes[from].host, c.blob.size());
    pending_[{c.signature, c.seq}].blobs[from] = std::move(c.blob);
    complete_ready(spokes);
}

void FenceHub::participants_changed(std::vector<Spoke>& spokes, bool death) {
    if (pending_.empty()) return;
    if (death)
        for (auto& [key, p] : pending_) p.partial = true;
    complete_ready(spokes);
}

bool FenceHub::needed(const Spoke& s, const std::string& signature) const {
    if (!s.open || s.ranks_alive == 0) return false;
    if (signature == "*") return true;
    // "r0,r1,...": needed if one of its processes is placed on this host. Processes beyond the
    // first placement (REBUILD replacements) are not placed here; their daemon contributes
    // anyway, and its part is taken when it comes.
    const char* p = signature.c_str();
    while (*p != '\0') {
        char* end = nullptr;
        unsigned long r = std::strtoul(p, &end, 10);
        if (end == p) break;
        if (r < host_of_rank_.size() && host_of_rank_[r] == s.host) return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

void FenceHub::complete_ready(std::vector<Spoke>& spokes) {
    for (auto it = pending_.begin(); it != pending_.end();) {
        const auto& [signature, seq] = it->first;
        Pending& p = it->second;
        bool ready = true;
        for (std::size_t i = 0; i < spokes.size() && ready; ++i)
            ready = !needed(spokes[i], signature) || p.blobs.count(i) > 0;
        if (!ready) {
            ++it;
            continue;
        }
        proto::FenceResult result;
        result.signature = signature;
        result.seq = seq;
        result.partial = p.partial;
        for (const auto& [spoke, blob] : p.blobs) result.data += blob;
        FTMPI_DLOG("startup", "mpirun: fence %s#%u complete: %zu bytes to %zu hosts", signature.c_str(), seq,
                   result.data.size(), p.blobs.size());
        const std::vector<std::uint8_t> frame = proto::encode(result);
        // Only the daemons that contributed have a fence waiting for it.
        for (const auto& [spoke, blob] : p.blobs)
            if (spokes[spoke].open) (void)proto::write_all(spokes[spoke].fd, frame);
        it = pending_.erase(it);
    }
}

}  // namespace ftmpi::mpirun
