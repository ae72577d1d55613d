// A hot spare opens its connections while it waits (issue 17 item 5; spare_wait.cpp).
//
// A spare's first message to a rank on another host pays the provider's connection setup
// (tcp;ofi_rxm: a tcp connect, rxm's connection request and its acceptance, each side's
// progress in between). At a REBUILD that message was the spare's hello to every survivor,
// on the repair's path: 1-5 ms at 3 namespace hosts (README, hot spares on several hosts).
// So once the spare holds the original ranks' addresses (fetched while it waits), it inserts
// them and sends each rank a connect note (Consensus::kConnectNote, dropped on arrival); the
// connections then exist before any failure, and the join's hello and the survivors' welcome
// travel on them (rxm keeps a connection accepted from a sender not yet in the receiver's
// address table and uses it once the address is inserted: the welcomes came 0.1-0.9 ms after
// the last hello in README's measurements, no second setup).
//
// Off the ranks' critical path: their MPI_Init never waits for it (the note arrives whenever
// they next make progress, and is one receive). A rank that dies meanwhile fails that send
// (it is suspected like any peer; the spare's join marks it failed if it is not in the plan);
// a spare that dies meanwhile leaves the ranks a closed connection and nothing else.
#pragma once

#include <cstdint>
#include <vector>

#include "engine.h"

namespace ftmpi {

// Inserts `ranks` (every original rank's address, none empty) into `engine` as processes
// 0.. and sends each a connect note; then drives progress until every note completed, `fd`
// became readable (the daemon's assignment: the join takes over), or kPreconnectMs passed.
// Between polls it sleeps in poll(fd) with a growing timeout (1 ms .. 50 ms): no spinning.
// Does nothing when FTMPI_SPARE_PRECONNECT=0 or the engine already has peers.
void preconnect_spare(Engine& engine, const std::vector<std::vector<std::uint8_t>>& ranks, int fd);

}  // namespace ftmpi
