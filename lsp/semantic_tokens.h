// Semantic tokens (textDocument/semanticTokens/full and /range) from the Engine's name tokens
// and symbol resolution. The legend follows editors.md §3.2: standard token types where they
// exist, so themes colour them without extension settings, plus the custom modifiers `dataflow`
// (variables bound in a dataflow block) and `tir` (PrimFuncs). One token per line, no overlaps
// (VS Code declares neither multiline nor overlapping token support).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lsp/features.h"

namespace raxc::lsp {

// {"tokenTypes": [...], "tokenModifiers": [...]} for the initialize result.
nlohmann::json semantic_tokens_legend();

// {"data": [...]} for params.range, from a walk of the syntax tree limited to it.
nlohmann::json semantic_tokens_range(const Snapshot& snapshot, const nlohmann::json& params,
                                     const FeatureOptions& options);

// The data array (five integers per token, positions relative to the previous token) of the
// whole document. The names come from a lexical scan of the text (`R.add`, `R`, dtype strings)
// and the Engine's source maps (what each name resolves to): a syntax-tree walk of a large
// module visits millions of nodes, this reads the text once and each resolved name once.
std::vector<uint32_t> semantic_token_data(const Snapshot& snapshot, PositionEncoding encoding);
// The same from a walk of the syntax tree over `range`: what the range request answers and the
// definition the whole-document scan is tested against (test/unit/semantic_tokens_test.cpp).
std::vector<uint32_t> semantic_token_data_by_tree(const Snapshot& snapshot, Span range,
                                                  PositionEncoding encoding);

// `[1,2,3]`: the data array as JSON text, written directly (a json array of 400,000 numbers
// costs more to build and serialise than to compute).
std::string json_array_text(const std::vector<uint32_t>& data);

}  // namespace raxc::lsp
