// JSON-RPC 2.0 as LSP uses it: classifying incoming messages and building replies.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace raxc::lsp {

using json = nlohmann::json;

namespace error_code {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestFailed = -32803;
inline constexpr int kServerCancelled = -32802;
inline constexpr int kContentModified = -32801;
inline constexpr int kRequestCancelled = -32800;
}  // namespace error_code

// Thrown by request handlers; becomes an error response with this code.
struct RequestError {
  int code;
  std::string message;
};

struct Incoming {
  enum class Kind { Request, Notification, Response, Invalid };
  Kind kind = Kind::Invalid;
  json id;             // Request / Response / Invalid (null when there was no usable id)
  std::string method;  // Request / Notification
  json params;         // null when absent
  std::string error;   // Invalid: why
};

// Sorts a parsed message into request / notification / response, or says why it is invalid
// (not an object, "jsonrpc" is not "2.0", a method that is not a string, an id that is neither
// an integer nor a string, params that are neither an object nor an array).
Incoming classify(const json& message);

json make_response(const json& id, json result);
// The serialised response for a result that is already JSON text (`result` is not checked).
std::string response_text(const json& id, std::string_view result);
json make_error(const json& id, int code, const std::string& message);
json make_notification(const std::string& method, json params);
json make_request(const json& id, const std::string& method, json params);

// Serialises without throwing: invalid UTF-8 in strings is replaced by U+FFFD.
std::string serialize(const json& message);

}  // namespace raxc::lsp
