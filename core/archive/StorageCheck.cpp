#include "StorageCheck.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <unordered_map>

#include "ZipArchive.h"

namespace fxview {

namespace {

// The few kinds of value the scan keeps track of: enough to see a persistent id's tuple. A
// value stays small whatever the pickle does (a tuple nested millions deep, a memo copied into
// itself): a tuple keeps its items only if it could be a persistent id (5 of them), and those
// items keep no items of their own, so nothing is deeper than two levels; text is cut at
// kMaxText bytes.
constexpr std::size_t kMaxText = 256;

struct Value {
    enum class Kind { Other, Mark, String, Int, Global, Tuple };
    Kind kind = Kind::Other;
    std::string text;
    std::int64_t integer = 0;
    std::vector<Value> items;
};

class Scanner {
public:
    explicit Scanner(const std::string& bytes) : b_(bytes) {}

    std::vector<StorageRef> run() {
        while (pos_ < b_.size() && step()) {
        }
        return found_;
    }

private:
    const std::string& b_;
    std::size_t pos_ = 0;
    std::vector<Value> stack_;
    std::map<std::uint64_t, Value> memo_;
    std::vector<StorageRef> found_;

    std::optional<std::uint64_t> le(std::size_t n) {
        if (pos_ + n > b_.size())
            return std::nullopt;
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b_[pos_ + i])) << (8 * i);
        pos_ += n;
        return v;
    }
    bool bytes(std::size_t lengthBytes, bool keep) {
        auto n = le(lengthBytes);
        if (!n || *n > b_.size() - pos_) // not pos_ + *n: an 8-byte length would wrap around
            return false;
        Value v;
        v.kind = keep ? Value::Kind::String : Value::Kind::Other;
        if (keep)
            v.text = b_.substr(pos_, std::min<std::size_t>(*n, kMaxText));
        pos_ += *n;
        stack_.push_back(std::move(v));
        return true;
    }
    std::optional<std::string> line() {
        std::size_t end = b_.find('\n', pos_);
        if (end == std::string::npos)
            return std::nullopt;
        std::string s = b_.substr(pos_, end - pos_);
        pos_ = end + 1;
        return s;
    }
    void pushInt(std::int64_t v) {
        Value x;
        x.kind = Value::Kind::Int;
        x.integer = v;
        stack_.push_back(x);
    }
    Value pop() {
        if (stack_.empty())
            return {};
        Value v = std::move(stack_.back());
        stack_.pop_back();
        return v;
    }
    std::vector<Value> popToMark() {
        std::size_t mark = stack_.size();
        while (mark > 0 && stack_[mark - 1].kind != Value::Kind::Mark)
            --mark;
        std::vector<Value> items(std::make_move_iterator(stack_.begin() + mark),
                                 std::make_move_iterator(stack_.end()));
        stack_.resize(mark > 0 ? mark - 1 : 0); // and the mark
        return items;
    }
    void pushTuple(std::vector<Value> items) {
        Value t;
        t.kind = items.size() == 5 || items.empty() ? Value::Kind::Tuple : Value::Kind::Other;
        if (items.size() == 5) {
            for (Value& item : items)
                item.items.clear();
            t.items = std::move(items);
        }
        stack_.push_back(std::move(t));
    }
    void persistentId(const Value& id) {
        const auto& i = id.items;
        if (id.kind == Value::Kind::Tuple && i.size() == 5 && i[0].text == "storage" &&
            i[1].kind == Value::Kind::Global && i[2].kind == Value::Kind::String &&
            i[4].kind == Value::Kind::Int && i[4].integer >= 0)
            found_.push_back({i[1].text, i[2].text, static_cast<std::uint64_t>(i[4].integer)});
    }

    // One opcode (pickle protocols 0-5, as far as torch.save and torch.jit.save use them).
    bool step() {
        const char op = b_[pos_++];
        switch (op) {
        case '\x80': // PROTO
            return le(1).has_value();
        case '\x95': // FRAME
            return le(8).has_value();
        case '(': // MARK
            stack_.push_back({Value::Kind::Mark, {}, 0, {}});
            return true;
        case '\x8c': // SHORT_BINUNICODE
        case 'U':    // SHORT_BINSTRING
            return bytes(1, true);
        case 'X': // BINUNICODE
        case 'T': // BINSTRING
            return bytes(4, true);
        case '\x8d': // BINUNICODE8
            return bytes(8, true);
        case 'C': // SHORT_BINBYTES
            return bytes(1, false);
        case 'B': // BINBYTES
            return bytes(4, false);
        case '\x8e': // BINBYTES8
        case '\x96': // BYTEARRAY8
            return bytes(8, false);
        case 'J': { // BININT
            auto v = le(4);
            pushInt(v ? static_cast<std::int32_t>(*v) : 0);
            return v.has_value();
        }
        case 'K': { // BININT1
            auto v = le(1);
            pushInt(v ? static_cast<std::int64_t>(*v) : 0);
            return v.has_value();
        }
        case 'M': { // BININT2
            auto v = le(2);
            pushInt(v ? static_cast<std::int64_t>(*v) : 0);
            return v.has_value();
        }
        case '\x8a': { // LONG1: n bytes, little-endian two's complement
            auto n = le(1);
            if (!n || *n > 8)
                return false;
            auto v = le(static_cast<std::size_t>(*n));
            pushInt(v ? static_cast<std::int64_t>(*v) : 0);
            return v.has_value();
        }
        case 'G': // BINFLOAT
            stack_.push_back({});
            return le(8).has_value();
        case 'N':    // NONE
        case '\x88': // NEWTRUE
        case '\x89': // NEWFALSE
        case ']':    // EMPTY_LIST
        case '}':    // EMPTY_DICT
        case '\x8f': // EMPTY_SET
            stack_.push_back({});
            return true;
        case ')': // EMPTY_TUPLE
            pushTuple({});
            return true;
        case 'c': { // GLOBAL "module\nname\n"
            auto module = line();
            auto name = module ? line() : std::nullopt;
            if (!name)
                return false;
            stack_.push_back(
                {Value::Kind::Global, (*module + "." + *name).substr(0, kMaxText), 0, {}});
            return true;
        }
        case '\x93': { // STACK_GLOBAL
            // Cut like every text the scan keeps: DUP and STACK_GLOBAL in turn doubled a name
            // until the scan ran out of memory (an 86-byte pickle).
            Value name = pop(), module = pop();
            stack_.push_back(
                {Value::Kind::Global, (module.text + "." + name.text).substr(0, kMaxText), 0, {}});
            return true;
        }
        case 'q': // BINPUT
        case 'r': // LONG_BINPUT
        {
            auto i = le(op == 'q' ? 1 : 4);
            if (i && !stack_.empty())
                memo_[*i] = stack_.back();
            return i.has_value();
        }
        case '\x94': // MEMOIZE
            if (!stack_.empty())
                memo_[memo_.size()] = stack_.back();
            return true;
        case 'h': // BINGET
        case 'j': // LONG_BINGET
        {
            auto i = le(op == 'h' ? 1 : 4);
            auto it = i ? memo_.find(*i) : memo_.end();
            stack_.push_back(it != memo_.end() ? it->second : Value{});
            return i.has_value();
        }
        case 't': // TUPLE
            pushTuple(popToMark());
            return true;
        case '\x85': // TUPLE1
        case '\x86': // TUPLE2
        case '\x87': // TUPLE3
        {
            std::vector<Value> items(static_cast<std::size_t>(op - '\x85' + 1));
            for (auto it = items.rbegin(); it != items.rend(); ++it)
                *it = pop();
            pushTuple(std::move(items));
            return true;
        }
        case 'Q': // BINPERSID
            persistentId(pop());
            stack_.push_back({});
            return true;
        case 'R':    // REDUCE
        case '\x81': // NEWOBJ
            pop();
            pop();
            stack_.push_back({});
            return true;
        case '\x92': // NEWOBJ_EX
            pop();
            pop();
            pop();
            stack_.push_back({});
            return true;
        case 'b': // BUILD
        case 'a': // APPEND
        case '0': // POP
            pop();
            return true;
        case 's': // SETITEM
            pop();
            pop();
            return true;
        case 'e':    // APPENDS
        case 'u':    // SETITEMS
        case '\x90': // ADDITEMS
        case '1':    // POP_MARK
            popToMark();
            return true;
        case 'l':    // LIST
        case 'd':    // DICT
        case '\x91': // FROZENSET
            popToMark();
            stack_.push_back({});
            return true;
        case '2': // DUP
            stack_.push_back(stack_.empty() ? Value{} : stack_.back());
            return true;
        default: // STOP, or an opcode these archives do not use: the scan ends
            return false;
        }
    }
};

std::string folderOf(const std::string& member) {
    std::size_t slash = member.rfind('/');
    return slash == std::string::npos ? std::string() : member.substr(0, slash + 1);
}

} // namespace

std::vector<StorageRef> storagesIn(const std::string& pickle) {
    return Scanner(pickle).run();
}

std::uint64_t storageElementSize(const std::string& type) {
    static const std::map<std::string, std::uint64_t> sizes = {
        {"torch.UntypedStorage", 1},       {"torch.ByteStorage", 1},
        {"torch.CharStorage", 1},          {"torch.BoolStorage", 1},
        {"torch.ShortStorage", 2},         {"torch.HalfStorage", 2},
        {"torch.BFloat16Storage", 2},      {"torch.IntStorage", 4},
        {"torch.FloatStorage", 4},         {"torch.LongStorage", 8},
        {"torch.DoubleStorage", 8},        {"torch.ComplexFloatStorage", 8},
        {"torch.ComplexDoubleStorage", 16}};
    auto it = sizes.find(type);
    return it == sizes.end() ? 0 : it->second;
}

std::string checkStorages(ZipArchive& zip) {
    // A stored member cannot be bigger than the file; a deflated one a thousand times its size,
    // past a gigabyte, is a zip bomb, whatever LibTorch would do with it.
    for (const ZipArchive::Entry& e : zip.entries()) {
        bool absurd = e.method == 0 ? e.uncompressedSize > zip.size()
                                    : e.uncompressedSize > (1ull << 30) &&
                                          e.uncompressedSize / 1000 > e.compressedSize;
        if (absurd)
            return "its member " + e.name + " declares " + std::to_string(e.uncompressedSize) +
                   " bytes in a file of " + std::to_string(zip.size()) +
                   " (a damaged or hostile archive)";
    }
    // Looked up by name once: a pickle may name a storage again and again (3 bytes each).
    std::unordered_map<std::string, const ZipArchive::Entry*> byName;
    for (const ZipArchive::Entry& e : zip.entries())
        byName.emplace(e.name, &e);
    for (const ZipArchive::Entry& e : zip.entries()) {
        const std::string folder = folderOf(e.name);
        const bool data = e.name == folder + "data.pkl",
                   constants = e.name == folder + "constants.pkl";
        if (!data && !constants)
            continue;
        std::optional<std::string> pickle = zip.read(e);
        if (!pickle)
            continue;
        // torch.jit.save keeps constants' storages in constants/, the rest in data/.
        const std::string records = folder + (constants ? "constants/" : "data/");
        for (const StorageRef& s : storagesIn(*pickle)) {
            auto found = byName.find(records + s.key);
            std::uint64_t size = storageElementSize(s.type);
            if (found == byName.end() || size == 0)
                continue;
            const ZipArchive::Entry* record = found->second;
            // A stored record cannot be bigger than the file (a deflated one can); a count whose
            // bytes do not fit in 64 bits fits in no file.
            const bool overflows = s.numel > std::numeric_limits<std::uint64_t>::max() / size;
            if (overflows || (record->method == 0 && s.numel > zip.size() / size))
                return "its tensor storage " + record->name + " declares " +
                       std::to_string(s.numel) + " elements of " + std::to_string(size) +
                       " bytes, more than the whole file holds; the archive is damaged";
            if (s.numel > record->uncompressedSize / size)
                return "its tensor storage " + record->name + " holds " +
                       std::to_string(record->uncompressedSize) + " bytes but its tensor needs " +
                       std::to_string(s.numel * size) + " (" + std::to_string(s.numel) + " × " +
                       std::to_string(size) + "); the archive is damaged";
        }
    }
    return {};
}

} // namespace fxview
