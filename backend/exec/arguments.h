// The arguments of `raxc run FILE.rx ARG...`: one text per parameter of the entry function,
// turned into values of the parameter's annotated kind and dtype. A text is a `.npy` file, a
// literal (`3`, `2.5`, `true`, `[[1, 2], [3, 4]]`, `(2, 3)` for an R.Shape, `"text"`), or
// `random` / `zeros` / `ones`, shaped from the annotation. Symbolic dimensions are taken from
// the inputs that fix them (in parameter order, as a call binds them), then from `--bind`,
// then from `--default-dim`; one still unknown is an error naming it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "backend/runtime/value.h"
#include "frontend/diagnostics.h"
#include "frontend/ir/expr.h"

namespace raxc::backend {

struct ArgumentOptions {
  std::vector<std::pair<std::string, int64_t>> binds;  // --bind NAME=VALUE
  std::optional<int64_t> default_dim;                  // --default-dim N
  bool random = false;                                 // --random: every parameter is `random`
  uint64_t seed = 0;                                   // --seed S
};

// The values, or the diagnostic (RX5002 wrong count, RX5030 a bad argument, RX5031 an unknown
// dimension; spans point at the parameter).
std::variant<std::vector<runtime::Value>, Diagnostic> make_arguments(
    const ir::Function& f, const std::string& name, const std::vector<std::string>& texts,
    const ArgumentOptions& options);

}  // namespace raxc::backend
