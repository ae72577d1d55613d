// Replays a fuzz corpus through a harness without libFuzzer, so the gcc build (and its ASan
// pass) in CI catches a decoder regression on every input the fuzzer ever found interesting.
//
//   fuzz_replay_<harness> MIN_FILES DIR...   every regular file in each DIR, one call each;
//                                            fails if fewer than MIN_FILES were found (a lost
//                                            corpus must not turn into a test that passes).
// A finding aborts inside the harness (its oracles) or under the sanitizers.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return out;
    while (dirent* e = readdir(d)) {
        std::string path = dir + "/" + e->d_name;
        struct stat st {};
        if (e->d_name[0] != '.' && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) out.push_back(path);
    }
    closedir(d);
    std::sort(out.begin(), out.end());  // a reproducible order for a reproducible failure
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s MIN_FILES DIR...\n", argv[0]);
        return 2;
    }
    long min_files = std::strtol(argv[1], nullptr, 10);
    long replayed = 0;
    for (int i = 2; i < argc; ++i) {
        for (const std::string& path : files_in(argv[i])) {
            std::ifstream in(path, std::ios::binary);
            std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            // The one-line trace that names the culprit if the next call aborts.
            std::fprintf(stderr, "replay %s (%zu bytes)\n", path.c_str(), bytes.size());
            LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
            ++replayed;
        }
    }
    std::printf("replayed %ld inputs\n", replayed);
    if (replayed < min_files) {
        std::fprintf(stderr, "only %ld corpus files (expected at least %ld): corpus missing?\n", replayed, min_files);
        return 1;
    }
    return 0;
}
