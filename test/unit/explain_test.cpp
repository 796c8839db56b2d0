// `raxc explain`'s text as compiled into the binary: a section for every registry code and
// none for an unknown one, and the renderers keep the examples intact.
#include "frontend/explain.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "frontend/diagnostics.h"

using namespace raxc;

TEST_CASE("explain: every registry code has an explanation, no section names an unknown code") {
  for (const DiagInfo& entry : all_diagnostics()) {
    INFO("no explanation for " << entry.code << " in frontend/diagnostics_explained.md");
    const Explanation* section = find_explanation(entry.code);
    REQUIRE(section != nullptr);
    CHECK(section->body.find("Trigger") != std::string_view::npos);
    CHECK(section->body.find("Fix") != std::string_view::npos);
  }
  std::set<std::string_view> seen;
  for (const Explanation& section : all_explanations()) {
    INFO("section '## " << section.code << "'");
    CHECK(find_diagnostic(section.code).has_value());
    CHECK(seen.insert(section.code).second);  // one section per code
  }
}

TEST_CASE("explain: rendering") {
  const DiagInfo& rx3000 = info(DiagId::RX3000);
  std::string text = render_explanation(rx3000, ExplainFormat::Text);
  CHECK(text.starts_with(std::string("RX3000 (error): ") + rx3000.message + "\n"));
  // The arguments, as JSON output names them.
  CHECK(text.find(
            "\narguments: binding (Name), annotation (SInfo), inferred (SInfo), reason (Text)\n") !=
        std::string::npos);
  CHECK(text.find("```") == std::string::npos);  // fences become indented blocks
  CHECK(text.find("\n    ") != std::string::npos);

  std::string markdown = render_explanation(rx3000, ExplainFormat::Markdown);
  CHECK(markdown.starts_with("## RX3000 (error)"));
  CHECK(markdown.find("```rx") != std::string::npos);

  std::string html = render_explanation(info(DiagId::RX1001), ExplainFormat::Html);
  CHECK(html.starts_with("<section id=\"RX1001\">"));
  CHECK(html.find("<pre><code>") != std::string::npos);
  CHECK(html.find("{token}") != std::string::npos);  // the message template, escaped not expanded

  std::string page = render_explanations_page();
  for (const DiagInfo& entry : all_diagnostics()) {
    INFO(entry.code);
    CHECK(page.find(std::string("<section id=\"") + entry.code + "\">") != std::string::npos);
  }
  // `raxc explain` without a code: one line per code.
  std::string list = render_code_list(ExplainFormat::Text);
  CHECK(size_t(std::count(list.begin(), list.end(), '\n')) == all_diagnostics().size());
}
