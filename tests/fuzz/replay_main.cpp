// Stands in for libFuzzer's main where libFuzzer is not available (GCC builds): runs the target
// once on every file named on the command line or found in a named directory (the seed corpus
// and tests/fuzz/regressions/), so that CTest replays them in every build, sanitizers included.
// Arguments starting with '-' (libFuzzer flags) are ignored.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

static int run_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
        return 1;
    }
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
    // A copy of exactly the input's size, so that a read past its end is an ASan error.
    std::vector<uint8_t> exact(bytes);
    LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
    return 0;
}

int main(int argc, char** argv) {
    int inputs = 0, failures = 0;
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-') continue;
        const fs::path p(argv[i]);
        if (fs::is_directory(p)) {
            for (const auto& e : fs::recursive_directory_iterator(p))
                if (e.is_regular_file()) {
                    failures += run_file(e.path());
                    ++inputs;
                }
        } else {
            failures += run_file(p);
            ++inputs;
        }
    }
    std::printf("replay: %d inputs ran without a crash\n", inputs - failures);
    return failures ? 1 : 0;
}
