#pragma once
// Gives nodes the names torch.fx would give them (torch.fx.graph._Namespace in PyTorch 2.6):
// illegal characters become '_', names that would shadow a Python keyword or builtin get a
// suffix, and repeats become name_1, name_2, ...

#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace fxview {

class NodeNamer {
public:
    // A fresh unique name derived from `candidate` ("layer1.0.conv1" -> "layer1_0_conv1"). As
    // _Namespace.create_name does, a base's count goes on from the last name made of it (the
    // 30,000th unnamed node of one op costs what the first did, not 30,000 probes).
    std::string create(const std::string& candidate);
    // Takes `name` exactly as it is (a torch.export program's own value names, which its
    // deserializer keeps even where they shadow a builtin: `input`), so create() avoids it.
    void claim(const std::string& name) { used_.insert(name); }

    // torch.fx's Graph._target_to_str: CamelCase to snake_case, as used for function names.
    static std::string snakeCase(const std::string& name);

private:
    std::unordered_set<std::string> used_;
    // _Namespace._base_count: per base, the suffix it last took, in decimal (Python's ints have
    // no bound: a file may name a node x_99999999999999999999).
    std::unordered_map<std::string, std::string> baseCount_;
};

} // namespace fxview
