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
//
// The check is built from four parts (tokenizer, line checks, tree walk, combination; see
// frontend/syntax_parts.h) that run over the whole file or over one top-level definition:
// check_definition_syntax() is what frontend/document.cpp reuses per definition while an edit
// leaves the others' text alone.
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

// The syntax check of one top-level definition (a child of the root or a member of a module
// class) of the tree of `cst`'s text, in text offsets.
struct DefinitionSyntax {
  std::vector<Diagnostic> diagnostics;  // sorted by position
  SyntaxCheck check;
  // True when the whole-file check reports exactly `diagnostics` and `check` for this text
  // whatever surrounds it, provided no other definition has a diagnostic: nothing is left open
  // at its end that the whole-file check would carry into the next definition (a string, an
  // indentation error, a header waiting for its block, a token it would name), no line of it
  // starts left of its first (which would leave the enclosing block), and it holds no
  // diagnostic that is capped per file.
  bool composable = false;
  // Its messages name line numbers: only valid while its first line stays where it was.
  bool names_lines = false;
};
DefinitionSyntax check_definition_syntax(const cst::Cst& cst, TSNode definition);

}  // namespace raxc::frontend
