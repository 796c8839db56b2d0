// Syntax diagnostics: turns tree-sitter's ERROR/MISSING nodes into precise, human messages
// ("expected ':' after function signature", "'(' was never closed", "unexpected indent", ...)
// and checks what the grammar accepts but the format forbids (inconsistent tabs, positional
// after keyword arguments, chained assignment).
//
// tree-sitter's error recovery places ERROR regions where the parser gave up, often far from
// the mistake (a missing ':' makes the ERROR start at 'def'). So the checker also runs a small
// Python-style tokenizer over the text (brackets with positions, logical lines, indentation
// columns) and reports the specific problems it finds; an ERROR region that no such problem
// explains gets the generic "unexpected <token>". One diagnostic per problem: the tree errors a
// problem explains, and every lowering diagnostic inside a definition that holds a syntax
// error, are consequences and are dropped (see SyntaxCheck::quarantined).
#pragma once
#include <tree_sitter/api.h>

#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lower/cst.h"
#include "frontend/printer/printer.h"

namespace raxc::frontend {

struct SyntaxCheck {
  // False when the tree is nested too deep to lower (RX1010): the lowering recurses.
  bool lowerable = true;
  // Byte ranges around syntax errors (the definition holding them, as the indentation shows
  // it). Lowering diagnostics that start in one are consequences of the error, not news.
  std::vector<Span> quarantined;

  bool is_quarantined(uint32_t offset) const;
};

// Reports syntax diagnostics (sorted by position) to `sink` and appends every comment of the
// tree to `comments`. Never recurses over the tree, so any nesting depth is safe.
SyntaxCheck check_syntax(const cst::Cst& cst, TSNode root, DiagnosticSink& sink,
                         std::vector<printer::Comment>& comments);

}  // namespace raxc::frontend
