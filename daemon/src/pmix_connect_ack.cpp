// See pmix_connect_ack.h.
#include "pmix_connect_ack.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstring>
#include <initializer_list>

namespace ftmpi::daemon {

namespace {

constexpr std::size_t kMaxNamespace = 255;  // PMIX_MAX_NSLEN

class Reader {
public:
    Reader(const std::uint8_t* p, std::size_t n) : p_(p), left_(n) {}
    bool string(std::string& out) {
        if (left_ == 0) return false;  // p_ may be null then; memchr(nullptr, .., 0) is UB (UBSan)
        const void* nul = std::memchr(p_, '\0', left_);
        if (nul == nullptr) return false;
        std::size_t len = static_cast<const std::uint8_t*>(nul) - p_;
        out.assign(reinterpret_cast<const char*>(p_), len);
        skip(len + 1);
        return true;
    }
    bool u8(std::uint8_t& out) {
        if (left_ < 1) return false;
        out = *p_;
        skip(1);
        return true;
    }
    bool u32(std::uint32_t& out) {
        if (left_ < 4) return false;
        std::memcpy(&out, p_, 4);
        out = ntohl(out);
        skip(4);
        return true;
    }
    bool bytes(std::size_t n) {
        if (left_ < n) return false;
        skip(n);
        return true;
    }

private:
    void skip(std::size_t n) {
        p_ += n;
        left_ -= n;
    }
    const std::uint8_t* p_;
    std::size_t left_;
};

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (s == n) return true;
    return false;
}

// "4.2.2rc2": three dot-separated numbers first (PMIx steps over each dot blindly).
bool version_shaped(const std::string& v) {
    std::size_t i = 0;
    for (int part = 0; part < 3; ++part) {
        std::size_t start = i;
        while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
        if (i == start || i - start > 4) return false;
        if (part < 2) {
            if (i >= v.size() || v[i] != '.') return false;
            ++i;
        }
    }
    return true;
}

bool gds_list_known(const std::string& list) {
    std::size_t start = 0;
    for (;;) {
        std::size_t comma = list.find(',', start);
        std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!one_of(name, {"hash", "ds12", "ds21"})) return false;
        if (comma == std::string::npos) return true;
        start = comma + 1;
    }
}

bool fail(std::string* why, const char* what) {
    if (why != nullptr) *why = what;
    return false;
}

}  // namespace

bool pmix_connect_ack_well_formed(const std::uint8_t* body, std::size_t size, std::string* why) {
    Reader r(body, size);
    std::string psec, nspace, version, bfrops, gds;
    std::uint32_t cred_len = 0, rank = 0;
    std::uint8_t type = 0, buffer_type = 0;
    if (!r.string(psec) || !one_of(psec, {"native", "none"})) return fail(why, "unknown security module");
    if (!r.u32(cred_len) || !r.bytes(cred_len)) return fail(why, "credential longer than the message");
    if (!r.u8(type) || type != 0) return fail(why, "not a simple client (tools are not served)");
    if (!r.string(nspace) || nspace.empty() || nspace.size() > kMaxNamespace) return fail(why, "bad namespace");
    if (!r.u32(rank)) return fail(why, "no rank");
    if (!r.string(version) || !version_shaped(version)) return fail(why, "bad version string");
    if (version.compare(0, 4, "2.0.") == 0) return true;  // a 2.0 client stops here
    if (!r.string(bfrops) || !one_of(bfrops, {"v12", "v20", "v21", "v3", "v4", "v41"}))
        return fail(why, "unknown bfrops module");
    if (!r.u8(buffer_type) || (buffer_type != 1 && buffer_type != 2)) return fail(why, "bad buffer type");
    if (!r.string(gds) || !gds_list_known(gds)) return fail(why, "unknown gds module");
    return true;
}

}  // namespace ftmpi::daemon
