#include "info.h"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "library.h"

namespace ftmpi {

const std::string* Info::find(const std::string& key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Info::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;  // a key keeps its place in the order when its value changes
      return;
    }
  }
  entries.emplace_back(key, value);
}

bool Info::erase(const std::string& key) {
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (it->first == key) {
      entries.erase(it);
      return true;
    }
  }
  return false;
}

// strnlen bounds the scan: a key or value without its terminator is not read past the limit.
Err check_info_key(const char* key, std::string* out) {
  if (key == nullptr) return fail(Err::info_key, "the info key is NULL");
  const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0) return fail(Err::info_key, "the info key is empty");
  if (n > MPI_MAX_INFO_KEY) {
    return fail(Err::info_key, "the info key is longer than MPI_MAX_INFO_KEY (%d)", MPI_MAX_INFO_KEY);
  }
  out->assign(key, n);
  return Err::ok;
}

Err check_info_value(const char* value, std::string* out) {
  if (value == nullptr) return fail(Err::info_value, "the info value is NULL");
  const std::size_t n = strnlen(value, MPI_MAX_INFO_VAL + 1);
  if (n > MPI_MAX_INFO_VAL) {
    return fail(Err::info_value, "the info value is longer than MPI_MAX_INFO_VAL (%d)",
                MPI_MAX_INFO_VAL);
  }
  out->assign(value, n);
  return Err::ok;
}

InfoTable::InfoTable() {
  infos_.emplace_back();                        // MPI_INFO_NULL
  infos_.push_back(std::make_unique<Info>());  // MPI_INFO_ENV
}

Err InfoTable::lookup(MPI_Info handle, const Info** out) {
  Info* info = nullptr;
  if (handle == MPI_INFO_ENV) {
    fill_env();
    *out = infos_[MPI_INFO_ENV].get();
    return Err::ok;
  }
  if (Err e = lookup_mutable(handle, &info); e != Err::ok) return e;
  *out = info;
  return Err::ok;
}

Err InfoTable::lookup_mutable(MPI_Info handle, Info** out) {
  if (handle == MPI_INFO_NULL) return fail(Err::info, "the info object is MPI_INFO_NULL");
  if (handle == MPI_INFO_ENV) return fail(Err::info, "MPI_INFO_ENV is predefined and read-only");
  if (handle < 0 || static_cast<std::size_t>(handle) >= infos_.size() ||
      infos_[static_cast<std::size_t>(handle)] == nullptr) {
    return fail(Err::info, "%d is not a live info object", handle);
  }
  *out = infos_[static_cast<std::size_t>(handle)].get();
  return Err::ok;
}

MPI_Info InfoTable::create(Info contents) {
  auto info = std::make_unique<Info>(std::move(contents));
  if (!free_slots_.empty()) {
    MPI_Info h = free_slots_.back();
    free_slots_.pop_back();
    infos_[static_cast<std::size_t>(h)] = std::move(info);
    return h;
  }
  infos_.push_back(std::move(info));
  return static_cast<MPI_Info>(infos_.size() - 1);
}

Err InfoTable::free(MPI_Info* handle) {
  Info* info = nullptr;
  if (Err e = lookup_mutable(*handle, &info); e != Err::ok) return e;
  infos_[static_cast<std::size_t>(*handle)].reset();
  free_slots_.push_back(*handle);
  *handle = MPI_INFO_NULL;
  return Err::ok;
}

std::size_t InfoTable::live() const {
  std::size_t n = 0;
  for (std::size_t i = 2; i < infos_.size(); ++i) n += infos_[i] != nullptr;
  return n;
}

std::vector<std::string> process_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> words;
  for (std::size_t pos = 0; pos < cmdline.size();) {
    std::size_t end = cmdline.find('\0', pos);
    if (end == std::string::npos) end = cmdline.size();
    words.push_back(cmdline.substr(pos, end - pos));
    pos = end + 1;
  }
  return words;
}

void set_launch_keys(Info& info, const std::vector<std::string>& words) {
  if (!words.empty()) info.set("command", words[0].substr(0, MPI_MAX_INFO_VAL));
  std::string argv;
  for (std::size_t i = 1; i < words.size(); ++i) argv += (i > 1 ? " " : "") + words[i];
  if (words.size() > 1) info.set("argv", argv.substr(0, MPI_MAX_INFO_VAL));
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) != nullptr) info.set("wdir", std::string(cwd).substr(0, MPI_MAX_INFO_VAL));
}

// The command line comes from /proc/self/cmdline rather than MPI_Init's arguments, which may
// be NULL (MPI_Init(NULL, NULL) is legal); the other keys from what the runtime told us, so
// before MPI_Init only the command line and directory are known, and nothing is latched.
void InfoTable::fill_env() {
  if (env_filled_) return;
  Info& env = *infos_[MPI_INFO_ENV];
  set_launch_keys(env, process_command_line());
  if (!lib().initialized) return;
  env_filled_ = true;
  env.set("maxprocs", std::to_string(lib().runtime.size()));
  if (!lib().runtime.hostname().empty()) env.set("host", lib().runtime.hostname().substr(0, MPI_MAX_INFO_VAL));
  static const char* const kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                        "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
  const int level = lib().thread_level;
  if (level >= 0 && level <= 3) env.set("thread_level", kLevels[level]);
}

InfoTable& infos() {
  static InfoTable table;
  return table;
}

}  // namespace ftmpi
