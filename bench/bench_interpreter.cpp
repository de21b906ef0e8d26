// Times, in one process and on the same input, the module's own forward (warmed up), the
// interpreter running to the end with shapes only, and with full summaries. Prints a Markdown
// table with the per-node overhead ((run - forward) / nodes) for docs/measurements.md.
//
// Usage: bench_interpreter MODEL INPUT [MODEL INPUT]...   e.g. example:tinynet 3x4

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "Importer.h"
#include "Interpreter.h"
#include "ModelPrivate.h"

using namespace fxview;

namespace {

using Clock = std::chrono::steady_clock;

// Median wall time in microseconds of each contender. The contenders take turns within every
// repetition, so a slow spell of this shared machine hits all of them alike.
std::vector<double> interleavedMediansUs(const std::vector<std::function<void()>>& contenders,
                                         int warmup, int repeats) {
    for (int i = 0; i < warmup; ++i)
        for (const auto& work : contenders)
            work();
    std::vector<std::vector<double>> times(contenders.size());
    for (int i = 0; i < repeats; ++i)
        for (std::size_t c = 0; c < contenders.size(); ++c) {
            auto start = Clock::now();
            contenders[c]();
            times[c].push_back(
                std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        }
    std::vector<double> medians;
    for (std::vector<double>& t : times) {
        std::nth_element(t.begin(), t.begin() + repeats / 2, t.end());
        medians.push_back(t[static_cast<std::size_t>(repeats / 2)]);
    }
    return medians;
}

std::string shortName(const std::string& source) {
    std::string name = source.substr(source.find_last_of('/') + 1);
    return name.substr(0, name.find(".pt"));
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3 || argc % 2 == 0) {
        std::fprintf(stderr, "usage: bench_interpreter MODEL INPUT [MODEL INPUT]...\n");
        return 2;
    }
    torch::NoGradGuard noGrad;
    std::printf("| model | input | nodes | forward | run, shapes only | per node | ratio "
                "| run, full summaries | per node | ratio |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int a = 1; a + 1 < argc; a += 2) {
        LoadResult loaded = loadModel(argv[a]);
        if (!loaded.ok()) {
            std::fprintf(stderr, "%s\n", loaded.error.c_str());
            return 1;
        }
        InputSpec spec;
        std::string error;
        if (!parseInputSpec(argv[a + 1], spec, error)) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 2;
        }
        RunOptions shapesOnly;
        shapesOnly.fullSummaries = false;
        Interpreter shapes(loaded.model, importGraph(*loaded.model), shapesOnly);
        Interpreter full(loaded.model, importGraph(*loaded.model));
        shapes.setInputs({spec}, 0);
        full.setInputs({spec}, 0);
        at::manual_seed(0);
        std::vector<c10::IValue> input = {at::randn(spec.shape)};
        torch::jit::Module& module = loaded.model->d().module;

        const bool big = spec.shape.size() == 4 && spec.shape[2] >= 128;
        const int warmup = big ? 3 : 20, repeats = big ? 21 : 201;
        auto runOf = [](Interpreter& run) {
            return [&run] {
                run.reset();
                run.runToEnd();
            };
        };
        std::vector<double> us = interleavedMediansUs(
            {[&] { module.forward(input); }, runOf(shapes), runOf(full)}, warmup, repeats);
        double forward = us[0], shapesUs = us[1], fullUs = us[2];
        int nodes = shapes.graph().nodeCount(true);
        std::printf(
            "| %s | %s | %d | %.1f µs | %.1f µs | %.2f µs | %.2f× | %.1f µs | %.2f µs | %.2f× |\n",
            shortName(argv[a]).c_str(), argv[a + 1], nodes, forward, shapesUs,
            (shapesUs - forward) / nodes, shapesUs / forward, fullUs, (fullUs - forward) / nodes,
            fullUs / forward);
        std::fflush(stdout);
    }
    return 0;
}
