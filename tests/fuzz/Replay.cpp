// The harnesses' main() when they are not built with libFuzzer (every ordinary build, CTest):
// runs LLVMFuzzerTestOneInput once over each file named, directories walked, and says how many;
// `--random N` runs N inputs of 5 to 16 random bytes as well, from a fixed seed, bytes 1-4 a
// little-endian number below 2^17 (for harnesses whose input is a recipe, fuzz_hostile_pt2: a
// bounded search that is the same on every run).
// A crash, a sanitizer's report or a hang (CTest's timeout) fails the test; a run over the seed
// corpus and the regressions takes seconds. `scripts/fuzz` builds them with libFuzzer instead.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    // libFuzzer's default -max_len: a fixture bigger than this is no input a fuzzer would make.
    constexpr std::uintmax_t kMaxInput = 16u << 20;
    int inputs = 0, skipped = 0;
    auto run = [&](const fs::path& file) {
        std::error_code ec;
        if (fs::file_size(file, ec) > kMaxInput) {
            ++skipped;
            return;
        }
        std::ifstream in(file, std::ios::binary);
        std::vector<char> bytes((std::istreambuf_iterator<char>(in)), {});
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        ++inputs;
    };
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--random" && i + 1 < argc) {
            std::mt19937 random(0);
            for (int n = std::atoi(argv[++i]); n > 0; --n) {
                std::vector<std::uint8_t> bytes(5 + random() % 12);
                for (std::uint8_t& b : bytes)
                    b = static_cast<std::uint8_t>(random());
                // Bytes 1-4 a number below 2^17, spread over its magnitudes: a recipe's size,
                // mostly small, now and then as big as the regressions' (seconds, not minutes).
                const std::uint32_t size = random() % (1u << (random() % 18));
                for (int i = 0; i < 4; ++i)
                    bytes[1 + i] = static_cast<std::uint8_t>(size >> (8 * i));
                LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
                ++inputs;
            }
            continue;
        }
        fs::path path = argv[i];
        if (fs::is_directory(path)) {
            for (const auto& entry : fs::recursive_directory_iterator(path))
                if (entry.is_regular_file())
                    run(entry.path());
        } else if (fs::is_regular_file(path)) {
            run(path);
        } else {
            std::fprintf(stderr, "%s: no such file or folder\n", argv[i]);
            return 2;
        }
    }
    std::printf("%d inputs ran, none crashed (%d larger than 16 MB left out)\n", inputs, skipped);
    return inputs > 0 ? 0 : 1;
}
