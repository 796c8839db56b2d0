// Inlay hints: the inferred StructInfo after the name of each binding written without an
// annotation, so the person sees what inference found without hovering.
#include <algorithm>

#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {

std::vector<InlayHint> inlay_hints(FileRef file, Span range) {
  std::vector<InlayHint> hints;
  const std::string* text = file.engine.text(file.key);
  if (!text) return hints;
  for (const detail::FunctionAt& f : detail::functions(file)) {
    if (!f.inference || f.range.end <= range.begin || f.range.begin >= range.end) continue;
    for (const auto& [var, sinfo] : f.inference->var_sinfo) {
      if (!var || !sinfo || var->annotation) continue;
      Span name = detail::text_span(file, var->span);
      if (name.end < range.begin || name.end > range.end) continue;
      // Only binding sites written as the bare name (not parameters, which are annotated, nor
      // variables the normal form introduced).
      if (text->compare(name.begin, name.end - name.begin, var->name) != 0) continue;
      std::string printed = detail::print(sinfo);
      std::string label =
          ": " +
          (printed.size() > kMaxInlayLabel ? printed.substr(0, kMaxInlayLabel) + "…" : printed);
      hints.push_back({name.end, std::move(label), std::move(printed)});
    }
  }
  std::sort(hints.begin(), hints.end(),
            [](const InlayHint& a, const InlayHint& b) { return a.offset < b.offset; });
  return hints;
}

}  // namespace raxc::ide
