/*
 * External scanner for the Relax TVMScript (.rx) tree-sitter grammar.
 *
 * Produces:
 *   _newline, _indent, _dedent   Python-style logical lines and indentation
 *   string_start / string_content / string_end
 *                                string bodies ('…', "…", '''…''', """…""",
 *                                optional r/b/u prefixes); escape sequences are
 *                                left to the internal lexer (escape_sequence)
 *   _dataflow_namespace          the identifier `R` of `with R.dataflow():`,
 *                                recognised only when `.dataflow` follows
 *   _reserved_word               a keyword where a name could start (see
 *                                RESERVED_ALWAYS); the grammar makes it a
 *                                dead end (ERROR)
 *   _never                       never produced (dead ends in the grammar)
 *   ( [ { ) ] }                  the brackets, to track the bracket depth
 *
 * Lines and indentation follow Python's lexical rules, restricted to what the
 * format needs (text-format.md §2):
 *   - blank lines and comment-only lines produce no tokens;
 *   - inside ( [ { line ends and indentation are whitespace (implicit line
 *     joining); outside brackets a line end is always a _newline token, also
 *     where the statement cannot end (then the parser reports an error);
 *   - a backslash before a line end joins the lines;
 *   - "\r\n" and "\n" end lines; a form feed or a lone "\r" resets the column;
 *   - a tab advances the column to the next multiple of 8;
 *   - a UTF-8 byte order mark is whitespace that does not count as a column;
 *   - a statement indented deeper than its block, a dedent to a column that
 *     matches no enclosing block, and a missing indented block are reported
 *     through tokens that the grammar turns into ERROR nodes;
 *   - at end of input every open indentation level is closed.
 *
 * Recovery (a statement that ends badly costs that statement only):
 *   - outside brackets a line end is a _newline also while the parser is
 *     recovering from an error, so that `z = R.nn.` does not swallow the
 *     next line;
 *   - inside brackets, a line that starts at the enclosing block's column or
 *     left of it with something that begins a statement (a decorator, a
 *     statement keyword, a binding `a =` / `a: ...` / `a, b =`, `R.output`)
 *     closes every open bracket: the scanner forgets them and emits a
 *     _newline there, so `z = R.add(out, ` ends before the next statement
 *     instead of joining the rest of the block.
 *
 * Which state the parser is in is read from valid_symbols: _indent is valid
 * wherever a statement may start (the grammar's `_indented_statements`
 * makes it so; also at the start of a suite and after a decorator), and
 * tree-sitter marks every symbol valid during error recovery.
 *
 * Robustness: every loop consumes input or terminates, the indentation stack
 * has a fixed capacity, and the serialized state is at most
 * 3 + 2 * (MAX_INDENTS - 1) bytes, well under
 * TREE_SITTER_SERIALIZATION_BUFFER_SIZE.  No heap allocation besides the
 * scanner object itself.
 */

#include "tree_sitter/parser.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum TokenType {
  NEWLINE,
  INDENT,
  DEDENT,
  STRING_START,
  STRING_CONTENT,
  STRING_END,
  DATAFLOW_NAMESPACE,
  RESERVED_WORD,
  NEVER,
  OPEN_PAREN,
  OPEN_BRACKET,
  OPEN_BRACE,
  CLOSE_PAREN,
  CLOSE_BRACKET,
  CLOSE_BRACE,
};

/* Words that must never be identifiers.  tree-sitter keywords are contextual
 * (a keyword that is not valid in the current parse state is lexed as an
 * identifier), so wherever a name may start the scanner emits
 * _reserved_word, a dead end in the grammar, for:
 *   - Python keywords the format never uses (text-format.md §2);
 *   - keywords that can never start an expression or a statement;
 *   - statement keywords, except at the start of a statement (where the
 *     grammar accepts them as keywords: _indent is valid exactly there).
 * `not`, `lambda`, `True`, `False`, `None` start expressions and are never
 * reported here. */
static const char *const RESERVED_ALWAYS[] = {
    "yield", "try", "except", "finally", "raise", "global", "nonlocal",
    "async", "await", "del",
    "in", "is", "and", "or", "as",
};
static const char *const RESERVED_MID_STATEMENT[] = {
    "if", "elif", "else", "for", "while", "with", "def", "class", "return",
    "pass", "break", "continue", "assert", "import", "from",
};

/* Keywords that begin a statement: a line inside brackets that starts with
 * one at or left of the block's column ends the unclosed statement. */
static const char *const STATEMENT_KEYWORDS[] = {
    "return", "with", "if", "elif", "else", "def", "class", "for", "while",
    "pass", "assert", "import", "from", "break", "continue",
};

static bool word_in(const char *word, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (strcmp(word, list[i]) == 0) return true;
  }
  return false;
}

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

enum {
  DELIM_SINGLE = 1 << 0, /* ' */
  DELIM_DOUBLE = 1 << 1, /* " */
  DELIM_TRIPLE = 1 << 2,
  DELIM_RAW = 1 << 3,
  DELIM_BYTES = 1 << 4,
};

/* 3 + 2 * (MAX_INDENTS - 1) must stay below
 * TREE_SITTER_SERIALIZATION_BUFFER_SIZE (1024). */
#define MAX_INDENTS 256
#define MAX_COLUMN 0xFFFFu

typedef struct {
  bool fresh;        /* no external token produced yet (start of input) */
  uint8_t delimiter; /* 0 when not inside a string */
  uint16_t brackets; /* open ( [ { not yet closed (saturating) */
  uint16_t depth;    /* entries used in indents; always >= 1 */
  uint16_t indents[MAX_INDENTS];
} Scanner;

static inline void advance(TSLexer *lexer) { lexer->advance(lexer, false); }
static inline void skip(TSLexer *lexer) { lexer->advance(lexer, true); }

static inline bool is_ident_start(int32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool is_ident_char(int32_t c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}

static void scanner_reset(Scanner *s) {
  s->fresh = true;
  s->delimiter = 0;
  s->brackets = 0;
  s->depth = 1;
  s->indents[0] = 0;
}

/* ---------------------------------------------------------------------- */
/* Strings                                                                 */
/* ---------------------------------------------------------------------- */

/* Called inside a string: returns string_content (a maximal run of ordinary
 * characters) or string_end.  Stops before a backslash of a non-raw string so
 * that the internal lexer produces an escape_sequence. */
static bool scan_string_body(Scanner *s, TSLexer *lexer) {
  uint8_t d = s->delimiter;
  int32_t quote = (d & DELIM_SINGLE) ? '\'' : '"';
  bool triple = (d & DELIM_TRIPLE) != 0;
  bool has_content = false;

  lexer->result_symbol = STRING_CONTENT;
  for (;;) {
    if (lexer->eof(lexer)) {
      /* Unterminated string: hand back what we have; the parser reports it. */
      lexer->mark_end(lexer);
      return has_content;
    }
    int32_t c = lexer->lookahead;
    if (c == '\\') {
      if (d & DELIM_RAW) {
        /* In a raw string a backslash and the character after it are
         * content (so r"\"" does not end at the escaped quote). */
        advance(lexer);
        has_content = true;
        if (lexer->eof(lexer)) continue;
        if (lexer->lookahead == '\r') {
          advance(lexer);
          if (!lexer->eof(lexer) && lexer->lookahead == '\n') advance(lexer);
        } else {
          advance(lexer);
        }
        continue;
      }
      lexer->mark_end(lexer);
      return has_content;
    }
    if (c == quote) {
      if (!triple) {
        if (has_content) {
          lexer->mark_end(lexer);
          return true;
        }
        advance(lexer);
        lexer->mark_end(lexer);
        s->delimiter = 0;
        lexer->result_symbol = STRING_END;
        return true;
      }
      lexer->mark_end(lexer);
      advance(lexer);
      if (!lexer->eof(lexer) && lexer->lookahead == quote) {
        advance(lexer);
        if (!lexer->eof(lexer) && lexer->lookahead == quote) {
          if (has_content) return true; /* content ends before the quotes */
          advance(lexer);
          lexer->mark_end(lexer);
          s->delimiter = 0;
          lexer->result_symbol = STRING_END;
          return true;
        }
      }
      /* One or two quotes inside a triple-quoted string are content. */
      has_content = true;
      continue;
    }
    if ((c == '\n' || c == '\r') && !triple) {
      /* A line end inside a single-quoted string: unterminated. */
      lexer->mark_end(lexer);
      return has_content;
    }
    advance(lexer);
    has_content = true;
  }
}

/* At an opening quote: consume it (three if triple) and emit string_start. */
static bool scan_string_start(Scanner *s, TSLexer *lexer, uint8_t flags) {
  int32_t quote = lexer->lookahead;
  flags |= (quote == '\'') ? DELIM_SINGLE : DELIM_DOUBLE;
  advance(lexer);
  lexer->mark_end(lexer);
  if (!lexer->eof(lexer) && lexer->lookahead == quote) {
    advance(lexer);
    if (!lexer->eof(lexer) && lexer->lookahead == quote) {
      advance(lexer);
      lexer->mark_end(lexer);
      flags |= DELIM_TRIPLE;
    }
    /* else: an empty string ""; the token is just the first quote */
  }
  s->delimiter = flags;
  lexer->result_symbol = STRING_START;
  return true;
}

/* Match `[ \t]* . [ \t]* dataflow` followed by a non-identifier character.
 * The token end has already been marked; this only looks ahead. */
static bool lookahead_is_dot_dataflow(TSLexer *lexer) {
  static const char kw[] = "dataflow";
  while (!lexer->eof(lexer) && (lexer->lookahead == ' ' || lexer->lookahead == '\t')) advance(lexer);
  if (lexer->eof(lexer) || lexer->lookahead != '.') return false;
  advance(lexer);
  while (!lexer->eof(lexer) && (lexer->lookahead == ' ' || lexer->lookahead == '\t')) advance(lexer);
  for (const char *k = kw; *k; ++k) {
    if (lexer->eof(lexer) || lexer->lookahead != (int32_t)(unsigned char)*k) return false;
    advance(lexer);
  }
  return lexer->eof(lexer) || !is_ident_char(lexer->lookahead);
}

static inline void skip_blanks(TSLexer *lexer) {
  while (!lexer->eof(lexer) && (lexer->lookahead == ' ' || lexer->lookahead == '\t')) advance(lexer);
}

/* After the first word of a line: does the rest make it a statement?  A
 * binding (`a =`, `a: ann =`, `a, b =`) or `<ns>.output(` / `<ns>.func_attr(`.
 * Only looks ahead; the caller's token end is already marked. */
static bool rest_begins_statement(TSLexer *lexer) {
  skip_blanks(lexer);
  if (lexer->eof(lexer)) return false;
  if (lexer->lookahead == '.') {
    advance(lexer);
    skip_blanks(lexer);
    char word[16];
    unsigned length = 0;
    while (!lexer->eof(lexer) && is_ident_char(lexer->lookahead)) {
      if (length < sizeof(word) - 1) word[length++] = (char)lexer->lookahead;
      advance(lexer);
    }
    word[length] = '\0';
    skip_blanks(lexer);
    return (strcmp(word, "output") == 0 || strcmp(word, "func_attr") == 0) &&
           !lexer->eof(lexer) && lexer->lookahead == '(';
  }
  /* `a, b, c =`: more names separated by commas. */
  while (lexer->lookahead == ',') {
    advance(lexer);
    skip_blanks(lexer);
    if (lexer->eof(lexer) || !is_ident_start(lexer->lookahead)) return false;
    while (!lexer->eof(lexer) && is_ident_char(lexer->lookahead)) advance(lexer);
    skip_blanks(lexer);
    if (lexer->eof(lexer)) return false;
  }
  if (lexer->lookahead == ':') {
    advance(lexer);
    /* `a := b` is not a binding of this format; `a: ann = v` is */
    return lexer->eof(lexer) || lexer->lookahead != '=';
  }
  if (lexer->lookahead == '=') {
    advance(lexer);
    return lexer->eof(lexer) || lexer->lookahead != '=';
  }
  return false;
}

/* ---------------------------------------------------------------------- */
/* Main entry                                                              */
/* ---------------------------------------------------------------------- */

static bool scan(Scanner *s, TSLexer *lexer, const bool *valid) {
  /* During error recovery tree-sitter marks every symbol valid. */
  bool error_recovery = valid[STRING_CONTENT] && valid[INDENT];

  if (!error_recovery && s->delimiter != 0 && (valid[STRING_CONTENT] || valid[STRING_END])) {
    return scan_string_body(s, lexer);
  }

  lexer->mark_end(lexer);

  /* At the very start of the input the first line's indentation counts too
   * (statement starts are otherwise reached at the end of the previous line,
   * after a zero-width _newline / _dedent).  get_column is only needed (and
   * only called) before the first external token. */
  bool found_end_of_line = s->fresh && !error_recovery && valid[INDENT] &&
                           s->brackets == 0 && lexer->get_column(lexer) == 0;
  uint32_t column = 0;
  int32_t first_comment_column = -1;
  for (;;) {
    if (lexer->eof(lexer)) {
      found_end_of_line = true;
      column = 0;
      break;
    }
    int32_t c = lexer->lookahead;
    if (c == '\n') {
      found_end_of_line = true;
      column = 0;
      skip(lexer);
    } else if (c == ' ') {
      if (column < MAX_COLUMN) column++;
      skip(lexer);
    } else if (c == '\t') {
      column = (column / 8 + 1) * 8;
      if (column > MAX_COLUMN) column = MAX_COLUMN;
      skip(lexer);
    } else if (c == '\r' || c == '\f') {
      column = 0;
      skip(lexer);
    } else if (c == 0xFEFF) {
      skip(lexer); /* byte order mark */
    } else if (c == '#' && (valid[NEWLINE] || valid[INDENT] || valid[DEDENT])) {
      /* A comment after code on the same line: let the internal lexer take
       * it; we are called again at the line end. */
      if (!found_end_of_line) return false;
      if (first_comment_column < 0) first_comment_column = (int32_t)column;
      while (!lexer->eof(lexer) && lexer->lookahead != '\n' && lexer->lookahead != '\r') skip(lexer);
      column = 0;
    } else if (c == '\\') {
      /* Explicit line joining. */
      skip(lexer);
      if (!lexer->eof(lexer) && lexer->lookahead == '\r') skip(lexer);
      if (!lexer->eof(lexer) && lexer->lookahead == '\n') {
        skip(lexer);
      } else {
        /* A backslash not followed by a line end (also at end of input):
         * a syntax error; the internal lexer has no token for it. */
        return false;
      }
    } else {
      break;
    }
  }

  /* A line inside brackets that starts at or left of the block's column: it
   * may begin the next statement (checked below, once its first word is
   * read). */
  bool low_line_in_brackets = found_end_of_line && s->brackets > 0 && !lexer->eof(lexer) &&
                              first_comment_column < 0 &&
                              column <= s->indents[s->depth - 1];
  if (low_line_in_brackets && lexer->lookahead == '@') {
    s->brackets = 0;
    lexer->result_symbol = NEWLINE;
    return true;
  }

  if (found_end_of_line && s->brackets == 0) {
    uint16_t current = s->indents[s->depth - 1];

    if (valid[INDENT] && column > current && s->depth < MAX_INDENTS) {
      s->indents[s->depth++] = (uint16_t)column;
      lexer->result_symbol = INDENT;
      return true;
    }

    /* Dedent only once comments indented like the current block have been
     * consumed, so that they stay inside it. */
    if (valid[DEDENT] && column < current && s->depth > 1 &&
        first_comment_column < (int32_t)current) {
      s->depth--;
      lexer->result_symbol = DEDENT;
      return true;
    }

    if (valid[NEWLINE] && !error_recovery) {
      lexer->result_symbol = NEWLINE;
      return true;
    }

    /* While recovering, a line end still ends the broken statement; without
     * this the parser would join the next line to it (`z = R.nn.` followed
     * by `a = ...` read as the attribute `R.nn.a`). */
    if (error_recovery && column <= current && !lexer->eof(lexer)) {
      lexer->result_symbol = NEWLINE;
      return true;
    }

    /* A line end outside brackets where the statement cannot end (`x =`
     * followed by a line end): Python joins lines only inside brackets or
     * after a backslash.  Emit the (unexpected) _newline so that the parser
     * reports it.  _indent is valid exactly where a statement may start. */
    if (!error_recovery && !valid[INDENT] && !valid[DEDENT] && !lexer->eof(lexer)) {
      lexer->result_symbol = NEWLINE;
      return true;
    }
  }

  /* Brackets (always lexed here, so that the depth follows the text). */
  if (!lexer->eof(lexer) && first_comment_column < 0) {
    int32_t b = lexer->lookahead;
    int symbol = b == '(' ? OPEN_PAREN : b == '[' ? OPEN_BRACKET : b == '{' ? OPEN_BRACE
               : b == ')' ? CLOSE_PAREN : b == ']' ? CLOSE_BRACKET : b == '}' ? CLOSE_BRACE : -1;
    if (symbol >= 0) {
      advance(lexer);
      lexer->mark_end(lexer);
      if (symbol <= OPEN_BRACE) {
        if (s->brackets < 0xFFFF) s->brackets++;
      } else if (s->brackets > 0) {
        s->brackets--;
      }
      lexer->result_symbol = (uint16_t)symbol;
      return true;
    }
  }

  if (first_comment_column >= 0) return false;

  bool want_string = valid[STRING_START];
  bool want_namespace = valid[DATAFLOW_NAMESPACE] && !error_recovery;
  bool want_reserved = valid[RESERVED_WORD] && !error_recovery;
  if (!want_string && !want_namespace && !want_reserved && !low_line_in_brackets) return false;
  if (lexer->eof(lexer)) return false;

  int32_t c = lexer->lookahead;
  if (c == '"' || c == '\'') {
    return want_string && scan_string_start(s, lexer, 0);
  }
  if (!is_ident_start(c)) return false;

  /* An identifier: a string prefix (r, b, u, rb, br), a reserved word, or
   * the namespace of `with R.dataflow():`.  Only a short prefix is kept. */
  char word[16];
  unsigned length = 0;
  while (!lexer->eof(lexer) && is_ident_char(lexer->lookahead)) {
    if (length < sizeof(word) - 1) word[length] = (char)lexer->lookahead;
    if (length < sizeof(word)) length++;
    advance(lexer);
  }
  bool truncated = length >= sizeof(word);
  if (!truncated) word[length] = '\0';

  if (low_line_in_brackets) {
    bool keyword = !truncated && word_in(word, STATEMENT_KEYWORDS, COUNT_OF(STATEMENT_KEYWORDS));
    bool string_prefix = !truncated && length <= 2 && !lexer->eof(lexer) &&
                         (lexer->lookahead == '"' || lexer->lookahead == '\'');
    bool reserved = !truncated && word_in(word, RESERVED_ALWAYS, COUNT_OF(RESERVED_ALWAYS));
    if (keyword || (!string_prefix && !reserved && rest_begins_statement(lexer))) {
      /* The token stays zero-width (its end was marked before the line
       * break): the next scan sees the line break again, now at bracket
       * depth 0, and produces the indentation tokens of the new line. */
      s->brackets = 0;
      lexer->result_symbol = NEWLINE;
      return true;
    }
    if (!string_prefix && !reserved) return false;
    if (!want_string && !want_reserved) return false;
  }

  if (want_string && !truncated && length <= 2 && !lexer->eof(lexer) &&
      (lexer->lookahead == '"' || lexer->lookahead == '\'')) {
    uint8_t flags = 0;
    bool ok = true;
    for (unsigned i = 0; i < length; ++i) {
      char p = word[i];
      if (p == 'r' || p == 'R') {
        ok = ok && !(flags & DELIM_RAW);
        flags |= DELIM_RAW;
      } else if (p == 'b' || p == 'B') {
        ok = ok && !(flags & DELIM_BYTES);
        flags |= DELIM_BYTES;
      } else if (p == 'u' || p == 'U') {
        ok = ok && length == 1;
      } else {
        ok = false;
      }
    }
    if (ok) return scan_string_start(s, lexer, flags);
  }

  if (want_reserved && !truncated &&
      (word_in(word, RESERVED_ALWAYS, COUNT_OF(RESERVED_ALWAYS)) ||
       (!valid[INDENT] && word_in(word, RESERVED_MID_STATEMENT, COUNT_OF(RESERVED_MID_STATEMENT))))) {
    lexer->mark_end(lexer);
    lexer->result_symbol = RESERVED_WORD;
    return true;
  }

  if (want_namespace) {
    lexer->mark_end(lexer);
    if (lookahead_is_dot_dataflow(lexer)) {
      lexer->result_symbol = DATAFLOW_NAMESPACE;
      return true;
    }
  }
  return false;
}

/* ---------------------------------------------------------------------- */
/* tree-sitter interface                                                   */
/* ---------------------------------------------------------------------- */

void *tree_sitter_relax_external_scanner_create(void);
void tree_sitter_relax_external_scanner_destroy(void *payload);
unsigned tree_sitter_relax_external_scanner_serialize(void *payload, char *buffer);
void tree_sitter_relax_external_scanner_deserialize(void *payload, const char *buffer, unsigned length);
bool tree_sitter_relax_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols);

void *tree_sitter_relax_external_scanner_create(void) {
  Scanner *s = (Scanner *)calloc(1, sizeof(Scanner));
  if (s) scanner_reset(s);
  return s;
}

void tree_sitter_relax_external_scanner_destroy(void *payload) { free(payload); }

unsigned tree_sitter_relax_external_scanner_serialize(void *payload, char *buffer) {
  Scanner *s = (Scanner *)payload;
  unsigned size = 0;
  buffer[size++] = (char)((s->delimiter & 0x7F) | (s->fresh ? 0x80 : 0));
  buffer[size++] = (char)(s->brackets & 0xFF);
  buffer[size++] = (char)(s->brackets >> 8);
  for (uint16_t i = 1; i < s->depth && size + 2 <= TREE_SITTER_SERIALIZATION_BUFFER_SIZE; ++i) {
    buffer[size++] = (char)(s->indents[i] & 0xFF);
    buffer[size++] = (char)(s->indents[i] >> 8);
  }
  return size;
}

void tree_sitter_relax_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  Scanner *s = (Scanner *)payload;
  scanner_reset(s);
  if (length == 0) return;
  s->delimiter = (uint8_t)buffer[0] & 0x7F;
  s->fresh = ((uint8_t)buffer[0] & 0x80) != 0;
  if (length < 3) return;
  s->brackets = (uint16_t)((uint8_t)buffer[1] | ((uint16_t)(uint8_t)buffer[2] << 8));
  for (unsigned i = 3; i + 1 < length && s->depth < MAX_INDENTS; i += 2) {
    s->indents[s->depth++] =
        (uint16_t)((uint8_t)buffer[i] | ((uint16_t)(uint8_t)buffer[i + 1] << 8));
  }
}

bool tree_sitter_relax_external_scanner_scan(void *payload, TSLexer *lexer, const bool *valid_symbols) {
  Scanner *s = (Scanner *)payload;
  bool found = scan(s, lexer, valid_symbols);
  if (found) s->fresh = false;
  return found;
}
