// Semantic tokens (textDocument/semanticTokens/full and /range) from the Engine's name tokens
// and symbol resolution. The legend follows editors.md §3.2: standard token types where they
// exist, so themes colour them without extension settings, plus the custom modifiers `dataflow`
// (variables bound in a dataflow block) and `tir` (PrimFuncs). One token per line, no overlaps
// (VS Code declares neither multiline nor overlapping token support).
#pragma once
#include <nlohmann/json.hpp>

#include "lsp/features.h"

namespace raxc::lsp {

// {"tokenTypes": [...], "tokenModifiers": [...]} for the initialize result.
nlohmann::json semantic_tokens_legend();

// {"data": [...]} for the whole document, or for params.range when `ranged`.
nlohmann::json semantic_tokens(const Snapshot& snapshot, const nlohmann::json& params,
                               const FeatureOptions& options, bool ranged);

}  // namespace raxc::lsp
