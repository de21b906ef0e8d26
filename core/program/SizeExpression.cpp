#include "SizeExpression.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <vector>

namespace fxview {

namespace {

// A hostile file's expression nests at most this deep before it is shown as it is.
constexpr int kMaxDepth = 32;

// A recursive-descent reader of the srepr forms export writes for sizes: Symbol, Integer, Add,
// Mul and PyTorch's FloorDiv, Mod, Max, Min.
class Reader {
public:
    explicit Reader(const std::string& text) : text_(text) {}

    std::string expression(int depth) {
        if (depth > kMaxDepth)
            throw std::runtime_error("too deep");
        std::string head = name();
        expect('(');
        if (head == "Symbol") {
            std::string symbol = quoted();
            skipTo(')');
            return symbol;
        }
        if (head == "Integer") {
            std::string digits;
            while (pos_ < text_.size() &&
                   (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '-'))
                digits += text_[pos_++];
            expect(')');
            return digits;
        }
        std::vector<std::string> items;
        while (true) {
            items.push_back(expression(depth + 1));
            space();
            if (peek() == ')') {
                ++pos_;
                break;
            }
            expect(',');
        }
        auto joined = [&](const std::string& sep) {
            std::string out;
            for (std::size_t i = 0; i < items.size(); ++i)
                out += (i ? sep : "") + items[i];
            return out;
        };
        // sympy's printer: a sum's constant last (`s0 - 1`), a product's first (`2*s0`), a
        // sum inside a product in parentheses.
        auto isNumber = [](const std::string& x) {
            return !x.empty() && x.find_first_not_of("-0123456789") == std::string::npos;
        };
        if (head == "Add") {
            std::stable_partition(items.begin(), items.end(),
                                  [&](const std::string& x) { return !isNumber(x); });
            std::string sum = items[0];
            for (std::size_t i = 1; i < items.size(); ++i)
                sum += items[i][0] == '-' ? " - " + items[i].substr(1) : " + " + items[i];
            return sum;
        }
        if (head == "Mul") {
            std::stable_partition(items.begin(), items.end(), isNumber);
            for (std::string& x : items)
                if (x.find(' ') != std::string::npos)
                    x = "(" + x + ")";
            if (items.size() > 1 && items[0] == "-1")
                return "-" + [&] {
                    items.erase(items.begin());
                    return joined("*");
                }();
            return joined("*");
        }
        // torch.utils._sympy.functions' printers.
        auto atom = [](const std::string& x) {
            return x.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos
                       ? x
                       : "(" + x + ")";
        };
        if (head == "FloorDiv" && items.size() == 2)
            return "(" + atom(items[0]) + "//" + atom(items[1]) + ")";
        if ((head == "Mod" || head == "Max" || head == "Min") && !items.empty())
            return head + "(" + joined(", ") + ")";
        throw std::runtime_error("unknown function");
    }

    bool atEnd() {
        space();
        return pos_ == text_.size();
    }

private:
    const std::string& text_;
    std::size_t pos_ = 0;

    char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
    void space() {
        while (pos_ < text_.size() && text_[pos_] == ' ')
            ++pos_;
    }
    void expect(char c) {
        space();
        if (peek() != c)
            throw std::runtime_error("unexpected");
        ++pos_;
    }
    std::string name() {
        space();
        std::string out;
        while (pos_ < text_.size() && std::isalpha(static_cast<unsigned char>(text_[pos_])))
            out += text_[pos_++];
        return out;
    }
    std::string quoted() {
        expect('\'');
        std::size_t end = text_.find('\'', pos_);
        if (end == std::string::npos)
            throw std::runtime_error("unterminated");
        std::string out = text_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return out;
    }
    // Past a Symbol's assumptions (positive=True, integer=True) to its closing parenthesis.
    void skipTo(char c) {
        std::size_t end = text_.find(c, pos_);
        if (end == std::string::npos)
            throw std::runtime_error("unterminated");
        pos_ = end + 1;
    }
};

} // namespace

std::string sizeExpression(const std::string& srepr) {
    try {
        Reader reader(srepr);
        std::string printed = reader.expression(0);
        return reader.atEnd() ? printed : srepr;
    } catch (const std::runtime_error&) {
        return srepr;
    }
}

} // namespace fxview
