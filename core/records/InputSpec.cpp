#include "InputSpec.h"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>

#include "RunRecord.h"

namespace fxview {

const std::vector<std::string>& supportedDtypes() {
    static const std::vector<std::string> names = {"float32", "float64", "float16", "bfloat16",
                                                   "int64",   "int32",   "int16",   "int8",
                                                   "uint8",   "bool"};
    return names;
}

std::string InputSpec::text() const {
    if (example)
        return "example";
    if (!file.empty())
        return "file:" + file;
    std::string out;
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? "x" : "") + std::to_string(shape[i]);
    return dtype == "float32" ? out : out + ":" + dtype;
}

bool parseInputSpec(const std::string& text, InputSpec& spec, std::string& error) {
    spec = InputSpec();
    if (text == "example") {
        spec.example = true;
        return true;
    }
    if (text.rfind("file:", 0) == 0) {
        spec.file = text.substr(5);
        if (spec.file.empty()) {
            error = "The input spec 'file:' names no file; write file:PATH to a tensor saved "
                    "with torch.save.";
            return false;
        }
        return true;
    }
    std::string dims = text;
    std::size_t colon = text.find(':');
    if (colon != std::string::npos) {
        dims = text.substr(0, colon);
        spec.dtype = text.substr(colon + 1);
        const auto& known = supportedDtypes();
        if (std::find(known.begin(), known.end(), spec.dtype) == known.end()) {
            std::string list;
            for (const std::string& d : known)
                list += (list.empty() ? "" : ", ") + d;
            error = "The input spec '" + text + "' names an unknown dtype '" + spec.dtype +
                    "'; use one of " + list + ".";
            return false;
        }
    }
    std::size_t start = 0;
    while (start <= dims.size()) {
        std::size_t end = dims.find('x', start);
        std::string part =
            dims.substr(start, end == std::string::npos ? std::string::npos : end - start);
        bool digits =
            !part.empty() && part.size() < 10 && std::all_of(part.begin(), part.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            });
        if (!digits) {
            error = "The input spec '" + text + "' is not a shape like 3x4 or 1x3x224x224 " +
                    "(optionally :int64), nor file:PATH or example.";
            return false;
        }
        spec.shape.push_back(std::stoll(part));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return true;
}

std::string formatShape(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::string shortDescription(const ValueSummary& v) {
    if (v.type == "Tensor")
        return formatShape(v.shape);
    if (v.type == "dict") { // its keys are `value`, str() joined by ", " (as Python's summary)
        std::string out, keys = v.value;
        for (std::size_t i = 0; i < v.items.size(); ++i) {
            std::size_t comma = keys.find(", ");
            out += (i ? ", " : "") + keys.substr(0, comma) + ": " + shortDescription(v.items[i]);
            keys = comma == std::string::npos ? "" : keys.substr(comma + 2);
        }
        return "{" + out + "}";
    }
    if (v.type == "tuple" || v.type == "list") {
        std::string out;
        for (std::size_t i = 0; i < v.items.size(); ++i)
            out += (i ? ", " : "") + shortDescription(v.items[i]);
        if (v.type == "list")
            return "[" + out + "]";
        return "(" + out + (v.items.size() == 1 ? ",)" : ")");
    }
    return v.value.empty() ? v.type : v.value;
}

std::string quantizationDescription(const ValueSummary& v) {
    if (v.qscheme.empty())
        return "";
    auto number = [](double x) {
        std::ostringstream out;
        out << std::setprecision(6) << x;
        return out.str();
    };
    auto range = [](const std::string& lo, const std::string& hi) {
        return lo == hi ? lo : lo + " to " + hi;
    };
    std::string text = v.qscheme;
    if (v.qaxis >= 0)
        text += " on axis " + std::to_string(v.qaxis);
    text += ", scale " + range(number(v.scaleMin), number(v.scaleMax)) + ", zero point " +
            range(std::to_string(v.zeroPointMin), std::to_string(v.zeroPointMax));
    if (v.hasStats)
        text += ", ints " + std::to_string(v.intMin) + " to " + std::to_string(v.intMax);
    return text;
}

std::string controlFlowNote(const NodeRecord& r) {
    if (r.blockRuns.size() == 2) // an if: its true and false blocks
        return r.blockRuns[0] ? "took true" : r.blockRuns[1] ? "took false" : "";
    if (r.blockRuns.size() != 1 || r.state == NodeState::NotExecuted)
        return "";
    if (r.state == NodeState::Done)
        return std::to_string(r.blockRuns[0]) +
               (r.blockRuns[0] == 1 ? " iteration" : " iterations");
    return r.blockRuns[0] ? "iteration " + std::to_string(r.blockRuns[0]) : "";
}

} // namespace fxview
