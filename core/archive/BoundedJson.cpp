#include "BoundedJson.h"

#include <stdexcept>
#include <utility>
#include <vector>

namespace fxview {

namespace {

using Json = nlohmann::json;

// What nlohmann's own DOM builder does (json_sax_dom_parser, a detail whose signature changes
// between releases), with one check more: a container opened past the bound stops the parse and
// says where.
class BoundedBuilder {
public:
    BoundedBuilder(Json& root, int maxDepth) : root_(root), maxDepth_(maxDepth) {}

    bool null() { return add(nullptr); }
    bool boolean(bool v) { return add(v); }
    bool number_integer(Json::number_integer_t v) { return add(v); }
    bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
    bool number_float(Json::number_float_t v, const std::string&) { return add(v); }
    bool string(std::string& v) { return add(std::move(v)); }
    bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }
    bool start_object(std::size_t) { return open(Json::object()); }
    bool start_array(std::size_t) { return open(Json::array()); }
    bool key(std::string& k) {
        keys_.back() = std::move(k);
        return true;
    }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        failed_ = true;
        return false;
    }

    bool failed() const { return failed_; }
    // Where the container refused would have gone: "graph_module.graph.nodes[3].metadata".
    const std::string& tooDeepAt() const { return tooDeepAt_; }

private:
    Json& root_;
    int maxDepth_;
    std::vector<Json*> open_;       // the containers being filled, outermost first
    std::vector<std::string> keys_; // per open container: an object's current key
    bool failed_ = false;
    std::string tooDeepAt_;

    template <typename V> Json* place(V&& v) {
        if (open_.empty()) {
            root_ = Json(std::forward<V>(v));
            return &root_;
        }
        Json& top = *open_.back();
        if (top.is_array()) {
            top.emplace_back(std::forward<V>(v));
            return &top.back();
        }
        Json& slot = top[keys_.back()];
        slot = Json(std::forward<V>(v));
        return &slot;
    }
    template <typename V> bool add(V&& v) {
        place(std::forward<V>(v));
        return true;
    }
    bool open(Json empty) {
        if (static_cast<int>(open_.size()) >= maxDepth_) {
            tooDeepAt_ = path();
            failed_ = true;
            return false;
        }
        open_.push_back(place(std::move(empty)));
        keys_.emplace_back();
        return true;
    }
    bool close() {
        open_.pop_back();
        keys_.pop_back();
        return true;
    }
    std::string path() const {
        // Each level's step ("nodes", "[3]"), a run of one step written once with its count:
        // a file nested 100,000 deep in one list reads name[0]×256, not 256 brackets.
        std::vector<std::string> steps;
        for (std::size_t i = 0; i < open_.size(); ++i) {
            if (open_[i]->is_array()) {
                // The innermost array's next item is the one refused; outer ones hold theirs.
                std::size_t index = open_[i]->size() - (i + 1 < open_.size() ? 1 : 0);
                steps.push_back("[" + std::to_string(index) + "]");
            } else {
                const std::string& k = keys_[i];
                steps.push_back("." + (k.size() > 40 ? k.substr(0, 40) + "..." : k));
            }
        }
        std::string p;
        for (std::size_t i = 0; i < steps.size();) {
            std::size_t run = 1;
            while (i + run < steps.size() && steps[i + run] == steps[i])
                ++run;
            p += steps[i] + (run > 2 ? "×" + std::to_string(run) : run == 2 ? steps[i] : "");
            i += run;
            if (p.size() > 200) // a pattern of several steps nested 100,000 deep
                return p.substr(p[0] == '.' ? 1 : 0, 200) + "...";
        }
        return p.empty() ? "the top" : p.substr(p[0] == '.' ? 1 : 0);
    }
};

} // namespace

nlohmann::json parseBoundedJson(const std::string& text, const std::string& what, int maxDepth) {
    Json root;
    BoundedBuilder builder(root, maxDepth);
    const bool ok = Json::sax_parse(text, &builder, Json::input_format_t::json, /*strict=*/true);
    if (!builder.tooDeepAt().empty())
        throw std::runtime_error("its " + what + " nests JSON values more than " +
                                 std::to_string(maxDepth) + " deep (at " + builder.tooDeepAt() +
                                 "), far past what torch.export writes: the file is damaged or "
                                 "hostile; export the model again");
    if (!ok || builder.failed())
        return Json(Json::value_t::discarded);
    return root;
}

std::string jsonPreview(const nlohmann::json& value) {
    if (value.empty() && (value.is_object() || value.is_array()))
        return value.is_object() ? "{}" : "[]";
    switch (value.type()) {
    case Json::value_t::object:
        return "an object of " + std::to_string(value.size()) + " keys";
    case Json::value_t::array:
        return "an array of " + std::to_string(value.size()) + " items";
    case Json::value_t::string: {
        const std::string& s = value.get_ref<const std::string&>();
        // Cut where a character may be split: replaced, not thrown over, by dump().
        return Json(s.size() > 40 ? s.substr(0, 40) + "..." : s)
            .dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    default:
        return value.dump(); // a number, bool or null: a few characters
    }
}

} // namespace fxview
