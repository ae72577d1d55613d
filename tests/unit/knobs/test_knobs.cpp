// The knob table and its one parser (knobs/include/ftmpi_knobs/knobs.h).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>

#include "ftmpi/coll/tuning.h"
#include "ftmpi_knobs/knobs.h"
#include "ftmpi_proto/modes.h"

using namespace ftmpi::knobs;

namespace {
std::optional<Value> parse_as(Id id, const char* text) { return parse(knob(id), text); }
}  // namespace

TEST_CASE("the table is well formed", "[knobs]") {
  std::set<std::string> names;
  int index = 0;
  for (const Knob* k = table_begin(); k != table_end(); ++k, ++index) {
    INFO(k->name);
    CHECK(static_cast<int>(k->id) == index);
    CHECK(std::string(k->name).rfind("FTMPI_", 0) == 0);
    CHECK(names.insert(k->name).second);
    CHECK(std::string(k->meaning).size() > 10);
    CHECK(find(k->name) == k);
    if (k->type == Type::choice) CHECK(std::string(k->choices).size() > 0);
    // A default is spelled like a user's value, so the one parser must accept it.
    if (*k->default_value != '\0') CHECK(parse(*k, k->default_value).has_value());
  }
  CHECK(find("FTMPI_NO_SUCH_KNOB") == nullptr);
}

TEST_CASE("flags", "[knobs]") {
  for (const char* on : {"1", "yes", "ON", "true"}) CHECK(parse_as(Id::shm_cma, on)->integer == 1);
  for (const char* off : {"0", "no", "Off", "FALSE"}) CHECK(parse_as(Id::shm_cma, off)->integer == 0);
  for (const char* bad : {"2", "", "1x", "y"}) CHECK_FALSE(parse_as(Id::shm_cma, bad));
}

TEST_CASE("integers: decimal, in range, nothing else", "[knobs]") {
  CHECK(parse_as(Id::shm_rings, "1")->integer == 1);
  CHECK(parse_as(Id::shm_rings, "65536")->integer == 65536);
  std::string why;
  CHECK_FALSE(parse(knob(Id::shm_rings), "65537", &why));
  CHECK(why == "an integer in [1, 65536]");
  for (const char* bad : {"0", "-1", " 5", "5 ", "0x10", "12k", "abc", "", "99999999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(parse_as(Id::shm_rings, bad));
  }
}

TEST_CASE("sizes take K/M/G and refuse overflow", "[knobs]") {
  CHECK(parse_as(Id::coll_bcast_large, "4096")->integer == 4096);
  CHECK(parse_as(Id::coll_bcast_large, "64k")->integer == 64 << 10);
  CHECK(parse_as(Id::coll_bcast_large, "2M")->integer == 2 << 20);
  CHECK(parse_as(Id::coll_bcast_large, "1G")->integer == 1 << 30);
  for (const char* bad : {"-5", "12x", "1KB", "K", "17179869184G"}) {
    INFO(bad);
    CHECK_FALSE(parse_as(Id::coll_bcast_large, bad));
  }
  CHECK_FALSE(parse_as(Id::coll_bcast_segment, "0"));  // 0 would never end the chain
}

TEST_CASE("numbers are finite decimals in range", "[knobs]") {
  CHECK(parse_as(Id::transport_retry_timeout, "0")->number == 0);
  CHECK(parse_as(Id::transport_retry_timeout, "2.5")->number == 2.5);
  for (const char* bad : {"inf", "nan", "-1", "1e10", "5s", ""}) {
    INFO(bad);
    CHECK_FALSE(parse_as(Id::transport_retry_timeout, bad));
  }
}

TEST_CASE("choices are case-insensitive and canonical", "[knobs]") {
  CHECK(parse_as(Id::comm_mode, "SHRINK")->text == "shrink");
  CHECK(parse_as(Id::msg_mode, "reset")->text == "reset");
  std::string why;
  CHECK_FALSE(parse(knob(Id::comm_mode), "shrinkk", &why));
  CHECK(why.find("abort|shrink") != std::string::npos);
}

TEST_CASE("the modes mpirun and ftmpid know are all valid knob values", "[knobs]") {
  // Adding a mode to daemon/proto without the table would make the library ignore it.
  for (int i = 0; i < static_cast<int>(ftmpi::proto::CommMode::count_); ++i) {
    const char* name = ftmpi::proto::to_string(static_cast<ftmpi::proto::CommMode>(i));
    INFO(name);
    CHECK(parse_as(Id::comm_mode, name));
  }
  for (int i = 0; i < static_cast<int>(ftmpi::proto::MsgMode::count_); ++i) {
    CHECK(parse_as(Id::msg_mode, ftmpi::proto::to_string(static_cast<ftmpi::proto::MsgMode>(i))));
  }
}

TEST_CASE("the collectives' built-in defaults are the table's", "[knobs]") {
  const ftmpi::coll::Tuning t;
  auto dflt = [](Id id) { return static_cast<std::size_t>(parse(knob(id), knob(id).default_value)->integer); };
  CHECK(t.bcast_large == dflt(Id::coll_bcast_large));
  CHECK(t.bcast_pipeline == dflt(Id::coll_bcast_pipeline));
  CHECK(t.bcast_segment == dflt(Id::coll_bcast_segment));
  CHECK(t.allreduce_large == dflt(Id::coll_allreduce_large));
  CHECK(t.reduce_scatter_large == dflt(Id::coll_reduce_scatter_large));
  CHECK(t.gather_large == dflt(Id::coll_gather_large));
  CHECK(t.scatter_large == dflt(Id::coll_scatter_large));
  CHECK(t.allgather_large == dflt(Id::coll_allgather_large));
  CHECK(t.alltoall_large == dflt(Id::coll_alltoall_large));
  CHECK(t.allgather_direct == dflt(Id::coll_allgather_direct));
  CHECK(t.allreduce_direct == dflt(Id::coll_allreduce_direct));
  CHECK(t.barrier_fan == dflt(Id::coll_barrier_fan));
  CHECK(t.allreduce_fan == dflt(Id::coll_allreduce_fan));
  CHECK(t.alltoall_fan == dflt(Id::coll_alltoall_fan));
  CHECK(t.allgather_fan == dflt(Id::coll_allgather_fan));
  CHECK(t.direct_members == dflt(Id::coll_direct_members));
}

TEST_CASE("reading the environment: set, unset, empty, invalid", "[knobs]") {
  unsetenv("FTMPI_SHM_RINGS");
  CHECK(integer(Id::shm_rings) == 128);
  CHECK_FALSE(get_if_set(Id::shm_rings));
  setenv("FTMPI_SHM_RINGS", "", 1);
  CHECK(integer(Id::shm_rings) == 128);
  setenv("FTMPI_SHM_RINGS", "7", 1);
  CHECK(integer(Id::shm_rings) == 7);
  CHECK(raw(Id::shm_rings) == std::string("7"));
  // Invalid: the default, never a half-parsed value (strtoul would have taken 12 from "12abc").
  setenv("FTMPI_SHM_RINGS", "12abc", 1);
  CHECK(integer(Id::shm_rings) == 128);
  CHECK_FALSE(get_if_set(Id::shm_rings));
  CHECK(raw(Id::shm_rings) == std::string("12abc"));
  unsetenv("FTMPI_SHM_RINGS");
  // No fixed default: a zero value, and get_if_set says it is unset.
  unsetenv("FTMPI_SPIN_POLLS");
  CHECK_FALSE(get_if_set(Id::spin_polls));
}

TEST_CASE("the listing names every knob", "[knobs]") {
  char* buf = nullptr;
  std::size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  print_table(f, /*markdown=*/true);
  std::fclose(f);
  std::string text(buf, len);
  std::free(buf);
  for (const Knob* k = table_begin(); k != table_end(); ++k) {
    CHECK(text.find(std::string("`") + k->name + "`") != std::string::npos);
  }
}
