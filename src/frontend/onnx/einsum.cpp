// Einsum's output dims from its equation and its inputs' dims. ONNX 1.12's shape inference
// gives an Einsum output only its rank (every dim unknown), so every tensor computed from
// one (attention scores in models written with torch.einsum: MaxViT, many transformer
// exports) stayed unsized. The rules are the ONNX operator's (numpy's einsum):
//  - "t1,t2->out" (explicit) or "t1,t2" (implicit: the output is the ellipsis dims, then
//    the labels that occur exactly once, in ASCII order, so 'B' before 'a');
//  - a label is one letter (A-Z, a-z) naming one dim; "..." at most once per term stands
//    for the dims no label names, broadcast across inputs right-aligned;
//  - a label's (or an ellipsis position's) dims agree across inputs, or are 1 (broadcast);
//    within one term a repeated label takes a diagonal: its dims must be equal;
//  - labels and ellipsis dims absent from an explicit output are summed over.
#include <algorithm>
#include <array>
#include <optional>
#include <cctype>
#include <stdexcept>

#include "frontend/onnx/internal.h"

namespace memplan::onnx_fe {
namespace {

struct Term {
  std::string labels;     // letters, in order, without the ellipsis
  int ellipsis_at = -1;   // index into labels where "..." stands, -1 if none
};

Term parse_term(const std::string& text, const std::string& what) {
  Term t;
  for (size_t k = 0; k < text.size();) {
    const char c = text[k];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      t.labels.push_back(c);
      ++k;
    } else if (text.compare(k, 3, "...") == 0) {
      if (t.ellipsis_at >= 0) throw std::invalid_argument(what + " has two ellipses");
      t.ellipsis_at = static_cast<int>(t.labels.size());
      k += 3;
    } else {
      throw std::invalid_argument(what + " has '" + std::string(1, c) + "' (labels are letters, or '...')");
    }
  }
  return t;
}

// One dim class (a label, or an ellipsis position): the size it takes, from every input dim
// it names. -1 dims (unknown) leave it unknown unless some input gives a size other than 1.
struct Extent {
  int64_t size = -2;  // the size > 1 seen, -2 if none
  bool unknown = false, seen = false;
  void add(int64_t d, const std::string& what) {
    seen = true;
    if (d < 0) unknown = true;
    else if (d != 1) {
      if (size >= 0 && size != d)
        throw std::invalid_argument(what + " is " + std::to_string(size) + " in one place and " + std::to_string(d) +
                                    " in another");
      size = d;
    }
  }
  int64_t value() const { return size >= 0 ? size : unknown ? -1 : 1; }
};

int letter_index(char c) { return std::isupper(static_cast<unsigned char>(c)) ? c - 'A' : 26 + (c - 'a'); }

// The equation without blanks, its input terms, and the text after "->" (nullopt if none).
struct Parsed {
  std::vector<Term> terms;
  std::optional<std::string> output;
};

Parsed parse(const std::string& equation) {
  std::string eq;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) eq.push_back(c);
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  Parsed p;
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    const std::string text = lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    p.terms.push_back(parse_term(text, "input term " + std::to_string(p.terms.size())));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (arrow != std::string::npos) {
    p.output = eq.substr(arrow + 2);
    parse_term(*p.output, "the output term");  // one term: a second "->" or a ',' fails here
  }
  return p;
}

}  // namespace

std::string einsum_syntax_error(const std::string& equation, size_t inputs) {
  try {
    const Parsed p = parse(equation);
    if (p.terms.size() != inputs)
      return "the equation has " + std::to_string(p.terms.size()) + " input terms for " + std::to_string(inputs) +
             " inputs";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::vector<int64_t> einsum_dims(const std::string& equation, const std::vector<std::vector<int64_t>>& inputs) {
  const Parsed parsed = parse(equation);
  const std::vector<Term>& terms = parsed.terms;
  if (terms.size() != inputs.size())
    throw std::invalid_argument("the equation has " + std::to_string(terms.size()) + " input terms for " +
                                std::to_string(inputs.size()) + " inputs");

  std::array<Extent, 52> label{};
  std::array<int, 52> count{};  // occurrences over all inputs (implicit output)
  std::vector<Extent> ellipsis;  // right-aligned: ellipsis[0] is the last ellipsis dim
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const std::vector<int64_t>& dims = inputs[i];
    const int64_t named = static_cast<int64_t>(t.labels.size());
    const int64_t rank = static_cast<int64_t>(dims.size());
    const std::string where = "input " + std::to_string(i);
    if (t.ellipsis_at < 0 ? rank != named : rank < named)
      throw std::invalid_argument(where + " has rank " + std::to_string(rank) + " but its term names " +
                                  std::to_string(named) + " dims" + (t.ellipsis_at < 0 ? "" : " besides '...'"));
    const int64_t spread = t.ellipsis_at < 0 ? 0 : rank - named;  // dims the ellipsis covers
    if (static_cast<int64_t>(ellipsis.size()) < spread) ellipsis.resize(static_cast<size_t>(spread));
    std::array<int64_t, 52> in_term;
    in_term.fill(-3);
    for (int64_t k = 0; k < named; ++k) {
      const char c = t.labels[static_cast<size_t>(k)];
      const int64_t d = dims[static_cast<size_t>(k < t.ellipsis_at || t.ellipsis_at < 0 ? k : k + spread)];
      const int x = letter_index(c);
      if (in_term[x] != -3 && in_term[x] >= 0 && d >= 0 && in_term[x] != d)
        throw std::invalid_argument(where + " repeats label '" + std::string(1, c) + "' on dims of size " +
                                    std::to_string(in_term[x]) + " and " + std::to_string(d));
      in_term[x] = d;
      label[x].add(d, "label '" + std::string(1, c) + "'");
      ++count[x];
    }
    for (int64_t k = 0; k < spread; ++k)  // dims[ellipsis_at + k], right-aligned index spread-1-k
      ellipsis[static_cast<size_t>(spread - 1 - k)].add(dims[static_cast<size_t>(t.ellipsis_at + k)],
                                                        "the dim under '...' " + std::to_string(spread - k) +
                                                            " from the right");
  }

  std::vector<int64_t> out;
  auto put_ellipsis = [&] {
    for (size_t k = ellipsis.size(); k-- > 0;) out.push_back(ellipsis[k].value());
  };
  if (!parsed.output) {  // implicit
    put_ellipsis();
    for (int x = 0; x < 52; ++x)
      if (count[x] == 1) out.push_back(label[x].value());
    return out;
  }
  const Term o = parse_term(*parsed.output, "the output term");
  std::array<bool, 52> used{};
  for (size_t k = 0; k <= o.labels.size(); ++k) {
    if (static_cast<int>(k) == o.ellipsis_at) put_ellipsis();
    if (k == o.labels.size()) break;
    const char c = o.labels[k];
    const int x = letter_index(c);
    if (!label[x].seen) throw std::invalid_argument("output label '" + std::string(1, c) + "' is in no input");
    if (used[x]) throw std::invalid_argument("output label '" + std::string(1, c) + "' appears twice");
    used[x] = true;
    out.push_back(label[x].value());
  }
  return out;
}

}  // namespace memplan::onnx_fe
