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

#include "ftmpi_knobs/knobs.h"

namespace {

void usage(std::FILE* out) {
  std::fprintf(out, "usage: ftmpi-info [--markdown] [FTMPI_NAME...] | --help | --version\n");
}

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
  bool markdown = false;
  int first_name = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("ftmpi-info (ftmpi) %s\n", FTMPI_VERSION);
      return 0;
    } else if (std::strcmp(argv[i], "--markdown") == 0) {
      markdown = true;
    } else if (std::strncmp(argv[i], "FTMPI_", 6) == 0) {
      first_name = i;
      break;
    } else {
      std::fprintf(stderr, "ftmpi-info: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (first_name < argc) {
    int rc = 0;
    for (int i = first_name; i < argc; ++i) {
      const ftmpi::knobs::Knob* k = ftmpi::knobs::find(argv[i]);
      if (k == nullptr) {
        std::fprintf(stderr, "ftmpi-info: no knob called %s\n", argv[i]);
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
