#include "lsp/transport.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace raxc::lsp {
namespace {

constexpr size_t kMaxHeaderLine = 8192;
constexpr std::string_view kContentLength = "content-length:";

char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; }

// Case-insensitive search for "content-length:" anywhere in `text` (a header glued to the
// tail of a truncated body is still found).
size_t find_content_length(std::string_view text) {
  if (text.size() < kContentLength.size()) return std::string_view::npos;
  for (size_t i = 0; i + kContentLength.size() <= text.size(); ++i) {
    size_t k = 0;
    while (k < kContentLength.size() && lower(text[i + k]) == kContentLength[k]) ++k;
    if (k == kContentLength.size()) return i;
  }
  return std::string_view::npos;
}

// "  123 " -> 123; anything else (empty, signs, junk, overflow) -> false.
bool parse_length(std::string_view text, size_t& value) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  if (text.empty() || text.size() > 12) return false;
  value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + size_t(c - '0');
  }
  return true;
}

}  // namespace

size_t FdSource::read_some(char* buffer, size_t capacity) {
  for (;;) {
    ssize_t got = ::read(fd_, buffer, capacity);
    if (got >= 0) return size_t(got);
    if (errno != EINTR) return 0;  // an unreadable input ends the session like EOF
  }
}

size_t StringSource::read_some(char* buffer, size_t capacity) {
  size_t n = std::min(capacity, data_.size() - pos_);
  std::memcpy(buffer, data_.data() + pos_, n);
  pos_ += n;
  return n;
}

bool MessageReader::fill() {
  if (pos_ > 0 && pos_ == buffer_.size()) {
    buffer_.clear();
    pos_ = 0;
  } else if (pos_ > (size_t(1) << 20)) {  // keep the buffer from growing without bound
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  char chunk[1 << 16];
  size_t got = source_.read_some(chunk, sizeof chunk);
  if (got == 0) return false;
  buffer_.append(chunk, got);
  return true;
}

void MessageReader::push_front(std::string_view bytes) { buffer_.insert(pos_, bytes); }

// One header line without its "\r\n" (or "\n"). Overlong lines are consumed and flagged.
bool MessageReader::read_line(std::string& line, bool& too_long) {
  line.clear();
  too_long = false;
  for (;;) {
    size_t newline = buffer_.find('\n', pos_);
    size_t end = newline == std::string::npos ? buffer_.size() : newline;
    size_t take =
        std::min(end - pos_, kMaxHeaderLine + 1 - std::min(line.size(), kMaxHeaderLine + 1));
    line.append(buffer_, pos_, take);
    if (line.size() > kMaxHeaderLine) too_long = true;
    if (newline != std::string::npos) {
      pos_ = newline + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    pos_ = buffer_.size();
    if (!fill()) return !line.empty();
  }
}

bool MessageReader::read_exactly(size_t count, std::string& out) {
  out.clear();
  out.reserve(std::min(count, size_t(64) << 20));
  while (out.size() < count) {
    if (pos_ == buffer_.size() && !fill()) return false;
    size_t take = std::min(count - out.size(), buffer_.size() - pos_);
    out.append(buffer_, pos_, take);
    pos_ += take;
  }
  return true;
}

bool MessageReader::skip(size_t count) {
  while (count > 0) {
    if (pos_ == buffer_.size() && !fill()) return false;
    size_t take = std::min(count, buffer_.size() - pos_);
    pos_ += take;
    count -= take;
  }
  return true;
}

ReadResult MessageReader::read() {
  ReadResult result;
  std::string line;
  bool have_length = false, bad_header = false, any_header = false;
  size_t length = 0;
  std::string problem;
  for (;;) {
    bool too_long = false;
    if (!read_line(line, too_long)) {
      result.kind = ReadResult::Kind::End;
      if (any_header) result.error = "the input ended inside a message header";
      return result;
    }
    if (line.empty() && !too_long) {
      if (!any_header) continue;  // stray blank lines between messages
      break;
    }
    any_header = true;
    size_t at = find_content_length(line);
    if (at != std::string::npos) {
      if (at > 0) problem = "unexpected bytes before a Content-Length header";
      size_t value = 0;
      if (parse_length(std::string_view(line).substr(at + kContentLength.size()), value)) {
        have_length = true;
        length = value;
      } else {
        bad_header = true;
        problem = "invalid Content-Length header '" + line.substr(0, 80) + "'";
      }
    } else if (too_long || line.find(':') == std::string::npos) {
      problem = "malformed header line";
    }
  }
  if (!have_length || bad_header) {
    result.kind = ReadResult::Kind::Error;
    result.error = problem.empty() ? "message without a Content-Length header" : problem;
    return result;
  }
  if (length > max_body_) {
    result.kind = ReadResult::Kind::Error;
    result.error = "message of " + std::to_string(length) + " bytes is larger than the limit";
    if (!skip(length)) result.kind = ReadResult::Kind::End;
    return result;
  }
  if (!read_exactly(length, result.body)) {
    result.kind = ReadResult::Kind::End;
    result.error = "the input ended inside a message body";
    return result;
  }
  result.kind = ReadResult::Kind::Message;
  if (!problem.empty()) result.error = problem;  // delivered, but worth a log line
  return result;
}

size_t find_embedded_header(std::string_view body) {
  // A whole header: "Content-Length: digits\r\n".
  for (size_t at = find_content_length(body); at != std::string_view::npos;) {
    size_t eol = body.find('\n', at);
    size_t value = 0;
    std::string_view digits = body.substr(at + kContentLength.size());
    if (eol != std::string_view::npos) digits = digits.substr(0, eol - at - kContentLength.size());
    if (!digits.empty() && digits.back() == '\r') digits.remove_suffix(1);
    bool cut_in_digits = eol == std::string_view::npos &&
                         digits.find_first_not_of("0123456789 ") == std::string_view::npos;
    if (cut_in_digits || (eol != std::string_view::npos && parse_length(digits, value))) return at;
    size_t next = find_content_length(body.substr(at + 1));
    at = next == std::string_view::npos ? next : at + 1 + next;
  }
  // The body ends inside the next header's name ("...}Content-Le").
  for (size_t k = std::min(body.size(), kContentLength.size() - 1); k >= 4; --k) {
    std::string_view tail = body.substr(body.size() - k);
    bool match = true;
    for (size_t i = 0; i < k && match; ++i) match = lower(tail[i]) == kContentLength[i];
    if (match) return body.size() - k;
  }
  return std::string_view::npos;
}

bool MessageWriter::write(std::string_view body) {
  std::string framed = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  framed.append(body);
  std::lock_guard lock(mutex_);
  if (broken_) return false;
  if (!sink_(framed)) broken_ = true;
  return !broken_;
}

MessageWriter::Sink fd_sink(int fd) {
  return [fd](std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      bytes.remove_prefix(size_t(wrote));
    }
    return true;
  };
}

}  // namespace raxc::lsp
