// Splits the embedded diagnostics_explained.md into per-code sections and renders the small
// Markdown subset it uses (paragraphs, "- " lists, `code` spans, fenced blocks) as terminal
// text or HTML. A fence's info string is "rx", "rx check FLAGS", "rx run ARGS" or "console";
// the trigger tests (test/meta/explain_examples.py) read the same info strings, so the command
// a reader is shown is the command that is tested.
#include "frontend/explain.h"

#include <algorithm>
#include <vector>

namespace raxc {

extern const std::string_view kExplainedText;  // generated from diagnostics_explained.md

namespace {

std::vector<Explanation> parse_sections(std::string_view text) {
  // (code, offset of the line after the heading, offset of the heading)
  struct Heading {
    std::string_view code;
    size_t body, begin;
  };
  std::vector<Heading> headings;
  size_t pos = 0;
  bool in_fence = false;
  while (pos < text.size()) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    if (line.starts_with("```")) in_fence = !in_fence;
    if (!in_fence && line.starts_with("## RX")) {
      std::string_view code = line.substr(3);
      code = code.substr(0, std::min(code.find_first_of(" \t\r"), code.size()));
      headings.push_back({code, std::min(end + 1, text.size()), pos});
    }
    pos = end + 1;
  }
  std::vector<Explanation> sections;
  for (size_t i = 0; i < headings.size(); ++i) {
    size_t stop = i + 1 < headings.size() ? headings[i + 1].begin : text.size();
    std::string_view body = text.substr(headings[i].body, stop - headings[i].body);
    while (!body.empty() && (body.front() == '\n' || body.front() == '\r')) body.remove_prefix(1);
    while (!body.empty() && (body.back() == '\n' || body.back() == ' ' || body.back() == '\r'))
      body.remove_suffix(1);
    sections.push_back({headings[i].code, body});
  }
  return sections;
}

const std::vector<Explanation>& sections() {
  static const std::vector<Explanation> parsed = parse_sections(kExplainedText);
  return parsed;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Escapes prose and links the codes it names ("reported as RX1164") to their sections.
std::string html_prose(std::string_view text) {
  std::string out;
  size_t start = 0;
  for (size_t i = 0; i + 6 <= text.size(); ++i) {
    std::string_view word = text.substr(i, 6);
    bool digits =
        std::all_of(word.begin() + 2, word.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!word.starts_with("RX") || !digits || !find_diagnostic(word)) continue;
    out += html_escape(text.substr(start, i - start));
    out += "<a href=\"#" + std::string(word) + "\">" + std::string(word) + "</a>";
    start = i + 6;
    i += 5;
  }
  return out + html_escape(text.substr(start));
}

// `code` spans become <code>; the rest is escaped.
std::string html_inline(std::string_view text) {
  std::string out;
  bool in_code = false;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    std::string_view piece = text.substr(start, i - start);
    out += in_code ? html_escape(piece) : html_prose(piece);
    if (i < text.size()) out += in_code ? "</code>" : "<code>";
    in_code = !in_code;
    start = i + 1;
  }
  if (!in_code) out += "</code>";  // an unclosed span: close it rather than leak markup
  return out;
}

// The command that runs a fenced example, shown under it: "rx run --entry f 1" becomes
// "raxc run example.rx --entry f 1"; a plain "rx" block needs none.
std::string fence_command(std::string_view info) {
  if (info.starts_with("rx run")) {
    std::string_view args = info.substr(6);
    return "$ raxc run example.rx" + std::string(args);
  }
  if (info.starts_with("rx check")) {
    std::string_view flags = info.substr(8);
    return "$ raxc check" + std::string(flags) + " example.rx";
  }
  return {};
}

std::string render_body_text(std::string_view body) {
  std::string out;
  std::string_view info;
  bool in_fence = false;
  for (std::string_view line : split_lines(body)) {
    if (line.starts_with("```")) {
      if (!in_fence) {
        info = line.substr(3);
      } else if (std::string command = fence_command(info); !command.empty()) {
        out += "\n    " + command + "\n";
      }
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) {
      out += line.empty() ? "" : "    ";
      out += line;
    } else {
      out += line;
    }
    out += '\n';
  }
  return out;
}

std::string render_body_html(std::string_view body) {
  std::string out;
  std::string_view info;
  std::string paragraph;
  bool in_fence = false, in_list = false;
  auto flush = [&] {
    if (!paragraph.empty()) out += "<p>" + html_inline(paragraph) + "</p>\n";
    paragraph.clear();
  };
  auto close_list = [&] {
    if (in_list) out += "</ul>\n";
    in_list = false;
  };
  for (std::string_view line : split_lines(body)) {
    if (line.starts_with("```")) {
      if (!in_fence) {
        flush();
        close_list();
        info = line.substr(3);
        out += "<pre><code>";
      } else {
        out += "</code></pre>\n";
        if (std::string command = fence_command(info); !command.empty())
          out += "<pre class=\"command\"><code>" + html_escape(command) + "</code></pre>\n";
      }
      in_fence = !in_fence;
      continue;
    }
    if (in_fence) {
      out += html_escape(line) + "\n";
    } else if (line.starts_with("- ")) {
      flush();
      if (!in_list) out += "<ul>\n";
      in_list = true;
      paragraph = std::string(line.substr(2));
      out += "<li>" + html_inline(paragraph) + "</li>\n";
      paragraph.clear();
    } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
      flush();
      close_list();
    } else if (in_list && line.starts_with("  ")) {
      // a list item's continuation line: append to the item just written
      out.erase(out.size() - 6);  // "</li>\n"
      out += " " + html_inline(line.substr(line.find_first_not_of(' '))) + "</li>\n";
    } else {
      close_list();
      if (!paragraph.empty()) paragraph += ' ';
      paragraph += line;
    }
  }
  flush();
  close_list();
  if (in_fence) out += "</code></pre>\n";
  return out;
}

}  // namespace

std::span<const Explanation> all_explanations() { return sections(); }

const Explanation* find_explanation(std::string_view code) {
  for (const Explanation& s : sections())
    if (s.code == code) return &s;
  return nullptr;
}

std::string render_explanation(const DiagInfo& info, ExplainFormat format) {
  const Explanation* section = find_explanation(info.code);
  std::string_view body =
      section ? section->body : std::string_view("This code has no explanation yet.");
  std::string severity = severity_name(info.severity);
  // The message's arguments, as `--diagnostics-format=json` names them: "bracket (Code)".
  std::string arguments;
  for (const ArgInfo& a : info.args)
    arguments +=
        (arguments.empty() ? "" : ", ") + std::string(a.name) + " (" + arg_kind_name(a.kind) + ")";
  switch (format) {
    case ExplainFormat::Text:
      return std::string(info.code) + " (" + severity + "): " + info.message + "\n" +
             (arguments.empty() ? "" : "arguments: " + arguments + "\n") + "\n" +
             render_body_text(body);
    case ExplainFormat::Markdown:
      return "## " + std::string(info.code) + " (" + severity + ")\n\n`" + info.message + "`\n\n" +
             (arguments.empty() ? "" : "Arguments: " + arguments + "\n\n") + std::string(body) +
             "\n";
    case ExplainFormat::Html:
      return "<section id=\"" + std::string(info.code) + "\">\n<h2><a href=\"#" + info.code +
             "\">" + info.code + "</a> <span class=\"" + severity + "\">" + severity +
             "</span></h2>\n<p class=\"message\"><code>" + html_escape(info.message) +
             "</code></p>\n" +
             (arguments.empty() ? ""
                                : "<p class=\"arguments\">" + html_escape(arguments) + "</p>\n") +
             render_body_html(body) + "</section>\n";
  }
  return {};
}

std::string render_code_list(ExplainFormat format) {
  std::string out;
  for (const DiagInfo& entry : all_diagnostics()) {
    std::string severity = severity_name(entry.severity);
    switch (format) {
      case ExplainFormat::Text:
        out += std::string(entry.code) + "  " + severity + std::string(8 - severity.size(), ' ') +
               entry.message + "\n";
        break;
      case ExplainFormat::Markdown:
        out += "- `" + std::string(entry.code) + "` (" + severity + "): `" + entry.message + "`\n";
        break;
      case ExplainFormat::Html:
        out += "<li><a href=\"#" + std::string(entry.code) + "\">" + entry.code + "</a> " +
               severity + ": <code>" + html_escape(entry.message) + "</code></li>\n";
        break;
    }
  }
  return out;
}

std::string render_explanations_page() {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>raxc diagnostics</title>\n<style>\n"
      "body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; "
      "line-height: 1.45; }\n"
      "pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }\n"
      "pre.command { background: #e8eef6; }\n"
      "section { border-top: 1px solid #ccc; margin-top: 2em; }\n"
      ".error { color: #b00; } .warning { color: #a60; } .note { color: #06a; }\n"
      ":target { background: #fffbe0; }\n"
      "</style>\n</head>\n<body>\n<h1>raxc diagnostics</h1>\n"
      "<p>Every code raxc reports, what it means, a program that triggers it and the fix. "
      "The same text is printed by <code>raxc explain RXnnnn</code>.</p>\n<ul>\n";
  out += render_code_list(ExplainFormat::Html);
  out += "</ul>\n";
  for (const DiagInfo& entry : all_diagnostics())
    out += render_explanation(entry, ExplainFormat::Html);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace raxc
