// The four parts of the syntax check (frontend/syntax.h) and what they hand each other. Only
// frontend/syntax*.cpp include this header.
//
//   tokenize()     syntax_tokenizer.cpp  a Python-style tokenizer: tokens, logical lines,
//                                        indentation columns; invalid characters, strings and
//                                        brackets left open, stray closers
//   check_lines()  syntax_lines.cpp      one logical line at a time: indentation, missing ':',
//                                        dangling operators, juxtaposed operands
//   walk_tree()    syntax_tree.cpp       one iterative walk of the tree-sitter tree: error sites,
//                                        comments, nesting depth, what the grammar accepts but the
//                                        format forbids
//   combine()      syntax_combine.cpp    turns problems and error sites into one diagnostic per
//                                        problem, and the quarantined ranges
//
// Each part runs over a window of the text: the whole file, or one top-level definition (the
// incremental check of frontend/document.cpp). Offsets are always offsets in the whole text.
#pragma once
#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "frontend/diagnostics.h"
#include "frontend/lower/cst.h"
#include "frontend/printer/printer.h"
#include "frontend/syntax.h"

namespace raxc::frontend::syntax {

// More syntax errors than this in one file are noise (a binary file, a wrong file type).
constexpr size_t kMaxSyntaxErrors = 100;
// The scanner keeps at most 256 indentation levels, the outermost being column 0.
constexpr size_t kMaxIndentLevels = 255;

enum class Tok : uint8_t { Name, Number, String, Op, Open, Close, Invalid };

struct Token {
  Tok kind;
  uint32_t begin, end;
  uint32_t depth;  // open brackets around the token (for brackets: outside them)
};

// A logical line: a statement line with its bracket-joined and backslash-joined continuation.
struct LogicalLine {
  uint32_t first = 0, last = 0;  // token indices [first, last)
  uint32_t line_start = 0;       // offset of its first physical line
  uint32_t end = 0;              // offset after its last token
  uint32_t column = 0;           // indentation, a tab advancing to the next multiple of 8
  uint32_t alt_column = 0;       // indentation, a tab counting as 1 (Python's tab check)
};

// A problem found in the text. `certain` ones are facts of the tokenizer (an invalid character
// is invalid wherever it is); the others are inferences that are reported only where the tree
// also shows an error, so that a heuristic never contradicts a successful parse.
struct Problem {
  DiagPayload what;
  Span at;
  Span extent;  // the text the problem disturbs: tree errors inside it are its consequences
  bool certain;
  Span quarantine{};  // set for problems found in an error-free tree (they poison only this)
};

// Where the check runs. The whole file: {0, size, 0, 0, {}}. One definition: its span, the
// column its first line is indented to (a class member's), and the number of newlines before
// it (messages name lines).
struct Window {
  uint32_t begin = 0, end = 0;
  uint32_t column = 0;
  uint32_t base_line = 0;
  // Where top-level units start (sorted): a bracket still open there is closed by the
  // tokenizer (reported once), the way the grammar ends a broken statement at the next
  // statement, so one unclosed call never swallows the rest of the file.
  std::vector<uint32_t> unit_starts;
};

// What the tokenizer and the line checks found.
struct Tokens {
  std::vector<Token> tokens;
  std::vector<LogicalLine> lines;
  std::vector<Problem> problems;
  // Where the first string literal left open starts: the tokens after it are guesses.
  uint32_t first_unterminated_string = UINT32_MAX;
  std::vector<uint32_t> newlines;  // offsets of the '\n' bytes, increasing
  uint32_t base_line = 0;          // newlines before the window
  // The state at the end of the window, for the incremental check: it is only exact when the
  // next window starts afresh.
  bool open_at_end = false;        // a bracket or a string was still open
  bool indentation_error = false;  // the line checks were quiet after an indentation error
  bool pending_block = false;      // a header ending in ':' had no block yet

  uint32_t line_number(uint32_t offset) const;  // 1-based
};

// What the tree walk found.
struct Site {
  enum Type { Error, Missing, Hidden } type;
  TSNode node;
  Span span;
  cst::Kind parent;
};

struct TreeFindings {
  std::vector<Site> sites;
  std::vector<Problem> problems;
  bool too_deep = false;
};

Tokens tokenize(std::string_view text, const Window& window);
void check_lines(std::string_view text, const Window& window, Tokens& tokens);
// `top` is the root (whole file) or the definition's node; `depth` the number of its ancestors.
TreeFindings walk_tree(const cst::Cst& cst, TSNode top, cst::Kind parent, size_t depth,
                       std::vector<printer::Comment>& comments);
// `units` are the top-level nodes: the root's children, or the one definition.
void combine(const cst::Cst& cst, const std::vector<TSNode>& units, Tokens& tokens,
             const TreeFindings& tree, DiagnosticSink& sink, SyntaxCheck& result);

// The named (and ERROR) children of `node`, comments included.
std::vector<TSNode> children(TSNode node);

}  // namespace raxc::frontend::syntax
