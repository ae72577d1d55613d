#include <catch2/catch.hpp>

#include "ftmpi_proto/frame.h"
#include "ftmpi_proto/state.h"
#include "render.h"

using namespace ftmpi;
using namespace ftmpi::tools;

namespace {

proto::JobInfo fake_job(std::uint32_t n, const std::string& comm_name = "MPI_COMM_WORLD") {
    proto::JobInfo j;
    j.id = "ftmpi-1-1";
    j.program = "./app";
    j.nprocs = n;
    j.comm_mode = proto::CommModeV::shrink;
    for (std::uint32_t r = 0; r < n; ++r) j.procs.push_back({r, static_cast<std::int32_t>(1000 + r), "node0", proto::RunStateV::running, 0, 0});
    proto::CommInfo c;
    c.name = comm_name;
    c.comm_mode = proto::CommModeV::shrink;
    for (std::uint32_t r = 0; r < n; ++r) c.procs.push_back({r, r, proto::ProcStateV::ok});
    j.comms.push_back(c);
    return j;
}

DaemonAnswer answer_with(const proto::JobInfo& j) {
    DaemonAnswer a;
    a.ok = true;
    a.socket = "/tmp/x.sock";
    a.snap.host.hostname = "node0";
    a.snap.jobs.push_back(j);
    return a;
}

}  // namespace

TEST_CASE("paper scenario: failed rank makes the box DETECTED with size 3 valid 2") {
    auto j = fake_job(3);
    j.comms[0].state = proto::CommStateV::detected;
    j.comms[0].procs[1].state = proto::ProcStateV::failed;
    auto box = comm_box(j, j.comms[0], 60, false);
    REQUIRE(box.size() == 6);
    CHECK(plain(box[0]).find("MPI_COMM_WORLD") != std::string::npos);
    CHECK(plain(box[0]).find("DETECTED -+") != std::string::npos);
    CHECK(plain(box[1]).find("size 3  valid 2") != std::string::npos);
    CHECK(plain(box[3]).find("| 0 | | 1x| | 2 |") != std::string::npos);
    for (const auto& l : box) CHECK(plain(l).size() == 60);
    CHECK(box[0][0].color == Color::comm_detected);
    // rank 1's cell is red, rank 0's green
    bool red = false, green = false;
    for (const auto& s : box[3]) {
        if (s.text == "| 1x|") red = s.color == Color::proc_failed;
        if (s.text == "| 0 |") green = s.color == Color::proc_ok;
    }
    CHECK(red);
    CHECK(green);
}

TEST_CASE("many ranks wrap inside the box and every line keeps the width") {
    auto j = fake_job(1000);
    auto box = comm_box(j, j.comms[0], 80, false);
    std::size_t cells = 0;
    for (const auto& l : box) {
        CHECK(plain(l).size() == 80);
        for (const auto& s : l)
            if (s.text.size() == 7 && s.text[0] == '|' && s.text[6] == '|') ++cells;
    }
    CHECK(cells == 1000);
}

TEST_CASE("long names are cut, never overflow") {
    auto j = fake_job(2, std::string(500, 'n'));
    for (int w : {12, 20, 40, 200}) {
        auto box = comm_box(j, j.comms[0], w, false);
        for (const auto& l : box) CHECK(plain(l).size() == static_cast<std::size_t>(w));
        CHECK(plain(box[0]).find('~') != std::string::npos);
    }
    auto d = comm_box(j, j.comms[0], 30, true);
    for (const auto& l : d) CHECK(plain(l).size() == 30);
}

TEST_CASE("control characters in names are not sent to the terminal") {
    auto j = fake_job(1, "evil\033[2Jname\n");
    auto box = comm_box(j, j.comms[0], 60, false);
    CHECK(plain(box[0]).find('\033') == std::string::npos);
    CHECK(plain(box[0]).find("evil?[2Jname?") != std::string::npos);
}

TEST_CASE("screen: tiny terminals, no jobs, scrolling, job switching") {
    ViewState v;
    std::vector<JobView> none;
    auto s = render_cominfo(none, v, 80, 24, "");
    CHECK(s.text().find("no jobs running") != std::string::npos);
    for (auto [w, h] : {std::pair{1, 1}, {5, 2}, {9, 40}, {0, 0}, {10, 3}, {200, 3}}) {
        ViewState t;
        std::vector<JobView> jobs{{proto::HostInfo{}, fake_job(64)}};
        auto sc = render_cominfo(jobs, t, w, h, "status");
        CHECK(static_cast<int>(sc.rows.size()) == std::max(h, 0));
        for (const auto& r : sc.rows) CHECK(static_cast<int>(r.size()) == std::max(w, 0));
    }
    std::vector<JobView> jobs{{proto::HostInfo{}, fake_job(500)}, {proto::HostInfo{}, fake_job(2)}};
    jobs[1].job.id = "second";
    v = ViewState{};
    v.scroll = 1 << 20;  // clamped to the last page
    auto sc = render_cominfo(jobs, v, 40, 10, "");
    CHECK(v.scroll > 0);
    CHECK(sc.rows[9].find('/') != std::string::npos);  // position indicator
    v.job = 1;
    v.scroll = 0;
    sc = render_cominfo(jobs, v, 80, 10, "");
    CHECK(sc.rows[0].find("job 2/2 second") != std::string::npos);
    v.job = 2;  // wraps
    sc = render_cominfo(jobs, v, 80, 10, "");
    CHECK(sc.rows[0].find("job 1/2") != std::string::npos);
    v.help = true;
    sc = render_cominfo(jobs, v, 80, 24, "");
    CHECK(sc.text().find("RECOVERED cyan") != std::string::npos);
}

TEST_CASE("json has exactly the documented fields") {
    auto j = fake_job(2, "a\"b");
    j.comms[0].state = proto::CommStateV::recovered;
    j.comms[0].procs[1].state = proto::ProcStateV::unavailable;
    std::string js = cominfo_json({answer_with(j)});
    CHECK(js ==
          "{\"jobs\":[{\"id\":\"ftmpi-1-1\",\"comms\":[{\"name\":\"a\\\"b\",\"context_id\":0,\"state\":\"RECOVERED\","
          "\"comm_mode\":\"SHRINK\",\"msg_mode\":\"NOP\",\"size\":2,\"valid\":1,\"procs\":[{\"rank\":0,\"state\":\"OK\","
          "\"host\":\"node0\",\"pid\":1000},{\"rank\":1,\"state\":\"UNAVAILABLE\",\"host\":\"node0\",\"pid\":1001}]}]}]}\n");
    CHECK(cominfo_json({}) == "{\"jobs\":[]}\n");
    CHECK(cominfo_text({}, 80, false) == "no jobs running\n");
    CHECK(cominfo_text({answer_with(j)}, 80, true).find("\033[36m") != std::string::npos);
    CHECK(cominfo_text({answer_with(j)}, 80, false).find('\033') == std::string::npos);
}

TEST_CASE("hostinfo shows a failed daemon as such") {
    DaemonAnswer dead;
    dead.socket = "/tmp/gone.sock";
    dead.pid = 42;
    dead.error = "cannot connect";
    auto text = hostinfo_text({dead, answer_with(fake_job(2))}, 100, false);
    CHECK(text.find("daemon pid 42  FAILED") != std::string::npos);
    CHECK(text.find("rank 1    pid 1001") != std::string::npos);
    CHECK(hostinfo_json({dead}).find("\"state\":\"FAILED\"") != std::string::npos);
}

TEST_CASE("json escapes control bytes and survives names that are not UTF-8") {
    auto a = answer_with(fake_job(1));
    a.snap.host.hostname = std::string("h\x01\n") + "\xff";  // a daemon may report any bytes
    a.snap.jobs[0].program = "caf\xc3\xa9";                    // valid UTF-8 passes through
    std::string js;
    REQUIRE_NOTHROW(js = hostinfo_json({a}));
    CHECK(js.find("\"host\":\"h\\u0001\\n\xef\xbf\xbd\"") != std::string::npos);
    CHECK(js.find("\"program\":\"caf\xc3\xa9\"") != std::string::npos);
    CHECK(js.find("\"load\":[0.0,0.0,0.0]") != std::string::npos);
    CHECK(js.back() == '\n');
}

TEST_CASE("snapshot and report encodings round-trip; garbage is refused") {
    proto::Snapshot s;
    s.host.hostname = "h";
    s.jobs.push_back(fake_job(3));
    s.jobs[0].comms[0].context_id = 8;
    s.jobs[0].comms[0].key_context = 4;
    auto bytes = proto::encode(s);
    proto::FrameDecoder dec;
    dec.feed(bytes.data(), bytes.size());
    proto::Frame f;
    REQUIRE(dec.next(f) == proto::ProtoStatus::ok);
    proto::Snapshot back;
    REQUIRE(proto::decode(f, back) == proto::ProtoStatus::ok);
    REQUIRE(back.jobs.size() == 1);
    CHECK(back.jobs[0].comms[0].size() == 3);
    CHECK(back.jobs[0].comms[0].context_id == 8);
    CHECK(back.jobs[0].comms[0].key_context == 4);
    CHECK(back.jobs[0].procs[2].pid == 1002);
    for (std::size_t cut = 0; cut < f.payload.size(); ++cut) {
        proto::Frame g = f;
        g.payload.resize(cut);
        CHECK(proto::decode(g, back) != proto::ProtoStatus::ok);
    }

    proto::CommReport r;
    r.jobid = "j";
    r.reporter = 2;
    r.comm = s.jobs[0].comms[0];
    auto rb = proto::encode_report(r);
    proto::CommReport rr;
    REQUIRE(proto::decode_report(rb.data(), rb.size(), rr) == proto::ProtoStatus::ok);
    CHECK(rr.comm.name == "MPI_COMM_WORLD");
    CHECK(rr.comm.procs.size() == 3);
    CHECK(rr.comm.context_id == 8);
    CHECK(rr.comm.key_context == 4);
    for (std::size_t cut = 0; cut < rb.size(); ++cut)
        CHECK(proto::decode_report(rb.data(), cut, rr) != proto::ProtoStatus::ok);
    std::vector<std::uint8_t> huge = rb;
    huge[huge.size() - 3 * 5 - 4] = 0xff;  // procs count far beyond the bytes left
    CHECK(proto::decode_report(huge.data(), huge.size(), rr) != proto::ProtoStatus::ok);

    // A rank's `finalized` and `traps_failures` records: header only; an unknown kind is refused.
    for (proto::ReportKind kind : {proto::ReportKind::finalized, proto::ReportKind::traps_failures}) {
        proto::CommReport fin;
        fin.kind = kind;
        fin.jobid = "j";
        fin.reporter = 5;
        auto fb = proto::encode_report(fin);
        REQUIRE(proto::decode_report(fb.data(), fb.size(), rr) == proto::ProtoStatus::ok);
        CHECK(rr.kind == kind);
        CHECK(rr.reporter == 5);
        fb[5] = 5;  // the kind byte, after magic and version
        CHECK(proto::decode_report(fb.data(), fb.size(), rr) == proto::ProtoStatus::malformed);
        fb[5] = 0;
        CHECK(proto::decode_report(fb.data(), fb.size(), rr) == proto::ProtoStatus::malformed);
    }
}
