// Token handling and mode parsing.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "ftmpi_proto/auth_token.h"
#include "ftmpi_proto/modes.h"

using namespace ftmpi::proto;

TEST_CASE("tokens are random, private and compared exactly", "[auth]") {
    std::string a, b;
    REQUIRE(token_generate(a) == ProtoStatus::ok);
    REQUIRE(token_generate(b) == ProtoStatus::ok);
    CHECK(a.size() == 64);
    CHECK(a != b);
    CHECK(token_equal(a, a));
    CHECK_FALSE(token_equal(a, b));
    CHECK_FALSE(token_equal(a, a.substr(1)));
    CHECK_FALSE(token_equal("", ""));

    char dir[] = "/tmp/ftmpi-token-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    std::string path = std::string(dir) + "/t.token";
    REQUIRE(token_write(path, a) == ProtoStatus::ok);
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    std::string read_back, why;
    REQUIRE(token_read(path, read_back, why) == ProtoStatus::ok);
    CHECK(read_back == a);

    chmod(path.c_str(), 0644);  // readable by others: must be refused
    CHECK(token_read(path, read_back, why) == ProtoStatus::auth_failed);
    unlink(path.c_str());
    CHECK(token_read(path, read_back, why) == ProtoStatus::io_error);
    rmdir(dir);
}

TEST_CASE("modes parse case-insensitively; reset is nop", "[modes]") {
    CHECK(parse_comm_mode("SHRINK") == CommMode::shrink);
    CHECK(parse_comm_mode("Rebuild_Append") == CommMode::rebuild_append);
    CHECK(parse_comm_mode("abort") == CommMode::abort);
    CHECK_FALSE(parse_comm_mode("shrinkk").has_value());
    CHECK_FALSE(parse_comm_mode("").has_value());
    CHECK(parse_msg_mode("RESET") == MsgMode::nop);
    CHECK(parse_msg_mode("nop") == MsgMode::nop);
    CHECK(parse_msg_mode("Cont") == MsgMode::cont);
    CHECK_FALSE(parse_msg_mode("continue").has_value());
    CHECK(std::string(to_string(CommMode::blank)) == "blank");
}
