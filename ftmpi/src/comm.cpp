#include "comm.h"

#include <algorithm>
#include "monitor.h"

namespace ftmpi {

void CommTable::init(const std::vector<std::uint32_t>& world_procs, std::uint32_t my_proc,
                     int comm_mode, int msg_mode) {
  comms_.clear();
  comms_.resize(3);
  std::size_t nprocs = my_proc + 1;
  for (std::uint32_t p : world_procs) nprocs = std::max<std::size_t>(nprocs, p + 1);
  auto world = std::make_unique<Comm>();
  world->handle = MPI_COMM_WORLD;
  world->context = 0;
  world->coll_context = 1;
  // With a fault-tolerant mode, errors on WORLD are returned so the application can react.
  world->errhandler = comm_mode == FTMPI_COMM_MODE_ABORT ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN;
  world->name = "MPI_COMM_WORLD";
  world->procs = world_procs;
  world->rank_of_proc.assign(nprocs, -1);
  for (std::size_t r = 0; r < world_procs.size(); ++r) {
    world->rank_of_proc[world_procs[r]] = static_cast<int>(r);
  }
  world->rank = world->rank_of_proc[my_proc];
  auto self = std::make_unique<Comm>();
  self->handle = MPI_COMM_SELF;
  self->context = 2;
  self->coll_context = 3;
  self->rank = 0;
  self->errhandler = MPI_ERRORS_ARE_FATAL;
  self->name = "MPI_COMM_SELF";
  self->procs.push_back(my_proc);
  self->rank_of_proc.assign(nprocs, -1);
  self->rank_of_proc[my_proc] = 0;
  for (Comm* c : {world.get(), self.get()}) {
    c->comm_mode = comm_mode;
    c->msg_mode = msg_mode;
    c->proc_state.assign(c->procs.size(), FTMPI_PROC_OK);
  }
  used_.reset();
  mark_context_used(world->context);
  mark_context_used(self->context);
  comms_[MPI_COMM_WORLD] = std::move(world);
  comms_[MPI_COMM_SELF] = std::move(self);
}

}  // namespace ftmpi

namespace ftmpi {

MPI_Comm CommTable::add(std::unique_ptr<Comm> c) {
  for (std::size_t h = 3; h < comms_.size(); ++h) {
    if (!comms_[h]) {
      c->handle = static_cast<MPI_Comm>(h);
      comms_[h] = std::move(c);
      monitor().comm_changed(*comms_[h]);
      membership_changed(*comms_[h]);
      return static_cast<MPI_Comm>(h);
    }
  }
  c->handle = static_cast<MPI_Comm>(comms_.size());
  comms_.push_back(std::move(c));
  monitor().comm_changed(*comms_.back());
  const MPI_Comm handle = comms_.back()->handle;
  membership_changed(*comms_.back());
  return handle;
}

void CommTable::remove(MPI_Comm handle) {
  if (handle > MPI_COMM_SELF && static_cast<std::size_t>(handle) < comms_.size()) {
    if (comms_[static_cast<std::size_t>(handle)]) monitor().comm_freed(*comms_[static_cast<std::size_t>(handle)]);
    comms_[static_cast<std::size_t>(handle)].reset();
  }
}

void CommTable::detach(MPI_Comm handle) {
  if (handle <= MPI_COMM_SELF || static_cast<std::size_t>(handle) >= comms_.size()) return;
  std::unique_ptr<Comm>& slot = comms_[static_cast<std::size_t>(handle)];
  if (!slot) return;
  monitor().comm_freed(*slot);
  detached_.push_back(std::move(slot));
}

void CommTable::destroy_detached(const Comm* c) {
  auto it = std::find_if(detached_.begin(), detached_.end(),
                         [c](const std::unique_ptr<Comm>& d) { return d.get() == c; });
  if (it != detached_.end()) detached_.erase(it);
}

}  // namespace ftmpi
