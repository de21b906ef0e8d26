#include "FxText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

namespace fxview {

std::string pythonFloatRepr(double value) {
    if (std::isnan(value))
        return "nan";
    if (std::isinf(value))
        return value > 0 ? "inf" : "-inf";
    if (value == 0.0)
        return std::signbit(value) ? "-0.0" : "0.0";

    // Shortest digit string that reads back as the same double, as Python's repr finds.
    char buf[40];
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
        if (std::strtod(buf, nullptr) == value)
            break;
    }
    std::string s(buf);
    bool negative = s[0] == '-';
    if (negative)
        s.erase(0, 1);
    std::size_t e = s.find('e');
    int exponent = std::atoi(s.c_str() + e + 1);
    std::string digits;
    for (std::size_t i = 0; i < e; ++i)
        if (s[i] != '.')
            digits += s[i];

    std::string out;
    // Python's repr switches to scientific notation below 1e-4 and from 1e16 on.
    if (exponent < -4 || exponent >= 16) {
        out = digits.substr(0, 1);
        if (digits.size() > 1)
            out += "." + digits.substr(1);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        out += exp;
    } else if (exponent < 0) {
        out = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
    } else {
        auto intDigits = static_cast<std::size_t>(exponent + 1);
        if (digits.size() <= intDigits)
            out = digits + std::string(intDigits - digits.size(), '0') + ".0";
        else
            out = digits.substr(0, intDigits) + "." + digits.substr(intDigits);
    }
    return negative ? "-" + out : out;
}

std::string pythonComplexRepr(double real, double imag) {
    // complex_repr formats each part as repr does but without the ".0" a float's repr adds.
    auto part = [](double v) {
        std::string s = pythonFloatRepr(v);
        if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
            s.resize(s.size() - 2);
        return s;
    };
    if (real == 0.0 && !std::signbit(real))
        return part(imag) + "j";
    std::string im = part(imag);
    if (im[0] != '-')
        im = "+" + im;
    return "(" + part(real) + im + "j)";
}

namespace {

// Python's repr() of a str: single quotes unless the text holds one and no double quote.
std::string pythonStringRepr(const std::string& text) {
    char quote =
        (text.find('\'') != std::string::npos && text.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, quote);
    for (char c : text) {
        if (c == quote || c == '\\')
            out += '\\';
        if (c == '\n')
            out += "\\n";
        else if (c == '\t')
            out += "\\t";
        else
            out += c;
    }
    return out + quote;
}

// `{k: v, ...}`, each part printed by `part`. An entry that is not a (key, value) pair (only a
// malformed engine frame makes one) is printed whole, so that printing never fails.
std::string formatDict(const Argument& dict, std::string (*part)(const Argument&)) {
    std::string out;
    for (std::size_t i = 0; i < dict.items.size(); ++i) {
        const Argument& entry = dict.items[i];
        out += i ? ", " : "";
        out += entry.items.size() == 2 ? part(entry.items[0]) + ": " + part(entry.items[1])
                                       : part(entry);
    }
    return "{" + out + "}";
}

std::string joinItems(const std::vector<Argument>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + formatArgument(items[i]);
    return out;
}

// str() of an output node's argument: nodes print bare (Node.__repr__), containers as Python's
// str() does, with repr() of the strings inside them.
std::string formatReturned(const Argument& a, bool nested = false) {
    switch (a.kind) {
    case Argument::Kind::NodeRef:
        return a.text;
    case Argument::Kind::String:
        return nested ? pythonStringRepr(a.text) : a.text;
    case Argument::Kind::List:
    case Argument::Kind::Tuple: {
        std::string out;
        for (std::size_t i = 0; i < a.items.size(); ++i)
            out += (i ? ", " : "") + formatReturned(a.items[i], true);
        if (a.kind == Argument::Kind::List)
            return "[" + out + "]";
        return "(" + out + (a.items.size() == 1 ? ",)" : ")");
    }
    case Argument::Kind::Dict:
        return formatDict(a, [](const Argument& part) { return formatReturned(part, true); });
    default:
        return formatArgument(a);
    }
}

std::string formatKwargs(const std::vector<KeywordArgument>& kwargs) {
    std::string out = "{";
    for (std::size_t i = 0; i < kwargs.size(); ++i)
        out += (i ? ", " : "") + kwargs[i].name + ": " + formatArgument(kwargs[i].value);
    return out + "}";
}

struct Printer {
    FxTextOptions options;
    std::set<std::string> hiddenNames;
    std::string out;

    int visibleUsers(const Node& node) const {
        int count = 0;
        for (const std::string& user : node.users)
            if (options.showHidden || !hiddenNames.count(user))
                ++count;
        return count;
    }

    void printNodes(const std::vector<Node>& nodes, const std::string& indent) {
        for (const Node& node : nodes) {
            if (node.hidden && !options.showHidden)
                continue;
            out += "\n" + indent + formatNode(node);
            for (std::size_t b = 0; b < node.blocks.size(); ++b) {
                const Block& block = node.blocks[b];
                if (block.subgraph) // printed by torch.fx as a graph of its own
                    continue;
                std::string params;
                for (std::size_t i = 0; i < block.params.size(); ++i)
                    params += (i ? ", %" : "%") + block.params[i];
                out += "\n" + indent + "    block " + block.label + "(" + params + "):";
                printNodes(block.nodes, indent + "        ");
                out += "\n" + indent + "        -> (" + joinItems(block.results) + ")";
            }
        }
    }

    std::string formatNode(const Node& node) const {
        std::string head = "%" + node.name + " : " +
                           (node.typeName.empty() ? std::string() : node.typeName + " ") +
                           "[num_users=" + std::to_string(visibleUsers(node)) +
                           "] = " + opName(node.op) + "[target=" + node.target + "]";
        switch (node.op) {
        case Op::Placeholder: // torch.fx prints a default with str(): `(default=None)`
            return node.args.empty() ? head
                                     : head + "(default=" + formatArgument(node.args[0]) + ")";
        case Op::GetAttr:
            return head;
        case Op::Output:
            return "return " +
                   (node.args.empty() ? std::string("None") : formatReturned(node.args[0]));
        default:
            return head + "(args = " + formatArgument(Argument::ofTuple(node.args)) +
                   ", kwargs = " + formatKwargs(node.kwargs) + ")";
        }
    }
};

} // namespace

std::string formatArgument(const Argument& a) {
    switch (a.kind) {
    case Argument::Kind::None:
        return "None";
    case Argument::Kind::Bool:
        return a.boolean ? "True" : "False";
    case Argument::Kind::Int:
        return std::to_string(a.integer);
    case Argument::Kind::Float:
        return pythonFloatRepr(a.real);
    case Argument::Kind::String:
        // torch.fx's _format_arg uses str(), not repr(): `kwargs = {approximate: tanh}`.
        return a.text;
    case Argument::Kind::NodeRef:
        return "%" + a.text;
    case Argument::Kind::Repr:
        return a.text;
    case Argument::Kind::List:
        return "[" + joinItems(a.items) + "]";
    case Argument::Kind::Tuple:
        return "(" + joinItems(a.items) + (a.items.size() == 1 ? ",)" : ")");
    case Argument::Kind::Dict:
        // _format_arg: f"{k}: {_format_arg(v)}", the key with str() as a String prints.
        return formatDict(a, formatArgument);
    }
    return "?";
}

std::string formatGraph(const Graph& graph, const FxTextOptions& options) {
    Printer printer{options, {}, "graph():"};
    graph.forEachNode([&](const Node& n, int) {
        if (n.hidden)
            printer.hiddenNames.insert(n.name);
    });
    printer.printNodes(graph.nodes, "    ");
    return printer.out + "\n";
}

std::string formatNodeList(const Graph& graph, const FxTextOptions& options) {
    std::string out;
    int count = 0;
    // Like the printed graph, a subgraph's nodes (torch.cond's branches) are not the graph's.
    std::function<void(const std::vector<Node>&, int)> list = [&](const std::vector<Node>& nodes,
                                                                  int depth) {
        for (const Node& n : nodes) {
            if (n.hidden && !options.showHidden)
                continue;
            out += std::string(static_cast<std::size_t>(depth) * 4, ' ') + opName(n.op) + " " +
                   n.name + "\n";
            ++count;
            for (const Block& b : n.blocks)
                if (!b.subgraph)
                    list(b.nodes, depth + 1);
        }
    };
    list(graph.nodes, 0);
    return out + "Node count: " + std::to_string(count) + "\n";
}

std::string alignColumns(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            width.resize(std::max(width.size(), row.size()), 0);
            width[c] = std::max(width[c], row[c].size());
        }
    std::string out;
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c)
            line +=
                row[c] + (c + 1 < row.size() ? std::string(width[c] - row[c].size() + 2, ' ') : "");
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    return out;
}

} // namespace fxview
