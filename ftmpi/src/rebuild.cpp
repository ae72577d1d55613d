#include "rebuild.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <ftmpi/debug_log.h>

#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/wire.h"
#include "match_bits.h"
#include "monitor.h"

namespace ftmpi {
namespace {

std::uint64_t now_ms() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

// A welcome carries the failed processes the survivor knows of. The daemon's report of a death
// that happened before the replacement subscribed to reports (while it was starting) never
// reaches it; without this it would wait for such a process forever (in a collective, say).
std::vector<std::uint8_t> failed_list(Engine* engine) {
  proto::WireWriter w;
  w.u32_list(engine->failures().failed_procs());
  return std::move(w.bytes());
}

void adopt_failed_list(const std::vector<std::uint8_t>& body, Engine* engine) {
  proto::WireReader r(body);
  const std::vector<std::uint32_t> failed = r.u32_list();
  if (r.finish() != proto::ProtoStatus::ok) return;  // a welcome is from our own job's code: never happens
  for (std::uint32_t p : failed) engine->failures().mark_failed(p, FailureSource::agreement);
}

}  // namespace

int Rebuilder::timeout_ms() const {
  return static_cast<int>(knobs::integer(knobs::Id::rebuild_timeout)) * 1000;
}

Err Rebuilder::rebuild(Comm* w, const std::vector<int>& fill, std::uint32_t context,
                       const CommTable::ContextMask& used) {
  RebuildPlan plan;
  plan.base = next_index_;
  plan.count = static_cast<std::uint32_t>(fill.size());
  next_index_ += plan.count;  // advanced by every survivor alike, whatever happens next
  int leader_rank = -1;
  for (int r = 0; r < w->size() && leader_rank < 0; ++r) {
    if (!w->is_failed(r)) leader_rank = r;
  }
  if (leader_rank < 0) return fail_report(Err::other, "every process of %s has failed", w->name.c_str());
  plan.leader = w->procs[static_cast<std::size_t>(leader_rank)];
  if (w->comm_mode == FTMPI_COMM_MODE_REBUILD_APPEND) {
    for (int r = 0; r < w->size(); ++r) {
      if (!w->is_failed(r)) plan.world.push_back(w->procs[static_cast<std::size_t>(r)]);
    }
    for (std::uint32_t i = 0; i < plan.count; ++i) plan.world.push_back(plan.base + i);
  } else {
    plan.world = w->procs;
    for (std::uint32_t i = 0; i < plan.count; ++i) {
      plan.world[static_cast<std::size_t>(fill[i])] = plan.base + i;
    }
  }
  const bool nop = w->msg_mode == FTMPI_MSG_MODE_NOP;
  plan.context = nop ? context : w->context;
  plan.coll_context = context + 1;
  plan.comm_mode = w->comm_mode;
  plan.msg_mode = w->msg_mode;
  plan.coll_mode = w->coll_mode;
  plan.sequence = nop ? 0 : consensus_->next_sequence(w->context);
  plan.used = used;

  const std::uint32_t me = engine_->my_proc();
  std::vector<std::uint32_t> survivors;
  for (int r = 0; r < w->size(); ++r) {
    if (!w->is_failed(r)) survivors.push_back(w->procs[static_cast<std::size_t>(r)]);
  }
  // FTMPI_DEBUG: the repair's phases ("rebuild" lines; README, REBUILD with a hot spare).
  FTMPI_DLOG("rebuild", "%s: plan: %u new process(es) from index %u, leader process %u", w->name.c_str(),
             plan.count, plan.base, plan.leader);
  // Each replacement says hello once it can reach us; its hello carries its fabric address.
  std::vector<bool> joined(plan.count, false);
  std::vector<std::vector<std::uint8_t>> hello(plan.count);
  auto take_hellos = [&] {
    bool all = true;
    for (std::uint32_t i = 0; i < plan.count; ++i) {
      if (!joined[i]) joined[i] = consensus_->take_note(kChannel, plan.base, kHello, plan.base + i, &hello[i]);
      all = all && joined[i];
    }
    return all;
  };
  std::vector<std::uint8_t> spawned(1, 0);
  if (me == plan.leader) {
    std::string why;
    std::vector<int> ranks;  // the world ranks the new processes take (the launcher shows them)
    for (std::uint32_t i = 0; i < plan.count; ++i) {
      const auto at = std::find(plan.world.begin(), plan.world.end(), plan.base + i);
      ranks.push_back(static_cast<int>(at - plan.world.begin()));
    }
    spawned[0] = runtime_->spawn(plan.count, plan.base, plan.encode(), ranks, &why) ? 1 : 0;
    FTMPI_DLOG("rebuild", "spawn of %u from index %u answered (%s)", plan.count, plan.base,
               spawned[0] != 0 ? "started" : why.c_str());
    for (std::uint32_t s : survivors) {
      if (s != me) consensus_->post_note(s, kChannel, plan.base, kSpawned, spawned);
    }
    if (spawned[0] == 0) return fail(Err::other, "REBUILD of %s: %s", w->name.c_str(), why.c_str());
  } else {
    // The leader's note comes only after the spawn's answer travelled back to it (on several
    // hosts through its daemon and mpirun), often after the new processes' hellos: a hello
    // from every new process proves the spawn as well (the launcher answers once it started
    // them; a failed start says no hello), so either ends the wait.
    bool got = false;
    bool all_hello = false;
    engine_->wait_until([&] {
      got = consensus_->take_note(kChannel, plan.base, kSpawned, plan.leader, &spawned);
      all_hello = !got && take_hellos();
      return got || all_hello || engine_->is_failed(plan.leader);
    });
    if (!got && !all_hello) {
      return fail_report(Err::other, "rank %d, which was starting the replacements for %s, failed; repair again",
                  leader_rank, w->name.c_str());
    }
    FTMPI_DLOG("rebuild", "%s", got ? "leader's spawned note received" : "every new process said hello");
    if (got && (spawned.empty() || spawned[0] == 0)) {
      return fail(Err::other, "REBUILD of %s: the launcher could not start replacement processes",
                  w->name.c_str());
    }
  }

  const std::uint64_t deadline = now_ms() + static_cast<std::uint64_t>(timeout_ms());
  engine_->wait_until([&] {
    (void)take_hellos();
    bool all = true;
    for (std::uint32_t i = 0; i < plan.count; ++i) all = all && (joined[i] || engine_->is_failed(plan.base + i));
    return all || now_ms() > deadline;
  });
  FTMPI_DLOG("rebuild", "hello from the new process(es) (or they failed); inserting addresses");
  std::vector<std::vector<std::uint8_t>> addrs;
  for (std::uint32_t p = engine_->peer_count(); p < plan.base + plan.count; ++p) {
    addrs.emplace_back();
    if (!plan.is_new(p) || !joined[p - plan.base] || engine_->is_failed(p)) continue;
    // The hello's address spares a PMIx lookup (through mpirun when the new process runs on
    // another host); a hello without one (never sent by this library) falls back to it.
    addrs.back() = std::move(hello[p - plan.base]);
    std::string why;
    if (addrs.back().empty() && !runtime_->lookup_address(p, timeout_ms(), &addrs.back(), &why)) {
      addrs.back().clear();
      joined[p - plan.base] = false;
    }
  }
  std::string why;
  // A replacement that did not join in time is failed from here on (empty address).
  if (engine_->add_peers(addrs, FailureSource::rebuild, &why) != Err::ok) {
    return fail(Err::intern, "%s", why.c_str());
  }
  for (std::uint32_t i = 0; i < plan.count; ++i) {
    if (joined[i]) {
      consensus_->post_note(plan.base + i, kChannel, plan.base, kWelcome, failed_list(engine_));
    }
  }
  FTMPI_DLOG("rebuild", "addresses inserted, welcome sent");

  // The repaired world, every member OK. A replacement that died on the way, or a survivor
  // that died while we waited above, is a new failure of its rank: the caller's
  // membership_changed applies what FailureState recorded (never cleared, so a death reported
  // during the waits is not lost; it used to be, and the next MPI_Comm_dup hung).
  w->procs = plan.world;
  w->rank_of_proc.assign(std::max<std::size_t>(w->rank_of_proc.size(), plan.base + plan.count), -1);
  for (std::size_t r = 0; r < w->procs.size(); ++r) w->rank_of_proc[w->procs[r]] = static_cast<int>(r);
  w->rank = w->rank_of_proc[me];
  w->proc_state.assign(w->procs.size(), FTMPI_PROC_OK);
  w->failed.clear();
  w->acked = 0;
  if (nop) {
    w->context = plan.context;
    consensus_->reset_context(plan.context);
  }
  w->coll_context = plan.coll_context;
  return Err::ok;
}

// A survivor that published no address is dead. Another new process of the plan may simply
// not be known yet where this one asks: a hot spare starts its join the moment it hears its
// rank, and a fellow replacement on another host is registered only once that host's daemon
// heard of the spawn; there "not found" means "not yet". Taking it for dead left this process
// alone in thinking its world broken: it refused the first collective, which the others waited
// in. So a new process is asked again (every kRetryMs) until it is found, reported dead, or
// the repair's time is up, which is when the survivors give up on it too.
bool Rebuilder::lookup_member(std::uint32_t p, bool is_new, std::uint64_t deadline, std::vector<std::uint8_t>* addr) {
  constexpr std::uint64_t kRetryMs = 2;
  std::string why;
  if (runtime_->lookup_address(p, timeout_ms(), addr, &why)) return true;
  if (!is_new) return false;
  FTMPI_DLOG("rebuild", "join: new process %u not known yet (%s); asking again", p, why.c_str());
  bool found = false;
  std::uint64_t next = now_ms() + kRetryMs;
  engine_->wait_until([&] {
    const std::uint64_t now = now_ms();
    if (now >= next) {
      found = runtime_->lookup_address(p, timeout_ms(), addr, &why);
      next = now_ms() + kRetryMs;
    }
    return found || engine_->is_failed(p) || now > deadline;
  });
  return found;
}

Err Rebuilder::join(int default_comm_mode, int default_msg_mode) {
  RebuildPlan plan;
  if (!RebuildPlan::decode(runtime_->rebuild_plan(), &plan)) {
    return fail(Err::intern, "malformed FTMPI_REBUILD_PLAN in the environment");
  }
  const std::uint32_t me = static_cast<std::uint32_t>(runtime_->rank());
  if (!plan.is_new(me)) return fail(Err::intern, "process %u is not part of its rebuild plan", me);
  next_index_ = plan.base + plan.count;

  // Everybody in the new world is reachable; the rest of the indices are placeholders.
  std::vector<bool> member(plan.base + plan.count, false);
  for (std::uint32_t p : plan.world) {
    if (p < member.size()) member[p] = true;
  }
  FTMPI_DLOG("rebuild", "join: plan of %zu processes from index %u; looking up addresses", plan.world.size(),
             plan.base);
  // A hot spare may hold the original ranks already (spare_connect.h): those not in the plan
  // are dead, as an empty address below would say.
  const std::uint32_t known = engine_->peer_count();
  for (std::uint32_t p = 0; p < known; ++p) {
    if (!member[p]) engine_->failures().mark_failed(p, FailureSource::rebuild);
  }
  std::vector<std::vector<std::uint8_t>> addrs(plan.base + plan.count - std::min(known, plan.base + plan.count));
  const std::uint64_t lookup_deadline = now_ms() + static_cast<std::uint64_t>(timeout_ms());
  for (std::uint32_t p = known; p < plan.base + plan.count; ++p) {
    auto& addr = addrs[p - known];
    if (p == me) {
      addr = engine_->address();
    } else if (member[p] && !lookup_member(p, plan.is_new(p), lookup_deadline, &addr)) {
      addr.clear();  // it is gone already: a failure the application will see
    }
  }
  std::string why;
  if (engine_->add_peers(addrs, FailureSource::rebuild, &why) != Err::ok) {
    return fail(Err::intern, "%s", why.c_str());
  }

  comms_->init(plan.world, me, default_comm_mode, default_msg_mode);
  Comm* w = comms_->world();
  w->context = plan.context;
  w->coll_context = plan.coll_context;
  w->comm_mode = plan.comm_mode;
  w->msg_mode = plan.msg_mode;
  w->coll_mode = plan.coll_mode;
  w->errhandler = MPI_ERRORS_RETURN;  // REBUILD is a fault-tolerant mode
  comms_->adopt_contexts(plan.used);
  comms_->membership_changed(*w);  // members already known dead (no address to look up)
  consensus_->reset_context(plan.context);
  consensus_->set_next_sequence(plan.context, plan.sequence);

  std::vector<std::uint32_t> survivors;
  for (std::uint32_t p : plan.world) {
    if (!plan.is_new(p)) survivors.push_back(p);
  }
  FTMPI_DLOG("rebuild", "join: addresses inserted; hello to %zu survivors", survivors.size());
  // The hello carries our address: the survivor inserts it without looking it up.
  for (std::uint32_t s : survivors) consensus_->post_note(s, kChannel, plan.base, kHello, engine_->address());
  std::vector<bool> welcomed(survivors.size(), false);
  const std::uint64_t welcome_deadline = now_ms() + static_cast<std::uint64_t>(timeout_ms());
  engine_->wait_until([&] {
    bool all = true;
    for (std::size_t i = 0; i < survivors.size(); ++i) {
      if (!welcomed[i]) {
        std::vector<std::uint8_t> body;
        welcomed[i] = consensus_->take_note(kChannel, plan.base, kWelcome, survivors[i], &body);
        if (welcomed[i]) adopt_failed_list(body, engine_);
      }
      all = all && (welcomed[i] || engine_->is_failed(survivors[i]));
    }
    return all || now_ms() > welcome_deadline;
  });
  for (std::size_t i = 0; i < survivors.size(); ++i) {
    if (!welcomed[i] && !engine_->is_failed(survivors[i])) {
      return fail(Err::other, "process %u did not welcome this replacement within %d s", survivors[i],
                  timeout_ms() / 1000);
    }
  }
  FTMPI_DLOG("rebuild", "join: welcomed by every survivor");
  // A member that died meanwhile left the world DETECTED (the failure path): keep that.
  monitor().comm_changed(*w);
  return Err::ok;
}

}  // namespace ftmpi
