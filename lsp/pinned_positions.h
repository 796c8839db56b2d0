// The positions a request names, pinned to byte offsets of the text it was asked against, so a
// request that has to wait for the analysis of a newer text can still be answered: each pin
// moves with the edits made since (the EditLog's byte-offset edits), and the request is only
// stale (ContentModified) when an edit replaced text at one of its positions. This is how
// definition, references, rename, code actions, formatting and selection ranges keep answering
// while the user types, instead of failing on every keystroke.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "frontend/document.h"
#include "frontend/source.h"
#include "lsp/position.h"

namespace raxc::lsp {

class PinnedPositions {
 public:
  PinnedPositions() = default;
  // Pins every {"line", "character"} object of `params` ("position", a range's ends,
  // "positions", the ranges of a code action's diagnostics) to its offset in `text`.
  PinnedPositions(const nlohmann::json& params, const SourceFile& text, PositionEncoding encoding);

  // Moves the pins through `edits`, applied in order. False when an edit replaced text at a
  // pin (the request no longer means anything in the new text).
  bool follow(const std::vector<frontend::TextEdit>& edits);

  // `params` with every pinned position rewritten for `text`.
  nlohmann::json place(nlohmann::json params, const SourceFile& text,
                       PositionEncoding encoding) const;

 private:
  std::vector<std::pair<nlohmann::json::json_pointer, uint32_t>> pins_;
};

}  // namespace raxc::lsp
