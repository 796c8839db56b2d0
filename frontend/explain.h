// The long explanations of diagnostic codes (`raxc explain RX3000`, the pages the language
// server links to): one section per registry code in frontend/diagnostics_explained.md,
// compiled into the binary, rendered as terminal text, Markdown or one HTML page.
#pragma once
#include <span>
#include <string>
#include <string_view>

#include "frontend/diagnostics.h"

namespace raxc {

// One "## RXnnnn" section of diagnostics_explained.md.
struct Explanation {
  std::string_view code;  // "RX3000"
  std::string_view body;  // the Markdown after the heading line, without trailing blank lines
};

// Every section, in the order of the file.
std::span<const Explanation> all_explanations();
// The section of `code`, or nullptr.
const Explanation* find_explanation(std::string_view code);

enum class ExplainFormat { Text, Markdown, Html };

// One code: a heading with its code, default severity and message template, then the section
// (or a line saying there is none). Html gives a <section> fragment with id="RXnnnn".
std::string render_explanation(const DiagInfo& info, ExplainFormat format);
// Every registry code in registry order, one line each: code, severity, message template.
std::string render_code_list(ExplainFormat format);
// A standalone HTML page: the list of codes, then every code's section (anchors "#RXnnnn").
std::string render_explanations_page();

}  // namespace raxc
