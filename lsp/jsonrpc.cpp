#include "lsp/jsonrpc.h"

namespace raxc::lsp {
namespace {

bool valid_id(const json& id) { return id.is_number_integer() || id.is_string(); }

}  // namespace

Incoming classify(const json& message) {
  Incoming in;
  if (!message.is_object()) {
    in.error = message.is_array() ? "batches are not supported" : "a message must be an object";
    return in;
  }
  auto id = message.find("id");
  if (id != message.end() && valid_id(*id)) in.id = *id;
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    in.error = "\"jsonrpc\" must be \"2.0\"";
    return in;
  }
  if (id != message.end() && !valid_id(*id) && !id->is_null()) {
    in.error = "\"id\" must be an integer or a string";
    return in;
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (id == message.end() || (!message.contains("result") && !message.contains("error"))) {
      in.error = "a message needs a \"method\", or a \"result\" or \"error\" with an \"id\"";
      return in;
    }
    in.kind = Incoming::Kind::Response;
    return in;
  }
  if (!method->is_string()) {
    in.error = "\"method\" must be a string";
    return in;
  }
  in.method = method->get<std::string>();
  auto params = message.find("params");
  if (params != message.end()) {
    if (!params->is_object() && !params->is_array()) {
      in.error = "\"params\" must be an object or an array";
      return in;
    }
    in.params = *params;
  }
  if (id == message.end()) {
    in.kind = Incoming::Kind::Notification;
  } else if (id->is_null()) {
    in.error = "a request's \"id\" must not be null";
  } else {
    in.kind = Incoming::Kind::Request;
  }
  return in;
}

json make_response(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

std::string response_text(const json& id, std::string_view result) {
  std::string out = R"({"id":)" + serialize(id) + R"(,"jsonrpc":"2.0","result":)";
  out += result;
  out += '}';
  return out;
}

json make_error(const json& id, int code, const std::string& message) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json make_notification(const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

json make_request(const json& id, const std::string& method, json params) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

std::string serialize(const json& message) {
  return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace raxc::lsp
