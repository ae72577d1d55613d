// The connect-ack check ftmpid applies before libpmix parses a new PMIx connection.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "pmix_connect_ack.h"

using ftmpi::daemon::pmix_connect_ack_well_formed;

namespace {

// The body a PMIx 4.2.2 simple client sent (captured with strace from a rank of a job).
std::vector<std::uint8_t> real_body() {
    const std::string s("native\0" "\x00\x00\x00\x08" "\0\0\0\0\0\0\0\0" "\x00" "ftmpi-29892-1\0"
                        "\0\0\0\0" "4.2.2rc2\0" "v41\0" "\x01" "hash\0" "\0",
                        58);
    return std::vector<std::uint8_t>(s.begin(), s.end());
}

bool ok(const std::vector<std::uint8_t>& b) { return pmix_connect_ack_well_formed(b.data(), b.size(), nullptr); }

}  // namespace

TEST_CASE("a real client's connect-ack passes", "[pmix]") {
    CHECK(ok(real_body()));
}

TEST_CASE("every truncation of a real connect-ack before its gds name is refused", "[pmix]") {
    std::vector<std::uint8_t> b = real_body();
    const std::size_t gds_end = b.size() - 1;  // the trailing blob byte is optional
    for (std::size_t n = 0; n < gds_end; ++n) {
        std::vector<std::uint8_t> cut(b.begin(), b.begin() + static_cast<long>(n));
        INFO("length " << n);
        CHECK_FALSE(ok(cut));
    }
}

TEST_CASE("lying or unknown fields are refused", "[pmix]") {
    std::string why;
    std::vector<std::uint8_t> b = real_body();
    b[10] = 0x7f;  // credential length far past the body
    CHECK_FALSE(pmix_connect_ack_well_formed(b.data(), b.size(), &why));
    CHECK(why.find("credential") != std::string::npos);

    b = real_body();
    b[19] = 3;  // a tool asking for an identifier
    CHECK_FALSE(ok(b));

    b = real_body();
    b[0] = 'N';  // "Native": no such security module
    CHECK_FALSE(ok(b));

    b = real_body();
    b[47] = 'x';  // bfrops "x41"
    CHECK_FALSE(ok(b));

    b = real_body();
    b[52] = 'c';  // gds "cash"
    CHECK_FALSE(ok(b));

    b = real_body();
    b[38] = '.';  // version ".2.2rc2": PMIx would step past its end
    CHECK_FALSE(ok(b));

    std::vector<std::uint8_t> noise(64);
    for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<std::uint8_t>((i * 2654435761u) >> 11);
    CHECK_FALSE(ok(noise));
    CHECK_FALSE(pmix_connect_ack_well_formed(nullptr, 0, nullptr));
}
