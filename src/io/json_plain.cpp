#include "io/json_plain.h"

#include <nlohmann/json.hpp>

namespace memplan {
namespace {

using nlohmann::json;

// What the next value fills.
enum class Field : uint8_t {
  kNone, kCapacity, kBuffers, kSkip,  // top level (kSkip there and in a buffer: read elsewhere or unused)
  kId, kLower, kUpper, kSize, kAlignment, kOffset, kHint, kInplace, kSide
};

constexpr uint32_t bit(Field f) { return uint32_t{1} << static_cast<int>(f); }

struct KeyField {
  const char* key;
  Field field;
  bool space;  // a space field (PlainJson::space_fields)
};
// The json-value reader's field lists (json.cpp), split into what is read here, what is
// skipped, and (absent) what sends the document back to that reader.
constexpr KeyField kTopKeys[] = {
    {"capacity", Field::kCapacity, false}, {"buffers", Field::kBuffers, false}, {"peak", Field::kSkip, false},
    {"algo", Field::kSkip, false},         {"status", Field::kSkip, false},     {"bytes_moved", Field::kSkip, false},
    {"memories", Field::kSkip, true},      {"swap", Field::kSkip, true},        {"durations", Field::kSkip, true}};
constexpr KeyField kBufferKeys[] = {
    {"id", Field::kId, false},         {"lower", Field::kLower, false},     {"upper", Field::kUpper, false},
    {"size", Field::kSize, false},     {"alignment", Field::kAlignment, false}, {"offset", Field::kOffset, false},
    {"hint", Field::kHint, false},     {"inplace", Field::kInplace, false}, {"side", Field::kSide, false},
    {"spaces", Field::kSkip, true},    {"uses", Field::kSkip, true},        {"evictable", Field::kSkip, true},
    {"accesses", Field::kSkip, true}};

template <size_t N>
const KeyField* find_key(const KeyField (&keys)[N], const std::string& k) {
  for (const KeyField& e : keys)
    if (k == e.key) return &e;
  return nullptr;
}

// Every handler returns false to stop: the document is outside the plain form.
class PlainSax : public nlohmann::json_sax<json> {
 public:
  explicit PlainSax(PlainJson& out) : out_(out) {}

  bool null() override { return scalar(Kind::kNull); }
  bool boolean(bool) override { return scalar(Kind::kOther); }
  bool number_integer(number_integer_t v) override { return scalar(Kind::kInt, v); }
  bool number_unsigned(number_unsigned_t v) override {
    if (v > static_cast<uint64_t>(INT64_MAX)) return scalar(Kind::kBigUnsigned, 0, v);
    return scalar(Kind::kInt, static_cast<int64_t>(v));
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(Kind::kOther); }
  bool string(string_t& s) override { return scalar(Kind::kString, 0, 0, &s); }
  bool binary(binary_t&) override { return scalar(Kind::kOther); }

  bool start_object(std::size_t) override {
    if (open_skip()) return true;
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    if (depth_ == 2) {  // a buffer
      depth_ = 3;
      b_ = Buffer{};
      has_ = 0;
      buffer_keys_ = 0;
      return true;
    }
    return false;
  }
  bool start_array(std::size_t) override {
    if (open_skip()) return true;
    if (depth_ == 1 && field_ == Field::kBuffers && !buffers_) {
      buffers_ = true;
      depth_ = 2;
      return true;
    }
    return false;  // a repeated "buffers", vector clocks ("lower": [...]), ...
  }
  bool end_object() override {
    if (close_skip()) return true;
    field_ = Field::kNone;
    if (depth_ == 3) {  // id, lower, upper and size are required
      if ((has_ & kRequired) != kRequired) return false;
      out_.problem.buffers.push_back(std::move(b_));
      depth_ = 2;
      return true;
    }
    if (depth_ != 1) return false;
    depth_ = 0;
    done_ = buffers_;  // no "buffers" array: the other reader says so
    return done_;
  }
  bool end_array() override {
    if (close_skip()) return true;
    field_ = Field::kNone;
    if (depth_ != 2) return false;
    depth_ = 1;
    return true;
  }
  bool key(string_t& k) override {
    if (skip_ > 0) return true;
    const KeyField* e = depth_ == 1 ? find_key(kTopKeys, k) : depth_ == 3 ? find_key(kBufferKeys, k) : nullptr;
    if (!e) return false;  // unknown here (an error unless lenient), or read only by the json-value reader
    // A repeated key (skipped ones too): an error, which the json-value reader reports.
    uint32_t& seen = depth_ == 3 ? buffer_keys_ : top_keys_;
    const uint32_t key_bit = uint32_t{1} << (depth_ == 3 ? e - kBufferKeys : e - kTopKeys);
    if (seen & key_bit) return false;
    seen |= key_bit;
    field_ = e->field;
    out_.space_fields |= e->space;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  bool done() const { return done_; }

 private:
  enum class Kind { kNull, kInt, kBigUnsigned, kString, kOther };
  static constexpr uint32_t kRequired = bit(Field::kId) | bit(Field::kLower) | bit(Field::kUpper) | bit(Field::kSize);

  // A container that is (inside) a skipped value.
  bool open_skip() {
    if (skip_ == 0 && field_ != Field::kSkip) return false;
    ++skip_;
    return true;
  }
  bool close_skip() {
    if (skip_ == 0) return false;
    if (--skip_ == 0) field_ = Field::kNone;
    return true;
  }
  // A scalar value of the field the last key named. (A repeated buffer field sends the
  // document to the json-value reader, which refuses it.)
  bool scalar(Kind kind, int64_t v = 0, uint64_t big = 0, std::string* s = nullptr) {
    if (skip_ > 0) return true;
    const Field f = field_;
    field_ = Field::kNone;
    if (f == Field::kSkip) return true;
    if (f == Field::kCapacity) {
      if (kind == Kind::kNull) out_.problem.capacity.reset();
      else if (kind == Kind::kInt) out_.problem.capacity = v;
      else return false;
      return true;
    }
    if (depth_ != 3) return false;  // a scalar document, "buffers" not an array, an element not an object
    switch (f) {
      case Field::kId:  // an integer id is read as json writes it
        if (kind == Kind::kString) b_.id = std::move(*s);
        else if (kind == Kind::kInt) b_.id = std::to_string(v);
        else if (kind == Kind::kBigUnsigned) b_.id = std::to_string(big);
        else return false;
        break;
      case Field::kOffset:
        if (kind == Kind::kNull) b_.offset.reset();
        else if (kind == Kind::kInt) b_.offset = v;
        else return false;
        break;
      case Field::kInplace:
        if (kind != Kind::kString) return false;
        b_.inplace_of = std::move(*s);
        break;
      case Field::kSide:
        if (kind != Kind::kString || (*s != "low" && *s != "high")) return false;
        b_.from_top = *s == "high";
        break;
      default: {
        if (kind != Kind::kInt) return false;
        int64_t* dst = f == Field::kLower ? &b_.start : f == Field::kUpper ? &b_.end : f == Field::kSize ? &b_.size
                     : f == Field::kAlignment ? &b_.alignment : f == Field::kHint ? &b_.hint : nullptr;
        if (!dst) return false;
        *dst = v;
      }
    }
    has_ |= bit(f);
    return true;
  }

  PlainJson& out_;
  int depth_ = 0;     // 0 outside, 1 the top object, 2 its "buffers", 3 a buffer
  int64_t skip_ = 0;  // open containers inside a skipped value
  Field field_ = Field::kNone;
  bool buffers_ = false, done_ = false;
  Buffer b_;
  uint32_t has_ = 0;  // the fields b_ has had
  uint32_t buffer_keys_ = 0, top_keys_ = 0;  // the keys (by place in kBufferKeys, kTopKeys) seen
};

}  // namespace

std::optional<PlainJson> read_plain_json(const std::string& text) {
  PlainJson out;
  PlainSax sax(out);
  if (!json::sax_parse(text, &sax) || !sax.done()) return std::nullopt;
  return out;
}

}  // namespace memplan
