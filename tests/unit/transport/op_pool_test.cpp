// The op-record free list, the intrusive pending list and the completion backlog: the pieces
// the hot path leans on to stay allocation-free.
#include <catch2/catch.hpp>

#include <set>
#include <vector>

#include "completion_backlog.h"
#include "op_record.h"

using namespace ftmpi::transport;

TEST_CASE("OpPool hands out distinct, stable records and reuses freed ones") {
  OpPool pool;
  std::vector<OpRecord*> ops;
  for (int i = 0; i < 1000; ++i) ops.push_back(pool.get());  // grows over several chunks
  REQUIRE(std::set<OpRecord*>(ops.begin(), ops.end()).size() == 1000);
  REQUIRE(pool.in_use() == 1000);
  OpRecord* freed = ops[500];
  pool.put(freed);
  REQUIRE(pool.get() == freed);  // LIFO: the warm record comes back first
  for (OpRecord* op : ops) pool.put(op);
  REQUIRE(pool.in_use() == 0);
}

TEST_CASE("OpRecord is what libfabric's op_context points at") {
  OpRecord op{};
  void* ctx = &op.fi_ctx;
  REQUIRE(OpRecord::from_context(ctx) == &op);
}

TEST_CASE("OpList removes from any position and keeps order") {
  OpRecord r[4]{};
  OpList list;
  for (auto& op : r) list.push_back(&op);
  list.remove(&r[1]);
  list.remove(&r[3]);
  REQUIRE(list.head() == &r[0]);
  REQUIRE(r[0].next == &r[2]);
  REQUIRE(r[2].next == nullptr);
  REQUIRE(list.pop_front() == &r[0]);
  REQUIRE(list.pop_front() == &r[2]);
  REQUIRE(list.empty());
  list.push_back(&r[1]);
  REQUIRE(list.take_all() == &r[1]);
  REQUIRE(list.empty());
}

TEST_CASE("CompletionBacklog drains in order, in pieces") {
  CompletionBacklog backlog;
  REQUIRE(backlog.empty());
  int ctx[5];
  for (int& c : ctx) {
    Completion comp;
    comp.context = &c;
    backlog.push(comp);
  }
  Completion out[3];
  REQUIRE(backlog.drain(out, 3) == 3);
  REQUIRE(out[0].context == &ctx[0]);
  REQUIRE(out[2].context == &ctx[2]);
  REQUIRE(backlog.drain(out, 3) == 2);
  REQUIRE(out[1].context == &ctx[4]);
  REQUIRE(backlog.empty());
  REQUIRE(backlog.drain(out, 3) == 0);
}
