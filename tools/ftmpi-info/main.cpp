// ftmpi-info: what this ftmpi installation is and which FTMPI_* environment variables it reads
// (like Open MPI's ompi_info or MPICH's CVAR listing), from the one knob table.
//
//   ftmpi-info              version and every knob: type, default, valid values, meaning, and the
//                           value set in this environment (an invalid one is flagged)
//   ftmpi-info --markdown   the knob table as Markdown (README.md's knob section)
//   ftmpi-info NAME...      only these knobs; exit 1 if one is unknown
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ftmpi_cli/cli.h"
#include "ftmpi_knobs/knobs.h"

namespace {

constexpr char kUsageLine[] = "usage: ftmpi-info [--markdown] [FTMPI_NAME...] | --help | --version";

void help(std::FILE* out) { std::fprintf(out, "%s\n", kUsageLine); }

const ftmpi::cli::Tool kTool{"ftmpi-info", kUsageLine, help};

// One knob as ftmpi-info shows it, including whether the value set here would be accepted.
void show(const ftmpi::knobs::Knob& k) {
  using namespace ftmpi::knobs;
  std::printf("%s  (%s, read by %s)\n    default: %s", k.name, type_name(k.type), k.layer,
              *k.default_value ? k.default_value : "see below");
  std::string valid = valid_values(k);
  if (!valid.empty()) std::printf("   valid: %s", valid.c_str());
  std::printf("\n    %s\n", k.meaning);
  if (const char* now = std::getenv(k.name); now != nullptr) {
    std::string why;
    bool ok = parse(k, now, &why).has_value() || *now == '\0';
    std::printf("    set here: '%s'%s%s\n", now, ok ? "" : "  INVALID, expected ", ok ? "" : why.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool markdown = false, version = false;
  std::vector<std::string> names;
  CLI::App app{"ftmpi-info"};
  app.add_flag("--version", version);
  app.add_flag("--markdown", markdown);
  // Everything from the first knob name on is a knob name.
  app.add_option("names", names)->check(CLI::Validator(
      [](const std::string& word) {
        return word.rfind("FTMPI_", 0) == 0 ? std::string() : "unknown argument '" + word + "'";
      },
      "FTMPI_NAME"));
  if (auto exit_code = ftmpi::cli::parse(app, kTool, argc, argv)) return *exit_code;
  if (version) {
    std::printf("%s\n", ftmpi::cli::version_line("ftmpi-info").c_str());
    return 0;
  }
  if (!names.empty()) {
    int rc = 0;
    for (const std::string& name : names) {
      const ftmpi::knobs::Knob* k = ftmpi::knobs::find(name.c_str());
      if (k == nullptr) {
        std::fprintf(stderr, "ftmpi-info: no knob called %s\n", name.c_str());
        rc = 1;
        continue;
      }
      show(*k);
    }
    return rc;
  }
  if (markdown) {
    ftmpi::knobs::print_table(stdout, /*markdown=*/true);
    return 0;
  }
  std::printf("ftmpi %s\n\nEnvironment variables (FTMPI_*):\n\n", FTMPI_VERSION);
  for (const auto* k = ftmpi::knobs::table_begin(); k != ftmpi::knobs::table_end(); ++k) show(*k);
  return 0;
}
