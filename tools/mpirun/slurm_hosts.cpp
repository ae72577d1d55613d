// Slurm's compressed forms: SLURM_JOB_NODELIST ("n[01-03,7],m5") and SLURM_TASKS_PER_NODE
// ("2(x3),1"), expanded as `scontrol show hostnames` does.
#include <cstdlib>

#include "host_plan.h"

namespace ftmpi::mpirun {

namespace {

// A nodelist far larger than any machine is bad input, not a reason to allocate gigabytes.
constexpr std::size_t kMaxNodes = 65536;

bool all_digits(std::string_view s) {
    return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// "01-03,7" -> 01 02 03 7: a range keeps the width of its first bound ("8-10" -> 8 9 10).
HostStatus expand_ranges(std::string_view inside, std::vector<std::string>& out, std::string& why) {
    std::size_t start = 0;
    while (start <= inside.size()) {
        std::size_t comma = inside.find(',', start);
        if (comma == std::string_view::npos) comma = inside.size();
        std::string_view item = inside.substr(start, comma - start);
        std::size_t dash = item.find('-');
        std::string_view lo = item.substr(0, dash);
        std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
        if (!all_digits(lo) || !all_digits(hi)) {
            why = "cannot parse range '" + std::string(item) + "'";
            return HostStatus::bad_syntax;
        }
        const unsigned long a = std::strtoul(std::string(lo).c_str(), nullptr, 10);
        const unsigned long b = std::strtoul(std::string(hi).c_str(), nullptr, 10);
        if (b < a || b - a >= kMaxNodes || out.size() + (b - a + 1) > kMaxNodes) {
            why = "range '" + std::string(item) + "' is reversed or too large";
            return HostStatus::bad_syntax;
        }
        for (unsigned long v = a; v <= b; ++v) {
            std::string digits = std::to_string(v);
            if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
            out.push_back(std::move(digits));
        }
        start = comma + 1;
    }
    return HostStatus::ok;
}

// One name of the list, possibly with several bracket groups: "r[1-2]n[1-2]" -> r1n1 r1n2 r2n1 r2n2.
HostStatus expand_name(std::string_view name, std::vector<std::string>& out, std::string& why) {
    std::vector<std::string> partial{""};
    std::size_t pos = 0;
    while (pos < name.size()) {
        std::size_t open = name.find('[', pos);
        std::string_view literal = name.substr(pos, open == std::string_view::npos ? std::string_view::npos : open - pos);
        if (literal.find(']') != std::string_view::npos) {
            why = "unbalanced ']' in '" + std::string(name) + "'";
            return HostStatus::bad_syntax;
        }
        for (auto& p : partial) p += literal;
        if (open == std::string_view::npos) break;
        std::size_t close = name.find(']', open);
        if (close == std::string_view::npos || name.substr(open + 1, close - open - 1).find('[') != std::string_view::npos) {
            why = "unbalanced '[' in '" + std::string(name) + "'";
            return HostStatus::bad_syntax;
        }
        std::vector<std::string> numbers;
        if (HostStatus st = expand_ranges(name.substr(open + 1, close - open - 1), numbers, why); st != HostStatus::ok)
            return st;
        if (partial.size() * numbers.size() > kMaxNodes) {
            why = "'" + std::string(name) + "' names more than " + std::to_string(kMaxNodes) + " nodes";
            return HostStatus::bad_syntax;
        }
        std::vector<std::string> next;
        next.reserve(partial.size() * numbers.size());
        for (const auto& p : partial)
            for (const auto& n : numbers) next.push_back(p + n);
        partial = std::move(next);
        pos = close + 1;
    }
    if (out.size() + partial.size() > kMaxNodes) {
        why = "more than " + std::to_string(kMaxNodes) + " nodes";
        return HostStatus::bad_syntax;
    }
    for (auto& p : partial) {
        if (p.empty()) {
            why = "empty node name";
            return HostStatus::bad_syntax;
        }
        out.push_back(std::move(p));
    }
    return HostStatus::ok;
}

}  // namespace

HostStatus expand_slurm_nodelist(std::string_view list, std::vector<std::string>& names, std::string& why) {
    std::vector<std::string> out;
    // Split at the commas outside brackets.
    std::size_t start = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        const char c = i < list.size() ? list[i] : ',';
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (depth < 0 || depth > 1) {
            why = "unbalanced brackets in '" + std::string(list) + "'";
            return HostStatus::bad_syntax;
        }
        if (c != ',' || depth != 0) continue;
        if (HostStatus st = expand_name(list.substr(start, i - start), out, why); st != HostStatus::ok) return st;
        start = i + 1;
    }
    if (depth != 0) {
        why = "unbalanced brackets in '" + std::string(list) + "'";
        return HostStatus::bad_syntax;
    }
    names = std::move(out);
    return HostStatus::ok;
}

HostStatus expand_slurm_tasks(std::string_view list, std::vector<std::uint32_t>& tasks, std::string& why) {
    std::vector<std::uint32_t> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string_view::npos) comma = list.size();
        std::string_view item = list.substr(start, comma - start);
        std::string_view count = item.substr(0, item.find('('));
        std::string_view repeat = "1";
        if (item.size() > count.size()) {
            // "N(xM)"
            std::string_view rest = item.substr(count.size());
            if (rest.size() < 4 || rest.substr(0, 2) != "(x" || rest.back() != ')') {
                why = "cannot parse '" + std::string(item) + "'";
                return HostStatus::bad_syntax;
            }
            repeat = rest.substr(2, rest.size() - 3);
        }
        if (!all_digits(count) || !all_digits(repeat)) {
            why = "cannot parse '" + std::string(item) + "'";
            return HostStatus::bad_syntax;
        }
        const unsigned long n = std::strtoul(std::string(count).c_str(), nullptr, 10);
        const unsigned long m = std::strtoul(std::string(repeat).c_str(), nullptr, 10);
        if (n == 0 || n > 65535 || m == 0 || m > kMaxNodes || out.size() + m > kMaxNodes) {
            why = "'" + std::string(item) + "' is out of range";
            return HostStatus::bad_syntax;
        }
        out.insert(out.end(), m, static_cast<std::uint32_t>(n));
        start = comma + 1;
    }
    tasks = std::move(out);
    return HostStatus::ok;
}

}  // namespace ftmpi::mpirun
