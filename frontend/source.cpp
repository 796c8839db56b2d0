#include "frontend/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace raxc {

Utf8Step utf8_step(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80) return {1, 1, true};
  // Expected length and the allowed range of the second byte (rules out overlong forms,
  // surrogates and code points above U+10FFFF), as in the Unicode "well-formed" table.
  uint32_t length = 0;
  unsigned char low = 0x80, high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return {1, 1, false};  // a stray continuation byte, C0/C1 or F5..FF
  }
  for (uint32_t k = 1; k < length; ++k) {
    if (i + k >= text.size()) return {k, 1, false};  // truncated at the end of the text
    unsigned char c = byte(i + k);
    unsigned char lo = k == 1 ? low : 0x80, hi = k == 1 ? high : 0xBF;
    if (c < lo || c > hi) return {k, 1, false};  // the maximal subpart before the bad byte
  }
  return {length, length == 4 ? 2u : 1u, true};
}

std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;  // the first byte not yet copied
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    Utf8Step step = utf8_step(text, i);
    if (!step.valid) {
      out.append(text, start, i - start);
      out += "\xEF\xBF\xBD";
      start = i + step.bytes;
    }
    i += step.bytes;
  }
  out.append(text, start, text.size() - start);
  return out;
}

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  if (text_.size() >= 3 && text_.compare(0, 3, "\xEF\xBB\xBF") == 0) bom_ = 3;
  line_starts_.reserve(text_.size() / 32 + 1);
  line_starts_.push_back(0);
  const char* data = text_.data();
  const size_t n = text_.size();
  for (const char* p = data; (p = static_cast<const char*>(std::memchr(p, '\n', data + n - p)));) {
    ++p;
    line_starts_.push_back(static_cast<uint32_t>(p - data));
  }
}

uint32_t SourceFile::line_index(uint32_t offset) const {
  offset = std::min(offset, size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  return static_cast<uint32_t>(it - line_starts_.begin()) - 1;
}

uint32_t SourceFile::line_begin(uint32_t line) const {
  line = std::clamp<uint32_t>(line, 1, line_count());
  return line_starts_[line - 1] + (line == 1 ? bom_ : 0);
}

uint32_t SourceFile::line_end(uint32_t line) const {
  line = std::clamp<uint32_t>(line, 1, line_count());
  if (line == line_count()) return size();
  uint32_t end = line_starts_[line] - 1;  // the '\n'
  if (end > line_begin(line) && text_[end - 1] == '\r') --end;
  return end;
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line < 1 || line > line_count()) return {};
  uint32_t begin = line_begin(line);
  return std::string_view(text_).substr(begin, line_end(line) - begin);
}

LineCol SourceFile::location(uint32_t offset) const {
  offset = std::min(offset, size());
  uint32_t index = line_index(offset);
  uint32_t begin = line_starts_[index] + (index == 0 ? bom_ : 0);
  return {index + 1, offset > begin ? offset - begin + 1 : 1};
}

uint32_t SourceFile::offset_of(LineCol position) const {
  uint32_t line = std::clamp<uint32_t>(position.line, 1, line_count());
  uint32_t begin = line_begin(line);
  uint32_t column = std::max<uint32_t>(position.column, 1) - 1;
  return std::min<uint64_t>(uint64_t(begin) + column, line_end(line));
}

uint32_t SourceFile::utf16_column(uint32_t offset) const {
  offset = std::min(offset, size());
  uint32_t line = line_index(offset) + 1;
  uint32_t pos = line_begin(line);
  uint32_t units = 0;
  while (pos < offset) {
    Utf8Step step = utf8_step(text_, pos);
    if (pos + step.bytes > offset) break;
    pos += step.bytes;
    units += step.utf16_units;
  }
  return units;
}

uint32_t SourceFile::offset_from_utf16(uint32_t line0, uint32_t character) const {
  if (line0 >= line_count()) return size();
  uint32_t pos = line_begin(line0 + 1);
  const uint32_t end = line_end(line0 + 1);
  uint32_t units = 0;
  while (pos < end) {
    Utf8Step step = utf8_step(text_, pos);
    if (units + step.utf16_units > character) break;
    units += step.utf16_units;
    pos = std::min(pos + step.bytes, end);
  }
  return pos;
}

SourceManager::LoadResult SourceManager::load(const std::string& path) {
  LoadResult result;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.error = std::strerror(errno);
    return result;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    result.error = std::strerror(errno);
    ::close(fd);
    return result;
  }
  if (S_ISDIR(info.st_mode)) {
    result.error = "is a directory";
    ::close(fd);
    return result;
  }
  constexpr size_t kLimit = std::numeric_limits<uint32_t>::max() - 1;
  std::string text;
  if (S_ISREG(info.st_mode)) {
    if (static_cast<uint64_t>(info.st_size) > kLimit) {
      result.error = "file too large (the limit is 4 GiB)";
      ::close(fd);
      return result;
    }
    text.reserve(static_cast<size_t>(info.st_size));
  }
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      result.error = std::strerror(errno);
      ::close(fd);
      return result;
    }
    if (got == 0) break;
    if (text.size() + static_cast<size_t>(got) > kLimit) {
      result.error = "file too large (the limit is 4 GiB)";
      ::close(fd);
      return result;
    }
    text.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  result.file = &add_virtual(path, std::move(text));
  return result;
}

const SourceFile& SourceManager::add_virtual(std::string path, std::string text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(text)));
  return *files_.back();
}

const SourceFile* SourceManager::find(std::string_view path) const {
  for (auto it = files_.rbegin(); it != files_.rend(); ++it)
    if ((*it)->path() == path) return it->get();
  return nullptr;
}

}  // namespace raxc
