// The neighbourhood collectives' one algorithm (MPI-3.1 7.6): every block goes straight to its
// neighbour on the communicator's collective context, a receive posted per source and a send
// per destination, then one wait for all of them. There is nothing to combine and no one
// else to involve: the pattern is the topology.
//
// Blocks of a contiguous type move in place; the others are packed into one staging buffer
// before the sends and unpacked from it after the receives succeeded (a failed call leaves
// the receive buffer as it was for staged blocks).
//
// Matching: one tag for graphs and distributed graphs, where the i-th message from a process
// to another pairs with the i-th receive from it (FIFO per source and tag), which is MPI's rule
// for repeated edges. A Cartesian grid of extent 1 or 2 in a periodic dimension makes one
// process both the -1 and the +1 neighbour: a block sent towards -1 must land in the
// receiver's +1 slot (MPI-4.0 7.6, the clarification of MPI-3.1's order), so the two
// directions get two tags.
//
// Failures (api_neighbor.cpp says what the caller returns): a neighbour already known failed
// (a BLANK gap, a death not yet repaired) fails the call before anything is posted; one that
// dies meanwhile fails it at the processes whose messages it cut (CommP2P: in the FT-MPI modes
// every operation of a communicator with a failure fails, NOP).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <ftmpi/coll/p2p.h>

#include "comm.h"
#include "coll_p2p.h"
#include "datatype.h"
#include "topology.h"

namespace ftmpi::neighbor {

// count elements of type at addr (an integer: MPI_BOTTOM with absolute displacements).
struct Block {
  std::uintptr_t addr = 0;
  int count = 0;
  const Datatype* type = nullptr;
};

struct Plan {
  Neighbors peers;
  std::vector<Block> sends;  // one per peers.destinations entry
  std::vector<Block> recvs;  // one per peers.sources entry
  bool one_send = false;     // every send is sends[0] (allgather): packed once
};

// Runs the exchange; Status::ok when every receive got its block (receive buffers written).
coll::Status exchange(const Comm& c, CommP2P& p2p, const Plan& plan);

// Argument checks of one block list: counts not negative, arrays present when the degree is
// not 0, a buffer that can hold the data (NULL is MPI_BOTTOM for a derived type), never
// MPI_IN_PLACE. `what` names the side ("send", "recv").
Err check_buffer(const char* what, const void* buf);
Err check_blocks(const char* what, const std::vector<Block>& blocks, const void* buf);

}  // namespace ftmpi::neighbor
