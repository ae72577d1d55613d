#include "ftmpi_proto/heartbeat.h"

namespace ftmpi::proto {

bool heartbeat_config_valid(const HeartbeatConfig& c, std::string& why) {
    using std::chrono::milliseconds;
    constexpr milliseconds kMax{3600 * 1000};
    if (c.period < milliseconds(1) || c.period > kMax) {
        why = "heartbeat period must be between 1 ms and 1 hour";
        return false;
    }
    if (c.timeout > kMax) {
        why = "heartbeat timeout must be at most 1 hour";
        return false;
    }
    // One heartbeat delayed by a scheduler hiccup must not count as a failure.
    if (c.timeout < 2 * c.period) {
        why = "heartbeat timeout (" + std::to_string(c.timeout.count()) + " ms) must be at least twice the period (" +
              std::to_string(c.period.count()) + " ms)";
        return false;
    }
    return true;
}

}  // namespace ftmpi::proto
