// Two runs side by side (RunComparison.h): the matching of their nodes, the metrics of one pair of
// values, and the loop that steps run A and lets run B catch up after each of A's nodes.

#include "RunComparison.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/script.h>

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "ComparisonValues.h"
#include "InterpreterPrivate.h"
#include "ModelPrivate.h"
#include "TorchValues.h"

namespace fxview {

// --- matching ------------------------------------------------------------------------------

namespace {

std::vector<const Node*> comparableNodes(const Graph& graph) {
    std::vector<const Node*> nodes;
    graph.forEachNode([&](const Node& n, int) {
        if (!n.hidden)
            nodes.push_back(&n);
    });
    return nodes;
}

// Nodes left unmatched by name may still be the same computation under another name (a
// scripted and a traced module, a quantized module's ops): paired in order within their module
// scope when they are the same kind of node.
bool sameKind(const Node& a, const Node& b) {
    if (a.op != b.op)
        return false;
    return a.op == Op::CallModule || a.op == Op::Placeholder || a.op == Op::Output ||
           a.target == b.target;
}

} // namespace

NodeMatching matchNodes(const Graph& a, const Graph& b) {
    NodeMatching m;
    std::vector<const Node*> nodesA = comparableNodes(a), nodesB = comparableNodes(b);
    std::unordered_map<std::string, const Node*> byNameB;
    for (const Node* n : nodesB)
        byNameB[n->name] = n;
    std::unordered_set<std::string> matchedB;
    std::map<std::string, std::vector<const Node*>> restA, restB; // by scope, in graph order
    for (const Node* n : nodesA) {
        // A name is a pair only in the same scope and op: torch.fx counts a function's calls
        // across the whole graph (add, add_1), so one more `add` early in B renames every later
        // one, and add_1 of A's block2 would meet add_1 of B's block1.
        auto same = byNameB.find(n->name);
        if (same != byNameB.end() && same->second->scope == n->scope && same->second->op == n->op) {
            m.pairs.push_back({n->name, n->name, "name"});
            matchedB.insert(n->name);
        } else {
            restA[n->scope].push_back(n);
        }
    }
    for (const Node* n : nodesB)
        if (!matchedB.count(n->name))
            restB[n->scope].push_back(n);
    std::unordered_set<std::string> pairedB;
    for (auto& [scope, listA] : restA) {
        auto found = restB.find(scope);
        if (found == restB.end())
            continue;
        std::size_t j = 0;
        for (const Node* na : listA) {
            std::size_t k = j;
            while (k < found->second.size() && !sameKind(*na, *found->second[k]))
                ++k;
            if (k == found->second.size())
                continue;
            m.pairs.push_back({na->name, found->second[k]->name, "scope order"});
            pairedB.insert(found->second[k]->name);
            j = k + 1;
        }
    }
    std::unordered_set<std::string> matchedA;
    for (const auto& p : m.pairs)
        matchedA.insert(p.a);
    for (const Node* n : nodesA)
        if (!matchedA.count(n->name))
            m.onlyA.push_back(n->name);
    for (const Node* n : nodesB)
        if (!matchedB.count(n->name) && !pairedB.count(n->name))
            m.onlyB.push_back(n->name);
    return m;
}

// --- the two runs side by side -------------------------------------------------------------

namespace {

at::Tensor randomState(at::Generator& rng) {
    std::lock_guard<std::mutex> lock(rng.mutex());
    return rng.get_state();
}

void setRandomState(at::Generator& rng, const at::Tensor& state) {
    std::lock_guard<std::mutex> lock(rng.mutex());
    rng.set_state(state);
}

} // namespace

struct RunPairing {
    Interpreter& a;
    Interpreter& b;
    const RunComparisonOptions& options;
    NodeMatching matching;
    std::unordered_map<std::string, std::string> aToB, bToA;
    // Values one run made whose partner the other has not made yet, oldest first.
    struct Held {
        c10::IValue value;
        bool copied = false; // a copy, safe from the run's later in-place ops
    };
    std::unordered_map<std::string, std::deque<Held>> waitingA, waitingB; // by A's, B's name
    std::int64_t heldBytes = 0;
    std::vector<std::string> freshA;                    // held this step, not yet copied
    std::unordered_map<std::string, std::size_t> rowOf; // A's node -> its row
    std::unordered_map<std::string, int> runs;          // A's node -> how many pairs compared
    ComparisonReport report;

    RunPairing(Interpreter& a, Interpreter& b, const RunComparisonOptions& options)
        : a(a), b(b), options(options), matching(matchNodes(a.graph(), b.graph())) {
        for (const auto& p : matching.pairs) {
            aToB[p.a] = p.b;
            bToA[p.b] = p.a;
        }
    }

    NodeDifference& rowFor(const std::string& nodeA) {
        auto found = rowOf.find(nodeA);
        if (found != rowOf.end())
            return report.nodes[found->second];
        rowOf[nodeA] = report.nodes.size();
        NodeDifference row;
        row.node = nodeA;
        row.nodeB = aToB[nodeA];
        if (const Node* n = a.graph().find(nodeA)) {
            row.op = opName(n->op);
            row.target = n->target;
        }
        for (const auto& p : matching.pairs)
            if (p.a == nodeA)
                row.match = p.how;
        report.nodes.push_back(row);
        return report.nodes.back();
    }

    void compare(const std::string& nodeA, const c10::IValue& va, const c10::IValue& vb) {
        NodeDifference& row = rowFor(nodeA);
        measure(va, vb, row);
        int n = ++runs[nodeA];
        if (n > 1)
            row.note =
                (row.note.empty() ? "" : row.note + "; ") + "its last run, of " + std::to_string(n);
    }

    void hold(std::unordered_map<std::string, std::deque<Held>>& waiting, const std::string& name,
              const c10::IValue& value, bool copy) {
        std::int64_t bytes = Interpreter::Private::tensorBytes(value);
        if (heldBytes + bytes > options.heldBytes) {
            NodeDifference& row = rowFor(&waiting == &waitingA ? name : bToA[name]);
            row.compared = false;
            row.note = "not compared: the other run had not made it while more than " +
                       std::to_string(options.heldBytes >> 20) + " MB of values waited";
            return;
        }
        heldBytes += bytes;
        waiting[name].push_back({copy ? heldCopy(value) : value, copy});
    }

    Held take(std::deque<Held>& queue) {
        Held h = std::move(queue.front());
        queue.pop_front();
        heldBytes -= Interpreter::Private::tensorBytes(h.value);
        return h;
    }

    void madeInA(int id, c10::IValue& value) {
        const std::string& name = a.d->stepAt(id).name;
        auto partner = aToB.find(name);
        if (partner == aToB.end())
            return;
        auto waiting = waitingB.find(partner->second);
        if (waiting != waitingB.end() && !waiting->second.empty()) {
            compare(name, value, take(waiting->second).value); // B ran ahead: no feeding
            return;
        }
        hold(waitingA, name, value, false);
        freshA.push_back(name);
    }

    void madeInB(int id, c10::IValue& value) {
        const std::string& name = b.d->stepAt(id).name;
        auto partner = bToA.find(name);
        if (partner == bToA.end())
            return;
        auto waiting = waitingA.find(partner->second);
        if (waiting == waitingA.end() || waiting->second.empty()) {
            // B is ahead; its later in-place ops must not change what it made.
            hold(waitingB, name, value, true);
            return;
        }
        Held held = take(waiting->second);
        compare(partner->second, held.value, value);
        if (options.local) {
            bool fed = true;
            value = likeB(held.value, value, fed);
            if (!fed) {
                NodeDifference& row = rowFor(partner->second);
                row.note = (row.note.empty() ? "" : row.note + "; ") +
                           "its consumers in B got B's own value (A's cannot stand in for it)";
            }
        }
    }

    bool waitingForB() const {
        for (const auto& [name, queue] : waitingA)
            if (!queue.empty())
                return true;
        return false;
    }

    // A's values still waiting after B caught up are copied: A's next steps may change them.
    void protectWaiting() {
        for (const std::string& name : freshA) {
            auto found = waitingA.find(name);
            if (found == waitingA.end())
                continue;
            for (Held& h : found->second)
                if (!h.copied) {
                    h.value = heldCopy(h.value);
                    h.copied = true;
                }
        }
        freshA.clear();
    }

    bool failedRun(const Interpreter& run, const char* which) {
        if (!run.failed())
            return false;
        report.failure = std::string("Run ") + which + " failed: " + run.failure();
        return true;
    }

    ComparisonReport run() {
        report.local = options.local;
        report.onlyA = matching.onlyA;
        report.onlyB = matching.onlyB;
        a.d->afterStep = [this](int id, c10::IValue& v) { madeInA(id, v); };
        b.d->afterStep = [this](int id, c10::IValue& v) { madeInB(id, v); };
        a.reset();
        b.reset();
        // Each run draws from a random stream of its own, both starting where the generator is
        // now: a dropout in B draws what the same dropout in A drew, however the steps interleave.
        at::Generator rng = at::detail::getDefaultCPUGenerator();
        at::Tensor streamA = randomState(rng), streamB = streamA.clone();
        auto step = [&](Interpreter& run, at::Tensor& stream) {
            setRandomState(rng, stream);
            run.step();
            stream = randomState(rng);
        };
        while (!a.finished() && !failedRun(a, "A")) {
            if (options.beforeNode && !options.beforeNode(a.nextNode())) {
                report.failure = "The comparison was stopped before " + a.nextNode() + ".";
                break;
            }
            step(a, streamA);
            while (waitingForB() && !b.finished() && !b.failed())
                step(b, streamB);
            protectWaiting();
            if (failedRun(b, "B"))
                break;
        }
        while (report.failure.empty() && !b.finished() && !failedRun(b, "B"))
            step(b, streamB);
        a.d->afterStep = nullptr;
        b.d->afterStep = nullptr;
        // Pairs one run made and the other never did (a branch one of them did not take).
        for (const auto& p : matching.pairs) {
            bool ranA = a.record(p.a) && a.record(p.a)->state == NodeState::Done;
            bool ranB = b.record(p.b) && b.record(p.b)->state == NodeState::Done;
            if (runs.count(p.a) || (!ranA && !ranB) || !report.failure.empty())
                continue;
            NodeDifference& row = rowFor(p.a);
            if (!row.note.empty()) // not compared for want of memory
                continue;
            row.mismatch = true;
            row.note = ranA ? "B did not run it" : "A did not run it";
        }
        return std::move(report);
    }
};

ComparisonReport compareRuns(Interpreter& a, Interpreter& b, const RunComparisonOptions& options) {
    torch::NoGradGuard noGrad;
    RunPairing pairing(a, b, options);
    return pairing.run();
}

} // namespace fxview
