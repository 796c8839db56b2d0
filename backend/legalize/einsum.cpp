// Legalization of einsum (operators.md §3.8, numpy's rules): the subscripts name every axis
// with a letter; `...` stands for the leading axes an operand has beyond its letters
// (right-aligned and broadcast across operands, a literal 1 stretching). The result's letters
// are those after `->`, or (implicit form) the letters used exactly once, alphabetically,
// after the broadcast axes. One stage: the result's axes spatial, every other letter a
// reduction, the product of the operands accumulated in float32 for 16-bit floats.
#include <algorithm>
#include <map>

#include "backend/legalize/rules.h"

namespace raxc::backend::legalize {

using ir::DataType;
using ir::PrimExpr;

namespace {

// One operand's labels: letters, and '0'.. '9' standing for broadcast axis k of `...`
// (counted from the right, '0' the innermost).
using Labels = std::vector<char>;

std::optional<Labels> expand(const std::string& term, size_t rank, size_t* ellipsis_rank) {
  Labels out;
  size_t dots = term.find("...");
  std::string head = dots == std::string::npos ? term : term.substr(0, dots);
  std::string tail = dots == std::string::npos ? "" : term.substr(dots + 3);
  for (char c : head + tail)
    if (!std::isalpha(static_cast<unsigned char>(c))) return std::nullopt;
  if (head.size() + tail.size() > rank) return std::nullopt;
  size_t e = dots == std::string::npos ? 0 : rank - head.size() - tail.size();
  if (dots == std::string::npos && head.size() != rank) return std::nullopt;
  if (e > 10) return std::nullopt;
  *ellipsis_rank = std::max(*ellipsis_rank, e);
  out.assign(head.begin(), head.end());
  for (size_t k = e; k-- > 0;) out.push_back(char('0' + k));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

const ir::Stmt* einsum_rule(RuleContext& ctx) {
  Builder& b = ctx.b;
  std::string subscripts = analysis::ops::attr_string(ctx.infer, "subscripts").value_or("");
  subscripts.erase(std::remove(subscripts.begin(), subscripts.end(), ' '), subscripts.end());
  size_t arrow = subscripts.find("->");
  std::string lhs = subscripts.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != ctx.inputs.size()) return ctx.refuse("subscripts for another operand count");
  size_t ell = 0;
  std::vector<Labels> in_labels;
  for (size_t i = 0; i < terms.size(); ++i) {
    auto l = expand(terms[i], ctx.in(i)->shape.size(), &ell);
    if (!l) return ctx.refuse("subscripts that do not match the operands' ranks");
    in_labels.push_back(*l);
  }
  // The extent of every label: the first operand's that is not a literal 1.
  std::map<char, const PrimExpr*> extent;
  std::map<char, int> uses;
  for (size_t i = 0; i < in_labels.size(); ++i)
    for (size_t d = 0; d < in_labels[i].size(); ++d) {
      char c = in_labels[i][d];
      ++uses[c];
      int64_t one = 0;
      const PrimExpr* e = ctx.in(i)->shape[d];
      if (!extent.count(c) || (literal(extent[c], &one) && one == 1)) extent[c] = e;
    }
  Labels out;
  if (arrow != std::string::npos) {
    size_t ignored = 0;
    auto l = expand(subscripts.substr(arrow + 2), ctx.out()->shape.size(), &ignored);
    if (!l) return ctx.refuse("an output subscript that does not match the result");
    out = *l;
  } else {
    for (size_t k = ell; k-- > 0;) out.push_back(char('0' + k));
    for (auto& [c, n] : uses)
      if (std::isalpha(static_cast<unsigned char>(c)) && n == 1) out.push_back(c);
  }
  if (out.size() != ctx.out()->shape.size()) return ctx.refuse("this result");
  Labels all = out;
  for (auto& [c, n] : extent)
    if (std::find(out.begin(), out.end(), c) == out.end()) all.push_back(c);
  Exprs extents;
  for (char c : all) {
    if (!extent.count(c)) return ctx.refuse("an output subscript no operand has");
    extents.push_back(extent[c]);
  }
  Exprs reduce(extents.begin() + out.size(), extents.end());
  return accumulate(ctx, "T_einsum", reduce, [&](const Exprs& v, DataType c) {
    auto var_of = [&](char l) { return v[std::find(all.begin(), all.end(), l) - all.begin()]; };
    const PrimExpr* prod = nullptr;
    for (size_t i = 0; i < in_labels.size(); ++i) {
      Exprs idx;
      for (size_t d = 0; d < in_labels[i].size(); ++d) {
        int64_t one = 0;
        bool stretch = literal(ctx.in(i)->shape[d], &one) && one == 1;
        idx.push_back(stretch ? b.i64(0) : var_of(in_labels[i][d]));
      }
      const PrimExpr* x = b.cast(c, b.load(ctx.in(i), idx));
      prod = prod ? b.mul(prod, x) : x;
    }
    return prod;
  });
}

}  // namespace

void add_einsum_rules(std::vector<Rule>& t) {
  t.push_back({"relax.einsum", "einsum", einsum_rule});
}

}  // namespace raxc::backend::legalize
