// Times, in one process and on the same input, the module's own forward (warmed up), the
// interpreter running to the end with shapes only, and with full summaries. Prints a Markdown
// table with the per-node overhead ((run - forward) / nodes) for the README.
//
// Usage: bench_interpreter MODEL INPUT [MODEL INPUT]...   e.g. example:tinynet 3x4

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "Interpreter.h"
#include "ModelPrivate.h"

using namespace fxview;

namespace {

using Clock = std::chrono::steady_clock;

// Median wall time in microseconds of `repeats` calls, after `warmup` unmeasured calls.
double medianUs(const std::function<void()>& work, int warmup, int repeats) {
    for (int i = 0; i < warmup; ++i)
        work();
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        auto start = Clock::now();
        work();
        times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
    std::nth_element(times.begin(), times.begin() + repeats / 2, times.end());
    return times[static_cast<std::size_t>(repeats / 2)];
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
        Interpreter shapes(loaded.model, traceModel(*loaded.model), shapesOnly);
        Interpreter full(loaded.model, traceModel(*loaded.model));
        shapes.setInputs({spec}, 0);
        full.setInputs({spec}, 0);
        at::manual_seed(0);
        std::vector<c10::IValue> input = {at::randn(spec.shape)};
        torch::jit::Module& module = loaded.model->d().module;

        const bool big = spec.shape.size() == 4 && spec.shape[2] >= 128;
        const int warmup = big ? 3 : 20, repeats = big ? 11 : 101;
        double forward = medianUs([&] { module.forward(input); }, warmup, repeats);
        auto runOf = [](Interpreter& run) {
            return [&run] {
                run.reset();
                run.runToEnd();
            };
        };
        double shapesUs = medianUs(runOf(shapes), warmup, repeats);
        double fullUs = medianUs(runOf(full), warmup, repeats);
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
