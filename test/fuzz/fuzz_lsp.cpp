// Fuzz target: the language server's message loop.
//
// The control bytes script a session around the text: initialize, didOpen of the text, then
// requests of every method the server supports at chosen positions, didChange edits (ranges
// that may run past the end of a line or the document, multi-byte text), cancellations,
// malformed frames and bodies, and finally shutdown + exit. The whole session is fed to
// Server::run as one byte stream; the server must answer without crashing, hanging or leaking,
// and run() must return.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "frontend/frontend.h"
#include "lsp/server.h"
#include "lsp/transport.h"
#include "test/fuzz/fuzz_input.h"

namespace {

using nlohmann::json;

constexpr const char* kRequests[] = {
    "textDocument/hover",
    "textDocument/completion",
    "textDocument/signatureHelp",
    "textDocument/definition",
    "textDocument/references",
    "textDocument/documentHighlight",
    "textDocument/prepareRename",
    "textDocument/rename",
    "textDocument/codeAction",
    "textDocument/formatting",
    "textDocument/documentSymbol",
    "textDocument/foldingRange",
    "textDocument/selectionRange",
    "textDocument/semanticTokens/full",
    "textDocument/semanticTokens/range",
    "textDocument/semanticTokens/full/delta",
    "textDocument/inlayHint",
    "textDocument/diagnostic",
    "workspace/symbol",
};
constexpr const char* kInserts[] = {"x", "\n", "R.", "(", ")", "é", "😀", "\r\n", " = ", ""};
constexpr const char* kUri = "file:///fuzz/a.rx";

std::string frame(const json& body) {
  std::string text = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return "Content-Length: " + std::to_string(text.size()) + "\r\n\r\n" + text;
}

json position(raxc::fuzz::FuzzInput& input) {
  return {{"line", input.choose(40)}, {"character", input.choose(120)}};
}

json range(raxc::fuzz::FuzzInput& input) {
  return {{"start", position(input)}, {"end", position(input)}};
}

json request(raxc::fuzz::FuzzInput& input, int id) {
  std::string method = kRequests[input.choose(std::size(kRequests))];
  json params = {{"textDocument", {{"uri", kUri}}},
                 {"position", position(input)},
                 {"range", range(input)},
                 {"newName", "renamed"},
                 {"context", {{"includeDeclaration", true}, {"diagnostics", json::array()}}},
                 {"options", {{"tabSize", 4}, {"insertSpaces", true}}},
                 {"positions", json::array({position(input)})},
                 {"query", "f"},
                 {"previousResultId", "1"}};
  if (input.choose(8) == 0) params.erase(params.begin());  // a request missing its document
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json did_change(raxc::fuzz::FuzzInput& input, int version) {
  json change = {{"range", range(input)}, {"text", kInserts[input.choose(std::size(kInserts))]}};
  if (input.choose(16) == 0) change = {{"text", std::string(input.bytes(32))}};  // full text
  return {{"jsonrpc", "2.0"},
          {"method", "textDocument/didChange"},
          {"params",
           {{"textDocument", {{"uri", kUri}, {"version", version}}},
            {"contentChanges", json::array({change})}}}};
}

std::string session(raxc::fuzz::FuzzInput& input) {
  std::string out;
  out += frame({{"jsonrpc", "2.0"},
                {"id", 0},
                {"method", "initialize"},
                {"params", {{"capabilities", json::object()}}}});
  out += frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
  out += frame({{"jsonrpc", "2.0"},
                {"method", "textDocument/didOpen"},
                {"params",
                 {{"textDocument",
                   {{"uri", kUri},
                    {"languageId", "relax"},
                    {"version", 1},
                    {"text", std::string(input.text())}}}}}});
  int id = 1, version = 1;
  for (int step = 0; step < 24 && !input.exhausted(); ++step) {
    switch (input.choose(6)) {
      case 0: out += frame(did_change(input, ++version)); break;
      case 1:
        out += frame(
            {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", id - 1}}}});
        break;
      case 2: out += std::string(input.bytes(24)); break;  // a malformed frame
      default: out += frame(request(input, id++)); break;
    }
  }
  out += frame({{"jsonrpc", "2.0"}, {"id", id}, {"method", "shutdown"}});
  out += frame({{"jsonrpc", "2.0"}, {"method", "exit"}});
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  raxc::fuzz::FuzzInput input(data, size);
  std::string bytes = session(input);
  raxc::frontend::run_with_large_stack([&] {
    raxc::lsp::StringSource source(bytes);
    raxc::lsp::MessageReader reader(source);
    raxc::lsp::MessageWriter writer([](std::string_view) { return true; });
    raxc::lsp::ServerOptions options;
    options.debounce = std::chrono::milliseconds(0);
    options.log_level = raxc::lsp::LogLevel::Error;
    raxc::lsp::Server server(writer, options);
    server.run(reader);
  });
  return 0;
}
