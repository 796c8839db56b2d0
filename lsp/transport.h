// The LSP base protocol over a byte stream: messages framed by "Content-Length: N\r\n\r\n"
// headers. The reader never trusts its input: a malformed header, a wrong Content-Length or a
// body that is not JSON yields an error the server reports (never a crash), and the reader
// resynchronises on the next "Content-Length:" header it can find.
#pragma once
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace raxc::lsp {

// Where bytes come from: stdin in `raxc lsp`, a string in tests.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads at least one byte unless the stream has ended; returns 0 at the end.
  virtual size_t read_some(char* buffer, size_t capacity) = 0;
};

class FdSource final : public ByteSource {
 public:
  explicit FdSource(int fd) : fd_(fd) {}
  size_t read_some(char* buffer, size_t capacity) override;

 private:
  int fd_;
};

class StringSource final : public ByteSource {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  size_t read_some(char* buffer, size_t capacity) override;

 private:
  std::string data_;
  size_t pos_ = 0;
};

struct ReadResult {
  enum class Kind { Message, Error, End };
  Kind kind = Kind::End;
  std::string body;   // Message: the body (not yet parsed as JSON)
  std::string error;  // Error: what was wrong, for the log; End: why, if it ended mid-message
};

class MessageReader {
 public:
  // Bodies larger than `max_body` are skipped with an error (huge documents are fine below it).
  explicit MessageReader(ByteSource& source, size_t max_body = size_t(1) << 30)
      : source_(source), max_body_(max_body) {}

  ReadResult read();

  // Puts bytes back in front of the unread input. The server calls it with the part of a body
  // that failed to parse starting at an embedded "Content-Length:" (a Content-Length that was
  // too large swallowed the start of the next message), so only the bad message is lost.
  void push_front(std::string_view bytes);

 private:
  bool fill();  // reads more input; false at the end of the stream
  bool read_line(std::string& line, bool& too_long);
  bool read_exactly(size_t count, std::string& out);
  bool skip(size_t count);

  ByteSource& source_;
  size_t max_body_;
  std::string buffer_;
  size_t pos_ = 0;  // the first unread byte of buffer_
};

// If a body that failed to parse contains the start of another framed message, returns the
// offset of its "Content-Length:" header; npos otherwise.
size_t find_embedded_header(std::string_view body);

// Frames and writes whole messages; safe to call from several threads.
class MessageWriter {
 public:
  using Sink = std::function<bool(std::string_view)>;  // false: the output is gone
  explicit MessageWriter(Sink sink) : sink_(std::move(sink)) {}

  // Writes "Content-Length: N\r\n\r\n" + body atomically with respect to other writers.
  bool write(std::string_view body);

 private:
  std::mutex mutex_;
  Sink sink_;
  bool broken_ = false;
};

// A sink writing to a file descriptor (retries on EINTR and short writes).
MessageWriter::Sink fd_sink(int fd);

}  // namespace raxc::lsp
