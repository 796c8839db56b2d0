// Linear algebra: matmul, linear, einsum, outer (operators.md §3.8).
#include <map>

#include "analysis/ops/common.h"

namespace raxc::analysis::ops {

namespace {

using ir::DataType;
using ir::PrimExpr;
using Dims = std::vector<const PrimExpr*>;

const ir::VDevice* matmul_vdevice(const ir::TensorSInfo& a, const ir::TensorSInfo& b) {
  if (a.vdevice && b.vdevice) return first_vdevice({&a, &b});
  return a.vdevice ? a.vdevice : b.vdevice;
}

// matmul of two tensors (the shared part of matmul and linear).
const ir::StructInfo* matmul_of(InferContext& ctx, const ir::TensorSInfo& a, Dims const* a_dims,
                                const ir::TensorSInfo& b, Dims const* b_dims, DataType dtype,
                                const ir::VDevice* vdev) {
  int r1 = a.ndim, r2 = b.ndim;
  if (r1 < 0 || r2 < 0) return rank_only(ctx, -1, dtype, vdev);
  if (r1 == 0 || r2 == 0) {
    ctx.report(diag::OperatorArgumentWrongKind{.op = op_text(ctx),
                                               .parameter = r1 == 0 ? "x1" : "x2",
                                               .expected = "a tensor of rank at least 1",
                                               .sinfo = sinfo_text(r1 == 0 ? &a : &b)},
               r1 == 0 ? ctx.arg_span(0) : ctx.arg_span(1));
    return rank_only(ctx, -1, dtype, vdev);
  }
  bool prepend = r1 == 1, append = r2 == 1;
  int p1 = prepend ? 2 : r1, p2 = append ? 2 : r2;
  int out_rank = std::max(p1, p2) - int(prepend) - int(append);
  if (!a_dims || !b_dims) return rank_only(ctx, out_rank, dtype, vdev);
  auto& an = ctx.analyzer;
  Dims x = *a_dims, y = *b_dims;
  if (prepend) x.insert(x.begin(), an.make_int(1));
  if (append) y.push_back(an.make_int(1));
  Dims bx(x.begin(), x.end() - 2), by(y.begin(), y.end() - 2);
  auto batch = broadcast(ctx, bx, by, sinfo_text(&a), sinfo_text(&b), ctx.call.span);
  if (!batch) return rank_only(ctx, out_rank, dtype, vdev);
  const PrimExpr* k1 = x[x.size() - 1];
  const PrimExpr* k2 = y[y.size() - 2];
  check_dims_equal(ctx, k1, "the reduction length of x1", k2, "that of x2", ctx.call.span);
  Dims out = *batch;
  if (!prepend) out.push_back(x[x.size() - 2]);
  if (!append) out.push_back(y[y.size() - 1]);
  return make_tensor(ctx, std::move(out), dtype, vdev);
}

DataType matmul_dtype(InferContext& ctx, const ir::TensorSInfo& a, const ir::TensorSInfo& b) {
  std::optional<DataType> out = attr_dtype(ctx, "out_dtype");
  if (out && !out->is_void()) return *out;
  return arith_dtype(ctx, a.dtype, b.dtype, "both operands", ctx.call.span);
}

const ir::StructInfo* infer_matmul(InferContext& ctx) {
  const ir::TensorSInfo* a = tensor_arg(ctx, "x1");
  const ir::TensorSInfo* b = tensor_arg(ctx, "x2");
  if (!a || !b) return rank_only(ctx, -1, DataType::Void(), nullptr);
  DataType dtype = matmul_dtype(ctx, *a, *b);
  auto da = s_dims(*a), db = s_dims(*b);
  return matmul_of(ctx, *a, da ? &*da : nullptr, *b, db ? &*db : nullptr, dtype,
                   matmul_vdevice(*a, *b));
}

// linear(data, weight, bias) = matmul(data, permute_dims(weight)) + bias.
const ir::StructInfo* infer_linear(InferContext& ctx) {
  const ir::TensorSInfo* a = tensor_arg(ctx, "data");
  const ir::TensorSInfo* w = tensor_arg(ctx, "weight");
  const ir::TensorSInfo* bias = nullptr;
  if (arg_sinfo(ctx, "bias") && !ir::isa<ir::ObjectSInfo>(arg_sinfo(ctx, "bias")))
    bias = tensor_arg(ctx, "bias");
  if (!a || !w) return rank_only(ctx, -1, DataType::Void(), nullptr);
  DataType dtype = matmul_dtype(ctx, *a, *w);
  auto da = s_dims(*a);
  std::optional<Dims> wt;
  if (auto dw = s_dims(*w)) wt = Dims(dw->rbegin(), dw->rend());
  const ir::StructInfo* mm = matmul_of(ctx, *a, da ? &*da : nullptr, *w, wt ? &*wt : nullptr, dtype,
                                       matmul_vdevice(*a, *w));
  auto* t = ir::dyn_cast<ir::TensorSInfo>(mm);
  if (!bias || !t) return mm;
  DataType out = arith_dtype(ctx, t->dtype, bias->dtype, "the product and the bias", ctx.call.span);
  auto dm = s_dims(*t), dbias = v_dims(*bias);
  if (dm && dbias) {
    auto r = broadcast(ctx, *dm, *dbias, sinfo_text(t), sinfo_text(bias), ctx.call.span);
    if (r) return make_tensor(ctx, std::move(*r), out, t->vdevice);
  }
  int ndim = (t->ndim < 0 || bias->ndim < 0) ? -1 : std::max(t->ndim, bias->ndim);
  return rank_only(ctx, ndim, out, t->vdevice);
}

const ir::StructInfo* infer_outer(InferContext& ctx) {
  const ir::TensorSInfo* a = tensor_arg(ctx, "x1");
  const ir::TensorSInfo* b = tensor_arg(ctx, "x2");
  if (!a || !b) return rank_only(ctx, 2, DataType::Void(), nullptr);
  for (auto [t, name, i] : {std::tuple{a, "x1", 0}, std::tuple{b, "x2", 1}})
    if (t->ndim != 1)
      ctx.report(
          diag::OperatorArgumentWrongRank{
              .op = op_text(ctx), .parameter = name, .ndim = "1", .sinfo = sinfo_text(t)},
          ctx.arg_span(size_t(i)));
  auto da = s_dims(*a), db = s_dims(*b);
  if (a->ndim == 1 && b->ndim == 1 && da && db)
    return make_tensor(ctx, {(*da)[0], (*db)[0]}, a->dtype, nullptr);
  return rank_only(ctx, 2, a->dtype, nullptr);
}

// numpy einsum shapes from the subscripts ("ij,jk->ik"; spaces ignored; no "..." support
// beyond rank-only).
const ir::StructInfo* infer_einsum(InferContext& ctx) {
  auto ts = tensor_tuple_arg(ctx, "operands");
  std::optional<std::string> subs = attr_string(ctx, "subscripts");
  if (!ts) return rank_only(ctx, -1, DataType::Void(), nullptr);
  if (ts->empty()) {
    ctx.report(
        diag::OperatorInvalidAttribute{
            .op = op_text(ctx), .attribute = "operands", .reason = "at least one tensor is needed"},
        ctx.arg_span(0));
    return rank_only(ctx, -1, DataType::Void(), nullptr);
  }
  DataType dtype = (*ts)[0]->dtype;
  for (const ir::TensorSInfo* t : *ts)
    if (t->dtype != dtype) {
      ctx.report(diag::OperatorDtypeMismatch{.op = op_text(ctx),
                                             .operands = "all operands",
                                             .first = dtype.str(),
                                             .second = t->dtype.str()},
                 ctx.arg_span(0));
      break;
    }
  const ir::VDevice* vdev = first_vdevice(*ts);
  if (!subs) return rank_only(ctx, -1, dtype, vdev);
  std::string s;
  for (char c : *subs)
    if (c != ' ') s += c;
  if (s.find("...") != std::string::npos) return rank_only(ctx, -1, dtype, vdev);
  std::string lhs = s, rhs;
  bool explicit_out = false;
  if (size_t arrow = s.find("->"); arrow != std::string::npos) {
    lhs = s.substr(0, arrow);
    rhs = s.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  size_t start = 0;
  for (size_t i = 0; i <= lhs.size(); ++i)
    if (i == lhs.size() || lhs[i] == ',') {
      terms.push_back(lhs.substr(start, i - start));
      start = i + 1;
    }
  Span at = param_span(ctx, param(ctx, "subscripts"));
  if (terms.size() != ts->size()) {
    ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                              .attribute = "subscripts",
                                              .reason = std::to_string(terms.size()) +
                                                        " operand terms for " +
                                                        std::to_string(ts->size()) + " operands"},
               at);
    return rank_only(ctx, -1, dtype, vdev);
  }
  std::map<char, const PrimExpr*> extent;
  std::map<char, int> count;
  bool shapes_known = true;
  for (size_t i = 0; i < terms.size(); ++i) {
    const ir::TensorSInfo* t = (*ts)[i];
    if (t->ndim >= 0 && size_t(t->ndim) != terms[i].size()) {
      ctx.report(diag::OperatorArgumentWrongRank{.op = op_text(ctx),
                                                 .parameter = "operand " + std::to_string(i),
                                                 .ndim = std::to_string(terms[i].size()),
                                                 .sinfo = sinfo_text(t)},
                 ctx.arg_span(0));
      return rank_only(ctx, -1, dtype, vdev);
    }
    auto dims = s_dims(*t);
    for (size_t j = 0; j < terms[i].size(); ++j) {
      char c = terms[i][j];
      ++count[c];
      if (!dims) {
        shapes_known = false;
        continue;
      }
      const PrimExpr* d = (*dims)[j];
      auto it = extent.find(c);
      if (it == extent.end() || ctx.analyzer.as_int(it->second) == 1) {
        extent[c] = d;
      } else if (ctx.analyzer.as_int(d) != 1) {
        check_dims_equal(ctx, d,
                         std::string("the extent of '") + c + "' in operand " + std::to_string(i),
                         it->second, "its earlier extent", at);
      }
    }
  }
  if (!explicit_out)
    for (auto& [c, n] : count)
      if (n == 1) rhs += c;
  if (!shapes_known) return rank_only(ctx, int(rhs.size()), dtype, vdev);
  Dims out;
  for (char c : rhs) {
    auto it = extent.find(c);
    if (it == extent.end()) {
      ctx.report(diag::OperatorInvalidAttribute{.op = op_text(ctx),
                                                .attribute = "subscripts",
                                                .reason = std::string("output index '") + c +
                                                          "' does not appear in the inputs"},
                 at);
      return rank_only(ctx, int(rhs.size()), dtype, vdev);
    }
    out.push_back(it->second);
  }
  return make_tensor(ctx, std::move(out), dtype, vdev);
}

}  // namespace

void register_linalg(std::vector<OpDef>& table) {
  using K = ArgKind;
  table.push_back(make_op("relax.matmul", "R.matmul", {{"x1", K::Tensor}, {"x2", K::Tensor}},
                          {{"out_dtype", K::DType, true, "None"}}, infer_matmul,
                          "matrix product with numpy batch broadcasting"));
  table.push_back(
      make_op("relax.linear", "R.linear",
              {{"data", K::Tensor}, {"weight", K::Tensor}, {"bias", K::Tensor, true, "None"}},
              {{"out_dtype", K::DType, true, "None"}}, infer_linear, "data @ weight^T + bias"));
  table.push_back(make_op("relax.outer", "R.outer", {{"x1", K::Tensor}, {"x2", K::Tensor}}, {},
                          infer_outer, "outer product of two vectors"));
  table.push_back(make_op("relax.einsum", "R.einsum", {{"operands", K::Tuple}},
                          {{"subscripts", K::String}}, infer_einsum,
                          "Einstein summation over a tuple of tensors"));
}

}  // namespace raxc::analysis::ops
