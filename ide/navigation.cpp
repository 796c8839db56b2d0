// Definition, references and rename: the engine resolves names; this file turns its answers
// into what an editor shows (each occurrence once, the definition marked) and checks new names.
#include <algorithm>

#include "ide/context.h"
#include "ide/ide.h"

namespace raxc::ide {

std::optional<Span> definition(FileRef file, uint32_t offset) {
  std::optional<analysis::Symbol> symbol = file.engine.symbol_at(file.key, offset);
  if (!symbol) return std::nullopt;
  return symbol->definition;
}

std::vector<Reference> references(FileRef file, uint32_t offset, bool include_declaration) {
  std::optional<analysis::Symbol> symbol = file.engine.symbol_at(file.key, offset);
  if (!symbol) return {};
  std::vector<Reference> out;
  for (Span span : file.engine.references(file.key, offset, include_declaration)) {
    // Each place once: a definition and a use token may overlap (a quoted shape variable).
    bool seen = std::any_of(out.begin(), out.end(), [&](const Reference& r) {
      return r.span.begin < span.end && span.begin < r.span.end;
    });
    if (!seen) out.push_back({span, span == symbol->definition});
  }
  return out;
}

std::optional<RenameTarget> prepare_rename(FileRef file, uint32_t offset) {
  std::optional<analysis::Symbol> symbol = file.engine.symbol_at(file.key, offset);
  const frontend::Document* document = file.engine.document(file.key);
  std::optional<frontend::Token> token = document ? document->token_at(offset) : std::nullopt;
  if (!symbol || !token || token->text != symbol->name) return std::nullopt;
  return RenameTarget{token->span, symbol->name};
}

RenameResult rename(FileRef file, uint32_t offset, const std::string& new_name) {
  RenameResult result;
  if (!detail::is_identifier(new_name)) {
    result.error = "'" + new_name + "' is not a valid name";
    return result;
  }
  if (!file.engine.symbol_at(file.key, offset)) {
    result.error = "nothing to rename here";
    return result;
  }
  for (const Reference& r : references(file, offset, true))
    result.edits.push_back({r.span, new_name});
  return result;
}

}  // namespace raxc::ide
