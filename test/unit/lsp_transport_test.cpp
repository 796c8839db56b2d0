// The LSP base protocol: framing (Content-Length), resynchronisation after bad input, and
// JSON-RPC classification.
#include <catch2/catch.hpp>
#include <string>

#include "lsp/jsonrpc.h"
#include "lsp/transport.h"

using namespace raxc::lsp;

namespace {

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A source that hands out one byte per read, to exercise every buffer boundary.
class TrickleSource final : public ByteSource {
 public:
  explicit TrickleSource(std::string data) : data_(std::move(data)) {}
  size_t read_some(char* buffer, size_t capacity) override {
    if (pos_ == data_.size() || capacity == 0) return 0;
    buffer[0] = data_[pos_++];
    return 1;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

}  // namespace

TEST_CASE("framing: messages in a row, also one byte at a time", "[lsp]") {
  std::string input = frame("{\"a\":1}") + frame("{\"b\":2}") +
                      "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame("[]");
  for (bool trickle : {false, true}) {
    StringSource whole(input);
    TrickleSource slow(input);
    MessageReader reader(trickle ? static_cast<ByteSource&>(slow) : whole);
    ReadResult r = reader.read();
    REQUIRE(r.kind == ReadResult::Kind::Message);
    CHECK(r.body == "{\"a\":1}");
    r = reader.read();
    REQUIRE(r.kind == ReadResult::Kind::Message);
    CHECK(r.body == "{\"b\":2}");
    r = reader.read();
    REQUIRE(r.kind == ReadResult::Kind::Message);
    CHECK(r.body == "[]");
    CHECK(reader.read().kind == ReadResult::Kind::End);
  }
}

TEST_CASE("framing: bare \\n line ends and header case are accepted", "[lsp]") {
  StringSource source("content-length:   2\n\n{}");
  MessageReader reader(source);
  ReadResult r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{}");
}

TEST_CASE("framing: a header without Content-Length is an error, then reading goes on", "[lsp]") {
  StringSource source("Content-Type: x\r\n\r\n" + frame("{}"));
  MessageReader reader(source);
  ReadResult r = reader.read();
  CHECK(r.kind == ReadResult::Kind::Error);
  r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{}");
}

TEST_CASE("framing: invalid Content-Length values are errors", "[lsp]") {
  for (const char* value : {"-5", "abc", "12x", "", "99999999999999999999"}) {
    StringSource source(std::string("Content-Length: ") + value + "\r\n\r\n" + frame("{}"));
    MessageReader reader(source);
    CHECK(reader.read().kind == ReadResult::Kind::Error);
  }
}

TEST_CASE("framing: a too short Content-Length loses one message only", "[lsp]") {
  // The body is cut; its tail runs into the next header, which is still found.
  StringSource source("Content-Length: 5\r\n\r\n{\"id\":1}" + frame("{\"ok\":true}"));
  MessageReader reader(source);
  ReadResult r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{\"id\"");
  r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{\"ok\":true}");
}

TEST_CASE("framing: a too long Content-Length is recovered through push_front", "[lsp]") {
  std::string next = frame("{\"ok\":true}");
  StringSource source("Content-Length: 20\r\n\r\n{\"id\":1}" + next + frame("{}"));
  MessageReader reader(source);
  ReadResult r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body.size() == 20);
  size_t at = find_embedded_header(r.body);
  REQUIRE(at == 8);
  reader.push_front(std::string_view(r.body).substr(at));
  r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{\"ok\":true}");
  r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{}");
}

TEST_CASE("framing: no embedded header in ordinary bodies", "[lsp]") {
  CHECK(find_embedded_header("{\"text\":\"Content-Length: 3 in a string\"}") ==
        std::string_view::npos);
  CHECK(find_embedded_header("{}") == std::string_view::npos);
}

TEST_CASE("framing: binary junk, overlong header lines and truncation never hang", "[lsp]") {
  std::string junk(20000, '\xff');
  junk[100] = '\0';
  StringSource source(junk + "\r\n\r\n" + frame("{}") + "Content-Length: 100\r\n\r\n{");
  MessageReader reader(source);
  ReadResult r = reader.read();
  CHECK(r.kind == ReadResult::Kind::Error);
  r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{}");
  r = reader.read();
  CHECK(r.kind == ReadResult::Kind::End);
  CHECK(!r.error.empty());
}

TEST_CASE("framing: bodies above the limit are skipped", "[lsp]") {
  StringSource source(frame(std::string(100, 'x')) + frame("{}"));
  MessageReader reader(source, 50);
  CHECK(reader.read().kind == ReadResult::Kind::Error);
  ReadResult r = reader.read();
  REQUIRE(r.kind == ReadResult::Kind::Message);
  CHECK(r.body == "{}");
}

TEST_CASE("writer frames with the byte length", "[lsp]") {
  std::string out;
  MessageWriter writer([&](std::string_view bytes) {
    out.append(bytes);
    return true;
  });
  writer.write("{\"é\":1}");
  CHECK(out == "Content-Length: 8\r\n\r\n{\"é\":1}");
}

TEST_CASE("jsonrpc: classification", "[lsp]") {
  using K = Incoming::Kind;
  auto kind = [](const char* text) { return classify(json::parse(text)).kind; };
  CHECK(kind(R"({"jsonrpc":"2.0","id":1,"method":"m"})") == K::Request);
  CHECK(kind(R"({"jsonrpc":"2.0","id":"a","method":"m","params":[]})") == K::Request);
  CHECK(kind(R"({"jsonrpc":"2.0","method":"m"})") == K::Notification);
  CHECK(kind(R"({"jsonrpc":"2.0","id":1,"result":null})") == K::Response);
  CHECK(kind(R"({"jsonrpc":"2.0","id":1,"error":{"code":1,"message":""}})") == K::Response);
  CHECK(kind(R"({"id":1,"method":"m"})") == K::Invalid);
  CHECK(kind(R"({"jsonrpc":"1.0","id":1,"method":"m"})") == K::Invalid);
  CHECK(kind(R"({"jsonrpc":"2.0","id":1,"method":3})") == K::Invalid);
  CHECK(kind(R"({"jsonrpc":"2.0","id":1.5,"method":"m"})") == K::Invalid);
  CHECK(kind(R"({"jsonrpc":"2.0","id":null,"method":"m"})") == K::Invalid);
  CHECK(kind(R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})") == K::Invalid);
  CHECK(kind(R"([{"jsonrpc":"2.0","method":"m"}])") == K::Invalid);
  CHECK(kind(R"("text")") == K::Invalid);
  // An invalid request keeps its id for the error response when it has a usable one.
  CHECK(classify(json::parse(R"({"jsonrpc":"2.0","id":7,"method":3})")).id == 7);
}

TEST_CASE("jsonrpc: replies and serialisation of invalid UTF-8", "[lsp]") {
  json error = make_error(3, error_code::kMethodNotFound, "no");
  CHECK(error["error"]["code"] == -32601);
  CHECK(error["id"] == 3);
  CHECK(make_response("x", nullptr).dump() == R"({"id":"x","jsonrpc":"2.0","result":null})");
  json bad = {{"s", std::string("a\xff")}};
  CHECK(serialize(bad) == "{\"s\":\"a\xEF\xBF\xBD\"}");
}
