// Values against StructInfo at run time (private to backend/exec): symbolic shape expressions
// evaluated in a frame, and the one matching procedure behind parameter checks, R.match_cast,
// return values and binding annotations. A symbolic variable that occurs on its own in a
// position not yet bound takes the value found there (first occurrence, in order); every other
// expression is evaluated once all bare variables are bound, and compared.
#pragma once
#include <optional>
#include <string>

#include "backend/exec/frame.h"

namespace raxc::backend {

// An int64 (or float) evaluation of a PrimExpr in `frame`; raises RX5020-style errors through
// `what` for unbound variables.
struct Scalar {
  bool is_float = false;
  int64_t i = 0;
  double f = 0;
  double as_f64() const { return is_float ? f : static_cast<double>(i); }
};
Scalar eval_prim(const ir::PrimExpr* e, const Frame& frame);
int64_t eval_dim(const ir::PrimExpr* e, const Frame& frame);

// "a float32 tensor of shape (2, 3)", "a tuple of 2 fields", "R.shape([2, 3])", ...
std::string describe_value(const runtime::Value& v);

// Checks `value` against `sinfo`, binding symbolic variables in `frame`. Returns the reason it
// does not match, or nullopt.
std::optional<std::string> match_struct_info(const runtime::Value& value,
                                             const ir::StructInfo* sinfo, Frame& frame);

// Several values matched as one: variables bound by an earlier value are known to later ones,
// and composite expressions are checked after all are bound (a function's parameters).
class StructMatcher {
 public:
  explicit StructMatcher(Frame& frame) : frame_(frame) {}
  // Returns the reason for a mismatch found while binding, or nullopt.
  std::optional<std::string> bind(const runtime::Value& value, const ir::StructInfo* sinfo);
  // Checks the deferred expressions; returns the index of the value (in bind() order) that
  // fails and the reason.
  std::optional<std::pair<size_t, std::string>> finish();

 private:
  std::optional<std::string> match(const runtime::Value& value, const ir::StructInfo* sinfo);
  std::optional<std::string> tensor(const runtime::Value& v, const ir::TensorSInfo* s);
  std::optional<std::string> shape(const std::vector<int64_t>& dims,
                                   const std::vector<const ir::PrimExpr*>& declared,
                                   const char* what);
  std::optional<std::string> dim(int64_t actual, const ir::PrimExpr* declared, std::string where);

  struct Deferred {
    size_t value_index;
    int64_t actual;
    const ir::PrimExpr* declared;
    std::string where;
  };
  Frame& frame_;
  size_t index_ = 0;
  std::vector<Deferred> deferred_;
};

}  // namespace raxc::backend
