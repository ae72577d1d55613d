// Failure-tolerant agreement among the live members of a communicator, the one mechanism behind
// every communicator constructor (dup, split, create) and therefore behind repair (SPEC 4.5).
// Each member contributes bytes; every member that returns gets the same Decision: the set of
// ranks the communicator lost and the contributions of all others. Algorithm and proof sketch:
// docs in ftmpi/CONSENSUS.md.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "comm.h"
#include "consensus_wire.h"
#include "engine.h"
#include "error.h"
#include "match_bits.h"

namespace ftmpi {

class Consensus {
 public:
  explicit Consensus(Engine* engine) : engine_(engine) {}
  // Posts the receive that carries all agreement traffic; call once after the engine is up.
  Err start();
  // A member failed. Decisions we got from it are forwarded to the next coordinator, which
  // may be waiting for members that already returned.
  void on_process_failed(std::uint32_t proc);
  // What an agreement is for. A correct program calls constructors and collectives in the same
  // order everywhere, but after a failure a member may skip collectives that others are in:
  // one whose receive from the dead process failed goes straight to the repair (a
  // construction) while the others vote on the outcome of the collective they were in
  // (api_coll_*.cpp). Such instances pair a construction with votes; the decision says so
  // (Decision::mixed), the same everywhere: the votes count as failed and the constructions
  // run again on the next instance, where the voters, having returned an error, join them.
  // `uniform` is a construction whose decision must also hold for the members that returned
  // it and died (MPIX_Comm_agree: a process acts on the value before it dies, e.g. ftckpt's
  // commit). Nobody returns such a decision before every live member holds it (commit phase,
  // CONSENSUS.md "Uniform decisions"); constructions and votes only need the survivors to agree.
  enum class Kind : std::uint8_t { construction = 'C', vote = 'V', uniform = 'U' };
  // A vote is one byte (then, for a settled one, the result): 0 failed here, 1 worked here,
  // kSettledVote a member returned success with the result that follows (settle()).
  static constexpr std::uint8_t kSettledVote = 2;
  // Blocks until this instance is decided. All live members must call it in the same order
  // on the same communicator. `solicit`: some members may have settled this instance (see
  // settle()); as coordinator, ask every member it has not heard from.
  Err agree(Comm* comm, Kind kind, const std::vector<std::uint8_t>& mine, Decision* out,
            bool solicit = false);

  // The ATOMIC fast path (CONSENSUS.md, "Settled collectives"): this member finished a
  // collective whose clean completion here implies every member took part, knows of no
  // failure, and ends with `result` like every member that succeeds. It takes the
  // communicator's next instance and holds "success, with this result" as its decision
  // without sending anything; a member that could not finish asks for it (and the members
  // that settled answer from the progress engine), so it returns success with the result too.
  // false (nothing taken): the instance was already decided without us; agree() finds it.
  bool settle(Comm* comm, const void* result, std::size_t bytes);
  // Whether the latest instance of `context` is a collective's (settled, or an outcome vote):
  // it may have been settled somewhere, and the members are to confirm it with one more
  // agreement before the settled decisions go away (MPI_Comm_free, MPI_Finalize;
  // coll_outcome.cpp). It depends on the sequence of calls only, so it is the same at every
  // member. close_settled(): that confirmation is done.
  bool settle_open(std::uint32_t context) const;
  void close_settled(std::uint32_t context);

  // The same agreement without blocking (MPIX_Comm_iagree / ishrink, ulfm.cpp): begin() takes
  // the communicator's next instance and contributes; the instance then advances from the
  // progress engine (arriving contributions and decisions, failures), whoever is waiting for
  // what. Once done(), collect() hands out the decision, or returns false when a construction
  // met votes (Kind) and the ticket moved on to the next instance. A ticket must stay where it
  // is (it is registered by address) until it is done. A ticket whose request the user freed
  // runs to its end all the same: the others may be waiting for its contribution or decision.
  class Ticket {
   public:
    Ticket() = default;
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;
    bool done() const { return done_; }

   private:
    friend class Consensus;
    Comm* comm_ = nullptr;
    Kind kind_ = Kind::construction;
    std::pair<std::uint32_t, std::uint32_t> key_;
    std::vector<std::uint8_t> mine_;  // with its kind byte in front
    int asked_ = -1;                  // the coordinator we sent our contribution to
    bool done_ = false;
    bool everyone_failed_ = false;
    bool declared_failed_ = false;  // this process was reported failed: nobody listens to it
    bool solicit_ = false;    // ask the members not heard from when coordinator (agree())
    bool solicited_ = false;  // ... done
  };
  void begin(Comm* comm, Kind kind, const std::vector<std::uint8_t>& mine, Ticket* t,
             bool solicit = false);
  // Drives the ticket once (also done from the progress engine); true when it is done.
  bool step(Ticket* t);
  // Requires t->done(). false: moved on to the next instance (a mixed one), wait again.
  bool collect(Ticket* t, Decision* out, Err* e);

  // A communicator starts using `context`: its agreements count from 0, and whatever an
  // earlier user of the same id left behind is forgotten (ids are reused after MPI_Comm_free).
  void reset_context(std::uint32_t context);
  // The same, and the undecided instances go too: a context id given back once every member
  // has said it freed its communicator (context_retire.h), so nothing here can be the next
  // user's yet.
  void forget_context(std::uint32_t context);
  std::uint32_t next_sequence(std::uint32_t context) { return sequence_of(context); }
  void set_next_sequence(std::uint32_t context, std::uint32_t seq) { next_seq_[context] = seq; }

  // Point-to-point notes on the agreement channel for the REBUILD hand-shake (rebuild.cpp):
  // `channel` and `tag` name the conversation, `type` (>= kFirstNoteType) the note. Notes
  // from processes not yet in this process's address table arrive too (the sender's process
  // index travels in the match bits).
  static constexpr int kFirstNoteType = 16;
  // A hot spare's first message to a rank, sent only to open the connection ahead of a repair
  // (spare_connect.h): dropped on arrival.
  static constexpr int kConnectNote = kFirstNoteType + 15;
  void post_note(std::uint32_t proc, std::uint32_t channel, std::uint32_t tag, int type,
                 std::vector<std::uint8_t> body);
  // Takes the note (channel, tag, type) from `from_proc`, if it has arrived.
  bool take_note(std::uint32_t channel, std::uint32_t tag, int type, std::uint32_t from_proc,
                 std::vector<std::uint8_t>* body);

 private:
  struct Instance {
    std::map<int, std::vector<std::uint8_t>> contributions;  // rank -> bytes
    bool decided = false;
    std::vector<std::uint8_t> decision;  // encoded Decision
    std::vector<std::uint32_t> procs;    // the members when the instance began
    std::uint32_t decided_by = 0;        // process the decision came from / was last sent to
    // Processes whose contribution reached us before we held a decision: once we hold one
    // (adopted, or settled), they get it. They asked us as their coordinator, or as the
    // coordinator's solicitation of a member that settled.
    std::vector<std::uint32_t> askers;
    // A uniform decision (a Kind::uniform contribution in it) is returned only once committed:
    // the member that drives it (the lowest live one holding it) saw every live member hold it.
    bool uniform = false;
    bool committed = false;
    std::vector<std::uint32_t> holders;  // processes known to hold the decision (the driver's view)
    std::vector<std::uint32_t> offered;  // processes the driver sent the decision to
  };
  // The decisions this member settled on a context (settle()): the latest two instances, by
  // the parity of their number (only the current and the previous one can still be asked for,
  // as with decided instances, forget_before()).
  struct Settled {
    bool valid = false;
    std::uint32_t seq = 0;
    int rank = -1;  // ours when we settled
    std::vector<std::uint8_t> result;
  };
  struct SettledLog {
    Settled slot[2];
    bool open = false;  // the latest instance of the context may have been settled somewhere
  };
  const Settled* settled(std::uint32_t context, std::uint32_t seq) const;
  static std::vector<std::uint8_t> settled_decision(const Settled& s);
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // (context id, sequence number)
  void answer_askers(Key key, Instance& inst, std::uint32_t except);

  Err post_receive();  // the standing receive of all agreement traffic
  static void on_message(Request& r, void* self);
  void handle(std::uint32_t from_proc, const std::vector<std::uint8_t>& msg, std::uint64_t bits);
  void send(std::uint32_t proc, Key key, int type, int my_rank,
            const std::vector<std::uint8_t>& body);
  static int coordinator(const Comm& c);
  void claim_instance(Ticket* t);
  void step_all();

  void forward_decision(Key key, Instance& inst);
  // Takes `decision` (from `from`) as this instance's decision.
  void adopt(Instance& inst, std::vector<std::uint8_t> decision, std::uint32_t from);
  // The commit phase of a uniform decision held here; true once it is committed.
  bool drive_commit(Ticket* t, Instance& inst);
  // Drops the instances of key's context that precede key by more than one (see the .cpp).
  void forget_before(Key key);

  Engine* engine_;
  std::map<Key, Instance> instances_;
  std::vector<Ticket*> active_;  // tickets not yet done, advanced on every event
  // The instances of this process's tickets not yet collected (done or not): forget_before()
  // keeps them. Several agreements of one communicator are under way at once when
  // MPI_Comm_idup runs several duplications (nbc.h): a later one may be decided, and collected,
  // before an earlier one.
  std::multiset<Key> uncollected_;
  // Sequence numbers travel in the 24 tag bits of the match bits and wrap there; only the
  // current and the previous instance of a context are ever kept (forget_before), so a
  // wrapped number never meets an old instance.
  static constexpr std::uint32_t kSeqMask = static_cast<std::uint32_t>(match::kMaxTag);
  std::uint32_t& sequence_of(std::uint32_t context) {
    return next_seq_.try_emplace(context, first_seq_).first->second;
  }
  std::map<std::uint32_t, std::uint32_t> next_seq_;  // per context id
  std::map<std::uint32_t, SettledLog> settled_;      // per context id
  // Where a context's numbering starts: 0, or FTMPI_TEST_AGREEMENT_SEQ_START (tests only: start
  // just before the wrap, see ft.memory.wrap).
  std::uint32_t first_seq_ = 0;
  struct NoteKey {
    std::uint32_t channel, tag;
    int type;
    std::uint32_t from;
    bool operator<(const NoteKey& o) const {
      return std::tie(channel, tag, type, from) < std::tie(o.channel, o.tag, o.type, o.from);
    }
  };
  std::map<NoteKey, std::vector<std::uint8_t>> notes_;
};

}  // namespace ftmpi
