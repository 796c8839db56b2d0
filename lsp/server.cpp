#include "lsp/server.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "lsp/semantic_tokens.h"

#ifndef RAXC_LSP_VERSION
#define RAXC_LSP_VERSION "0.1.0"
#endif
#ifndef RAXC_SOURCE_DIR
#define RAXC_SOURCE_DIR "."
#endif

namespace raxc::lsp {
namespace {

const std::string& text_document_uri(const json& params) {
  if (!params.is_object() || !params.contains("textDocument") ||
      !params["textDocument"].is_object() || !params["textDocument"].contains("uri") ||
      !params["textDocument"]["uri"].is_string())
    throw RequestError{error_code::kInvalidParams, "missing textDocument.uri"};
  return params["textDocument"]["uri"].get_ref<const std::string&>();
}

// Opening a document lowers and analyses it with many short-lived allocations; glibc keeps the
// freed pages in its arenas (one per thread). Handing them back after such a burst keeps the
// resident size that of what the server holds.
void release_free_memory() { malloc_trim(0); }

size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages_total = 0, pages_resident = 0;
  if (!(statm >> pages_total >> pages_resident)) return 0;
  return pages_resident * size_t(sysconf(_SC_PAGESIZE));
}

}  // namespace

// The page `raxc explain` renders, written next to the executable by the build and by
// `cmake --install` (<build>/share/raxc for <build>/raxc, <prefix>/share/raxc for
// <prefix>/bin/raxc). Without one, diagnostics carry no link: a source file is not documentation.
std::string default_diagnostic_url() {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "";
  std::string dir(exe, size_t(n));
  dir.erase(dir.find_last_of('/') + 1);
  for (const char* relative : {"../share/raxc/diagnostics.html", "share/raxc/diagnostics.html"}) {
    std::string path = dir + relative;
    if (!std::ifstream(path)) continue;
    std::string url = "file://";
    for (unsigned char c : path) {  // percent-encode all but unreserved characters and '/'
      if (std::isalnum(c) || std::string_view("-._~/").find(char(c)) != std::string_view::npos) {
        url += char(c);
      } else {
        const char* hex = "0123456789ABCDEF";
        url += {'%', hex[c >> 4], hex[c & 15]};
      }
    }
    return url + "#{code}";
  }
  return "";
}

Server::Server(MessageWriter& out, ServerOptions options)
    : out_(out), options_(std::move(options)) {
  features_.diagnostic_url = options_.diagnostic_url;
  features_.show_message = [this](const std::string& message) {
    send(make_notification("window/showMessage", {{"type", 2}, {"message", message}}));
  };
  // Answered from the newest snapshot, even one older than the text (never queued behind an
  // analysis); or needing the snapshot of the current text.
  auto add = [this](const char* method,
                    json (*fn)(const Snapshot&, const json&, const FeatureOptions&),
                    bool needs_fresh) {
    document_requests_[method] = {
        [this, fn](const Snapshot& s, const json& params) { return fn(s, params, features_); },
        needs_fresh, nullptr};
  };
  add("textDocument/hover", hover, false);
  add(
      "textDocument/documentSymbol",
      [](const Snapshot& s, const json&, const FeatureOptions& o) {
        return document_symbols(s, o);
      },
      false);
  add("textDocument/definition", definition, true);
  add("textDocument/references", references, true);
  add("textDocument/documentHighlight", document_highlight, true);
  add("textDocument/foldingRange", folding_ranges, false);
  add("textDocument/formatting", formatting, true);
  add("textDocument/rangeFormatting", range_formatting, true);
  add("textDocument/prepareRename", prepare_rename, true);
  add("textDocument/rename", rename, true);
  add("textDocument/inlayHint", inlay_hints, false);
  add("textDocument/codeAction", code_actions, true);
  add("textDocument/selectionRange", selection_ranges, true);
  // Pull diagnostics: the same list as the last push for that text (advertised only to clients
  // that declare textDocument.diagnostic).
  add(
      "textDocument/diagnostic",
      [](const Snapshot& s, const json&, const FeatureOptions& o) -> json {
        return {{"kind", "full"}, {"items", diagnostics_json(s, o)}};
      },
      true);
  document_requests_["textDocument/semanticTokens/full"] = {
      nullptr, false,
      [this](const Snapshot& s, const json& p) { return full_tokens(s, p, nullptr); }};
  document_requests_["textDocument/semanticTokens/full/delta"] = {
      nullptr, false, [this](const Snapshot& s, const json& p) {
        std::string previous = p.is_object() ? p.value("previousResultId", std::string()) : "";
        return full_tokens(s, p, &previous);
      }};
  add("textDocument/semanticTokens/range", semantic_tokens_range, false);
}

Server::~Server() { stop_worker(); }

// ---------------------------------------------------------------------------- output

void Server::send(const json& message) { out_.write(serialize(message)); }

void Server::log(LogLevel level, const std::string& message) {
  if (int(level) > int(options_.log_level)) return;
  send(make_notification("window/logMessage", {{"type", int(level)}, {"message", message}}));
}

void Server::trace_incoming(const Incoming& in) {
  if (trace_ == "off" || in.method == "$/setTrace") return;
  json params = {{"message", "received '" + in.method + "'"}};
  if (trace_ == "verbose" && !in.params.is_null()) params["verbose"] = serialize(in.params);
  send(make_notification("$/logTrace", std::move(params)));
}

// ---------------------------------------------------------------------------- input

int Server::run(MessageReader& in) {
  while (state_ != State::Exited) {
    ReadResult message = in.read();
    if (message.kind == ReadResult::Kind::End) {
      if (!message.error.empty()) log(LogLevel::Error, message.error);
      break;
    }
    if (message.kind == ReadResult::Kind::Error) {
      log(LogLevel::Error, "bad message: " + message.error);
      continue;
    }
    if (!message.error.empty()) log(LogLevel::Warning, message.error);
    handle_body(message.body, &in);
  }
  stop_worker();
  // The client may not clear what we published (a crash of the client side, a restart).
  std::lock_guard lock(mutex_);
  for (auto& [uri, document] : documents_) {
    if (document.published_nonempty)
      send(make_notification("textDocument/publishDiagnostics",
                             {{"uri", uri}, {"diagnostics", json::array()}}));
  }
  return exit_status();
}

void Server::handle_body(std::string_view body, MessageReader* in) {
  json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) {
    size_t at = find_embedded_header(body);
    if (in && at != std::string_view::npos) {
      in->push_front(body.substr(at));  // a wrong Content-Length swallowed the next message
      log(LogLevel::Error,
          "a message body was cut short by the next message's header "
          "(wrong Content-Length); skipped it");
    }
    send(make_error(nullptr, error_code::kParseError, "the message body is not valid JSON"));
    return;
  }
  handle(message);
}

void Server::handle(const json& message) {
  Incoming in = classify(message);
  switch (in.kind) {
    case Incoming::Kind::Invalid:
      send(make_error(in.id, error_code::kInvalidRequest, in.error));
      return;
    case Incoming::Kind::Response: return;  // the server sends no requests that need an answer
    case Incoming::Kind::Request:
      trace_incoming(in);
      try {
        handle_request(in);
      } catch (const RequestError& e) {
        send(make_error(in.id, e.code, e.message));
      } catch (const json::exception& e) {
        send(make_error(in.id, error_code::kInvalidParams, e.what()));
      } catch (const std::exception& e) {
        send(make_error(in.id, error_code::kInternalError, e.what()));
      }
      return;
    case Incoming::Kind::Notification:
      trace_incoming(in);
      try {
        handle_notification(in);
      } catch (const std::exception& e) {
        log(LogLevel::Error, "'" + in.method + "' failed: " + e.what());
      } catch (const RequestError& e) {
        log(LogLevel::Error, "'" + in.method + "': " + e.message);
      }
      return;
  }
}

void Server::handle_request(const Incoming& in) {
  if (state_ == State::Uninitialized && in.method != "initialize")
    throw RequestError{error_code::kServerNotInitialized, "the server is not initialized"};
  if (state_ == State::ShutDown)
    throw RequestError{error_code::kInvalidRequest, "the server is shutting down"};
  if (in.method == "initialize") {
    if (state_ != State::Uninitialized)
      throw RequestError{error_code::kInvalidRequest, "the server is already initialized"};
    json result = initialize(in.params);
    state_ = State::Running;
    send(make_response(in.id, std::move(result)));
    return;
  }
  if (in.method == "shutdown") {
    state_ = State::ShutDown;
    shutdown_requested_ = true;
    drain_deferred();
    // An analysis under way (a large document) is not waited for: the worker stops after it
    // without publishing, and `exit` joins it.
    request_stop();
    send(make_response(in.id, nullptr));
    return;
  }
  if (in.method == "textDocument/completion") {
    send(make_response(in.id, complete(in.params)));
    return;
  }
  if (in.method == "inlayHint/resolve") {
    // A cut label gets its full StructInfo as the tooltip.
    json hint = in.params;
    if (hint.is_object() && hint.contains("data") && hint["data"].is_object() &&
        hint["data"].contains("structInfo"))
      hint["tooltip"] = hint["data"]["structInfo"];
    send(make_response(in.id, std::move(hint)));
    return;
  }
  if (in.method == "textDocument/signatureHelp") {
    send(make_response(in.id, signature_help_at(in.params)));
    return;
  }
  if (in.method == "workspace/symbol") {
    send(make_response(in.id, workspace_symbols(in.params)));
    return;
  }
  if (in.method == "raxc/memoryUsage") {
    send(make_response(in.id, memory_usage()));
    return;
  }
  auto request = document_requests_.find(in.method);
  if (request == document_requests_.end())
    throw RequestError{error_code::kMethodNotFound, "unknown method '" + in.method + "'"};
  handle_document_request(in, request->second);
}

void Server::handle_notification(const Incoming& in) {
  if (in.method == "exit") {
    state_ = State::Exited;
    return;
  }
  if (state_ == State::Uninitialized || state_ == State::ShutDown) return;  // dropped
  const json& p = in.params;
  if (in.method == "initialized") return;
  if (in.method == "textDocument/didOpen") return did_open(p);
  if (in.method == "textDocument/didChange") return did_change(p);
  if (in.method == "textDocument/didClose") return did_close(p);
  if (in.method == "textDocument/didSave") return;
  if (in.method == "$/setTrace") {
    if (p.is_object() && p.contains("value") && p["value"].is_string()) {
      std::string value = p["value"];
      if (value == "off" || value == "messages" || value == "verbose") trace_ = value;
    }
    return;
  }
  if (in.method == "$/cancelRequest") {
    if (!p.is_object() || !p.contains("id")) return;
    std::lock_guard lock(mutex_);
    auto it = std::find_if(deferred_.begin(), deferred_.end(),
                           [&](const Deferred& d) { return d.id == p["id"]; });
    if (it != deferred_.end()) {
      send(make_error(it->id, error_code::kRequestCancelled, "the request was cancelled"));
      deferred_.erase(it);
    }
    return;
  }
  // Other notifications ($/... and unknown ones) are ignored, as the protocol asks.
}

// Full semantic tokens with a resultId, as JSON text; with `previous_id` (a delta request) the
// edits from that result when it is the one remembered for the document, else the full result
// again. A second request for the same snapshot reuses the remembered data.
std::string Server::full_tokens(const Snapshot& snapshot, const json&,
                                const std::string* previous_id) {
  std::vector<uint32_t> data;
  {
    std::lock_guard lock(tokens_mutex_);
    auto it = last_tokens_.find(snapshot.uri);
    if (it != last_tokens_.end() && !it->second.id.empty() &&
        it->second.generation == snapshot.generation)
      data = it->second.data;
  }
  // A document too large to analyse gets its tokens by range only: millions of them would
  // hold this thread (and every other document's requests) for seconds, and the client's
  // viewport asks for the range it shows.
  bool too_large = !snapshot.engine && snapshot.file->size() > options_.max_analysed_bytes;
  if (data.empty() && !too_large) data = semantic_token_data(snapshot, features_.encoding);
  std::lock_guard lock(tokens_mutex_);
  TokensResult& last = last_tokens_[snapshot.uri];
  std::string id = std::to_string(++tokens_counter_);
  std::string out;
  if (previous_id && !last.id.empty() && *previous_id == last.id) {
    // One edit: the common prefix and suffix of the two integer arrays are kept.
    size_t prefix = 0, limit = std::min(last.data.size(), data.size());
    while (prefix < limit && last.data[prefix] == data[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < limit - prefix &&
           last.data[last.data.size() - 1 - suffix] == data[data.size() - 1 - suffix])
      ++suffix;
    json edits = json::array();
    if (prefix + suffix != last.data.size() || prefix + suffix != data.size()) {
      std::vector<uint32_t> inserted(data.begin() + long(prefix), data.end() - long(suffix));
      edits.push_back({{"start", prefix},
                       {"deleteCount", last.data.size() - prefix - suffix},
                       {"data", std::move(inserted)}});
    }
    out = serialize(json{{"resultId", id}, {"edits", std::move(edits)}});
  } else {
    out = "{\"resultId\":\"" + id + "\",\"data\":" + json_array_text(data) + "}";
  }
  last = {id, std::move(data), snapshot.generation};
  return out;
}

// ---------------------------------------------------------------------------- lifecycle

json Server::initialize(const json& params) {
  features_.encoding = PositionEncoding::Utf16;
  bool pull_diagnostics = false;
  if (params.is_object()) {
    const json caps = params.value("capabilities", json::object());
    const json general = caps.is_object() ? caps.value("general", json::object()) : json();
    if (general.is_object() && general.contains("positionEncodings") &&
        general["positionEncodings"].is_array()) {
      for (const json& e : general["positionEncodings"])
        if (e == "utf-8") features_.encoding = PositionEncoding::Utf8;
    }
    const json text = caps.is_object() ? caps.value("textDocument", json::object()) : json();
    if (text.is_object() && text.contains("publishDiagnostics") &&
        text["publishDiagnostics"].is_object()) {
      features_.related_information =
          text["publishDiagnostics"].value("relatedInformation", true) == true;
    }
    pull_diagnostics = text.is_object() && text.contains("diagnostic");
    features_.snippet_support = false;
    features_.hover_markdown = true;
    if (text.is_object()) {
      const json completion = text.value("completion", json::object());
      const json item = completion.is_object() ? completion.value("completionItem", json::object())
                                               : json::object();
      features_.snippet_support = item.is_object() && item.value("snippetSupport", false) == true;
      const json hover = text.value("hover", json::object());
      if (hover.is_object() && hover.contains("contentFormat") &&
          hover["contentFormat"].is_array()) {
        const json& formats = hover["contentFormat"];
        features_.hover_markdown =
            std::find(formats.begin(), formats.end(), "markdown") != formats.end();
      }
    }
    if (params.contains("trace") && params["trace"].is_string()) {
      std::string value = params["trace"];
      if (value == "messages" || value == "verbose") trace_ = value;
    }
  }
  start_worker();
  json capabilities = {
      {"positionEncoding", encoding_name(features_.encoding)},
      {"textDocumentSync",
       {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"definitionProvider", true},
      {"referencesProvider", true},
      {"documentHighlightProvider", true},
      {"documentSymbolProvider", true},
      {"foldingRangeProvider", true},
      {"workspaceSymbolProvider", true},
      {"completionProvider", {{"triggerCharacters", {".", "\""}}}},
      {"renameProvider", {{"prepareProvider", true}}},
      {"inlayHintProvider", {{"resolveProvider", true}}},
      {"selectionRangeProvider", true},
      {"signatureHelpProvider",
       {{"triggerCharacters", {"(", ","}}, {"retriggerCharacters", {","}}}},
      {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
      {"semanticTokensProvider",
       {{"legend", semantic_tokens_legend()}, {"full", {{"delta", true}}}, {"range", true}}},
      {"documentFormattingProvider", true},
      {"documentRangeFormattingProvider", true},
      {"experimental", {{"memoryUsageProvider", true}}},
  };
  // A client that pulls is not also pushed to: VS Code's client keeps pushed and pulled
  // diagnostics in two collections and would show every diagnostic twice.
  push_diagnostics_ = !pull_diagnostics;
  if (pull_diagnostics)
    capabilities["diagnosticProvider"] = {{"interFileDependencies", false},
                                          {"workspaceDiagnostics", false}};
  return {{"capabilities", std::move(capabilities)},
          {"serverInfo", {{"name", "raxc"}, {"version", RAXC_LSP_VERSION}}}};
}

// Completion and signature help read the current text (what the user just typed), not the
// snapshot: they must never wait for the debounce or an analysis. They get a window of the
// text before the cursor, since an unclosed call spans lines, and the newest snapshot.
Server::TypingContext Server::typing_context(const json& params) {
  const std::string& uri = text_document_uri(params);
  auto position = params.contains("position") ? parse_position(params["position"]) : std::nullopt;
  if (!position) throw RequestError{error_code::kInvalidParams, "missing or invalid position"};
  constexpr uint32_t kWindow = 4096;
  std::lock_guard lock(mutex_);
  auto it = documents_.find(uri);
  if (it == documents_.end())
    throw RequestError{error_code::kInvalidParams, "the document is not open: " + uri};
  SourceFile file(uri, it->second.text);
  uint32_t end = offset_at(file, *position, features_.encoding);
  uint32_t begin = end > kWindow ? end - kWindow : 0;
  return {file.text().substr(begin, end - begin), *position, it->second.snapshot};
}

json Server::complete(const json& params) {
  TypingContext typing = typing_context(params);
  return completion(typing.snapshot.get(), typing.before_cursor, typing.cursor, features_);
}

json Server::signature_help_at(const json& params) {
  TypingContext typing = typing_context(params);
  return signature_help(typing.snapshot.get(), typing.before_cursor);
}

// SymbolInformation[] for the functions of every open document whose name contains the query
// (case-insensitive), from each document's newest snapshot.
json Server::workspace_symbols(const json& params) {
  std::string query = params.is_object() ? params.value("query", std::string()) : std::string();
  auto lower = [](std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  query = lower(query);
  std::vector<std::shared_ptr<const Snapshot>> snapshots;
  {
    std::lock_guard lock(mutex_);
    for (auto& [uri, document] : documents_)
      if (document.snapshot) snapshots.push_back(document.snapshot);
  }
  json out = json::array();
  for (const auto& snapshot : snapshots) {
    for (const json& module : document_symbols(*snapshot, features_)) {
      const json& functions = module["kind"] == 2 ? module["children"] : json::array({module});
      for (const json& f : functions) {
        if (lower(f["name"].get<std::string>()).find(query) == std::string::npos) continue;
        out.push_back({{"name", f["name"]},
                       {"kind", f["kind"]},
                       {"containerName", module["name"]},
                       {"location", {{"uri", snapshot->uri}, {"range", f["selectionRange"]}}}});
      }
    }
  }
  return out;
}

json Server::memory_usage() {
  std::lock_guard lock(mutex_);
  json documents = json::array();
  size_t text_bytes = 0, snapshot_bytes = 0;
  for (auto& [uri, document] : documents_) {
    size_t snapshot = document.snapshot ? document.snapshot->memory_bytes() : 0;
    text_bytes += document.text.capacity();
    snapshot_bytes += snapshot;
    documents.push_back(
        {{"uri", uri}, {"textBytes", document.text.capacity()}, {"snapshotBytes", snapshot}});
  }
  struct mallinfo2 heap = mallinfo2();
  return {{"residentBytes", resident_bytes()},
          // malloc's view: what is allocated, and what it keeps free in its arenas
          {"heapInUseBytes", heap.uordblks + heap.hblkhd},
          {"heapFreeBytes", heap.fordblks},
          {"engines", analyzer_.engine_count()},
          {"textBytes", text_bytes},
          {"snapshotBytes", snapshot_bytes},
          {"documents", std::move(documents)}};
}

// ---------------------------------------------------------------------------- documents

void Server::did_open(const json& params) {
  const json& item = params.at("textDocument");
  // Everything is read before the table changes: a malformed didOpen changes nothing.
  std::string uri = item.at("uri").get<std::string>();
  std::string text = item.at("text").get<std::string>();
  auto version_field = item.find("version");
  int64_t version = version_field != item.end() && version_field->is_number_integer()
                        ? version_field->get<int64_t>()
                        : 0;
  std::lock_guard lock(mutex_);
  Document& document = documents_[uri];
  document.text = std::move(text);
  document.version = version;
  document.generation = next_generation_++;
  document.edits.restart(document.generation);
  document.changed = Clock::now() - options_.debounce;  // analyse a new document at once
  document.dirty = true;
  fail_deferred_locked(uri, true, error_code::kContentModified, "the document was reopened");
  wake_.notify_all();
}

void Server::did_change(const json& params) {
  std::string uri = text_document_uri(params);
  const json& changes = params.at("contentChanges");
  std::lock_guard lock(mutex_);
  auto it = documents_.find(uri);
  if (it == documents_.end()) {
    log(LogLevel::Warning, "didChange for a document that is not open: " + uri);
    return;
  }
  Document& document = it->second;
  const json& item = params["textDocument"];
  auto version_field = item.find("version");
  int64_t version = version_field != item.end() && version_field->is_number_integer()
                        ? version_field->get<int64_t>()
                        : document.version + 1;
  // A malformed change leaves the text as it was, so several changes are applied to a copy; a
  // single one (a keystroke) in place: apply_change changes nothing when it fails, and copying
  // a large document per keystroke would hold the server.
  std::string error, copy;
  if (changes.size() > 1) copy = document.text;
  std::string& text = changes.size() > 1 ? copy : document.text;
  std::vector<frontend::TextEdit> applied(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    if (!apply_change(text, changes[i], features_.encoding, error, &applied[i])) {
      log(LogLevel::Error, "ignored a malformed didChange for " + uri + ": " + error);
      return;
    }
  }
  if (changes.size() > 1) document.text = std::move(copy);
  // Neovim 0.7 sends several changes of one tick under one version: applied in order, as sent.
  if (version <= document.version)
    log(LogLevel::Debug, "didChange did not increase the version of " + uri);
  document.version = version;
  document.generation = next_generation_++;
  document.edits.record(document.generation, std::move(applied));
  document.changed = Clock::now();
  document.dirty = true;
  wake_.notify_all();
}

void Server::did_close(const json& params) {
  std::string uri = text_document_uri(params);
  std::lock_guard lock(mutex_);
  if (documents_.erase(uri) == 0) return;
  analyzer_.forget(uri);
  release_free_memory();
  {
    std::lock_guard tokens_lock(tokens_mutex_);
    last_tokens_.erase(uri);
  }
  fail_deferred_locked(uri, false, error_code::kContentModified, "the document was closed");
  if (push_diagnostics_)
    send(make_notification("textDocument/publishDiagnostics",
                           {{"uri", uri}, {"diagnostics", json::array()}}));
}

void Server::fail_deferred_locked(const std::string& uri, bool only_fresh, int code,
                                  const std::string& message) {
  auto keep = std::stable_partition(deferred_.begin(), deferred_.end(), [&](const Deferred& d) {
    return d.uri != uri || (only_fresh && !d.needs_fresh);
  });
  for (auto it = keep; it != deferred_.end(); ++it) send(make_error(it->id, code, message));
  deferred_.erase(keep, deferred_.end());
}

void Server::publish_locked(const std::string& uri, Document& document, const Snapshot& snapshot) {
  if (!push_diagnostics_) return;
  json diagnostics = diagnostics_json(snapshot, features_);
  document.published_nonempty = !diagnostics.empty();
  send(make_notification(
      "textDocument/publishDiagnostics",
      {{"uri", uri}, {"version", snapshot.version}, {"diagnostics", diagnostics}}));
}

// ---------------------------------------------------------------------------- requests

void Server::handle_document_request(const Incoming& in, const DocumentRequest& request) {
  const std::string& uri = text_document_uri(in.params);
  std::shared_ptr<const Snapshot> snapshot;
  {
    std::lock_guard lock(mutex_);
    auto it = documents_.find(uri);
    if (it == documents_.end())
      throw RequestError{error_code::kInvalidParams, "the document is not open: " + uri};
    snapshot = it->second.snapshot;
    bool usable =
        snapshot && (!request.needs_fresh || snapshot->generation == it->second.generation);
    if (!usable) {
      Deferred d{in.id, in.method, in.params, uri, request.needs_fresh, it->second.generation, {}};
      if (request.needs_fresh)
        d.pins = PinnedPositions(in.params, SourceFile("", it->second.text), features_.encoding);
      deferred_.push_back(std::move(d));
      return;
    }
  }
  answer(in.id, in.method, in.params, *snapshot);
}

void Server::answer(const json& id, const std::string& method, const json& params,
                    const Snapshot& snapshot) {
  try {
    const DocumentRequest& request = document_requests_.at(method);
    if (request.text_handler)
      out_.write(response_text(id, request.text_handler(snapshot, params)));
    else
      send(make_response(id, request.handler(snapshot, params)));
  } catch (const RequestError& e) {
    send(make_error(id, e.code, e.message));
  } catch (const json::exception& e) {
    send(make_error(id, error_code::kInvalidParams, e.what()));
  } catch (const std::exception& e) {
    send(make_error(id, error_code::kInternalError, e.what()));
  }
}

// ---------------------------------------------------------------------------- analysis thread

void Server::start_worker() {
  std::lock_guard lock(mutex_);
  if (worker_running_) return;
  stop_ = false;
  // The analysis recurses over nested input like the frontend: give it the CLI's big stack.
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, size_t(512) << 20);
  auto trampoline = [](void* self) -> void* {
    static_cast<Server*>(self)->worker_loop();
    return nullptr;
  };
  worker_running_ = pthread_create(&worker_, &attributes, trampoline, this) == 0;
  pthread_attr_destroy(&attributes);
}

void Server::request_stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
}

void Server::stop_worker() {
  {
    std::lock_guard lock(mutex_);
    if (!worker_running_) return;
    stop_ = true;
    worker_running_ = false;
  }
  wake_.notify_all();
  pthread_join(worker_, nullptr);
}

// Requests waiting for an analysis when `shutdown` arrives are answered before it is: the
// worker analyses the pending documents at once (a bounded wait: a stuck analysis must not keep
// the client from shutting the server down).
void Server::drain_deferred() {
  std::unique_lock lock(mutex_);
  if (!worker_running_) return;
  draining_ = true;
  wake_.notify_all();
  drained_.wait_for(lock, std::chrono::seconds(10), [&] { return deferred_.empty(); });
  for (const Deferred& d : deferred_)
    send(make_error(d.id, error_code::kRequestFailed, "the server shut down before answering"));
  deferred_.clear();
}

// The analysis the worker should run next: the dirty document whose debounce expired first;
// else a document quiet for `settle_after` whose snapshot is not settled (Snapshot::settled).
// `at` is when to look again when nothing is due yet.
Server::Job Server::next_job_locked(Clock::time_point now) {
  Job job{documents_.end(), false, Clock::time_point::max()};
  auto dirty_ready = [&](const Document& d) {
    return draining_ ? now : d.changed + options_.debounce;
  };
  for (auto it = documents_.begin(); it != documents_.end(); ++it) {
    const Document& d = it->second;
    if (d.dirty) {
      auto ready = dirty_ready(d);
      if (ready > now)
        job.at = std::min(job.at, ready);
      else if (job.document == documents_.end() || !job.dirty ||
               ready < dirty_ready(job.document->second))
        job = {it, true, now};
    } else if (d.snapshot && !d.snapshot->settled && !draining_ && !job.dirty) {
      auto ready = d.changed + options_.settle_after;
      if (ready > now)
        job.at = std::min(job.at, ready);
      else if (job.document == documents_.end())
        job = {it, false, now};
    }
  }
  return job;
}

void Server::worker_loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    Job job = next_job_locked(Clock::now());
    if (job.document == documents_.end()) {
      if (job.at == Clock::time_point::max())
        wake_.wait(lock);
      else
        wake_.wait_until(lock, job.at);
      continue;
    }
    auto due = job.document;
    std::string uri = due->first, text = due->second.text;
    int64_t version = due->second.version;
    uint64_t generation = due->second.generation;
    EditLog edits = due->second.edits;
    due->second.dirty = false;
    auto settle = job.dirty ? Analyzer::Settle::No : Analyzer::Settle::Yes;

    lock.unlock();
    std::string failure;
    size_t bytes = text.size();
    bool too_large = bytes > options_.max_analysed_bytes && beyond_limit(text);
    auto snapshot = too_large ? analyzer_.unanalysed(uri, version, generation, std::move(text))
                              : analyzer_.analyze(uri, version, generation, std::move(text), edits,
                                                  &failure, settle);
    if (!failure.empty()) log(LogLevel::Error, "analysis of " + uri + " failed: " + failure);
    lock.lock();

    if (stop_) break;  // shut down meanwhile: nothing more is published
    auto it = documents_.find(uri);
    if (it == documents_.end() || it->second.generation != generation) continue;  // superseded
    if (too_large && !it->second.told_too_large) tell_too_large(uri, bytes);
    it->second.told_too_large = too_large;
    it->second.snapshot = snapshot;
    publish_locked(uri, it->second, *snapshot);
    std::vector<Deferred> ready;
    auto keep = std::stable_partition(deferred_.begin(), deferred_.end(),
                                      [&](const Deferred& d) { return d.uri != uri; });
    std::move(keep, deferred_.end(), std::back_inserter(ready));
    deferred_.erase(keep, deferred_.end());
    std::vector<bool> stale = follow_edits_locked(it->second, *snapshot, ready);
    lock.unlock();
    for (size_t i = 0; i < ready.size(); ++i) {
      const Deferred& d = ready[i];
      if (stale[i])
        send(make_error(d.id, error_code::kContentModified,
                        "the document changed at the request's position"));
      else
        answer(d.id, d.method, d.params, *snapshot);
    }
    drained_.notify_all();
    if (analyzer_.needs_spare(uri)) {
      analyzer_.prepare_spare(*snapshot);
      release_free_memory();
    }
    lock.lock();
  }
}

// What an analysis costs grows with the tokens, not the indentation: a file nested thousands of
// levels deep is mostly spaces. So the limit counts the text other than blanks (only for a file
// whose size is past it, so typing in others costs nothing).
bool Server::beyond_limit(const std::string& text) const {
  size_t blank = 0;
  for (char c : text) blank += c == ' ' || c == '\t' || c == '\n' || c == '\r';
  return text.size() - blank > options_.max_analysed_bytes;
}

void Server::tell_too_large(const std::string& uri, size_t bytes) {
  auto mib = [](size_t n) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", double(n) / (1024 * 1024));
    return std::string(text);
  };
  send(make_notification(
      "window/showMessage",
      {{"type", 3},
       {"message", uri.substr(uri.find_last_of('/') + 1) + " is " + mib(bytes) +
                       ": past raxc lsp's limit of " + mib(options_.max_analysed_bytes) +
                       " (blanks not counted)" +
                       " it is highlighted but not analysed (no diagnostics, hover or "
                       "navigation; `raxc check` analyses it; --max-analysed-mib raises the "
                       "limit)."}}));
}

// Requests asked against an older text than `snapshot`'s: their positions follow the edits
// made since and are rewritten in the snapshot's text. Returns which ones an edit invalidated.
std::vector<bool> Server::follow_edits_locked(const Document& document, const Snapshot& snapshot,
                                              std::vector<Deferred>& requests) {
  std::vector<bool> stale(requests.size(), false);
  for (size_t i = 0; i < requests.size(); ++i) {
    Deferred& d = requests[i];
    if (!d.needs_fresh || d.generation == snapshot.generation) continue;
    auto edits = document.edits.since(d.generation);
    if (!edits || !d.pins.follow(*edits)) {
      stale[i] = true;
      continue;
    }
    d.params = d.pins.place(std::move(d.params), *snapshot.file, features_.encoding);
  }
  return stale;
}

// ---------------------------------------------------------------------------- stdio

int run_stdio(const ServerOptions& options) {
  signal(SIGPIPE, SIG_IGN);  // a vanished client is an output error, not a signal
  FdSource source(STDIN_FILENO);
  MessageReader reader(source);
  MessageWriter writer(fd_sink(STDOUT_FILENO));
  Server server(writer, options);
  return server.run(reader);
}

}  // namespace raxc::lsp
