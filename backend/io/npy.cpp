// .npy reading and writing (see npy.h for the accepted files and the guarantees).
//
// Layout of a .npy file: "\x93NUMPY", major and minor version bytes, the header length (uint16
// little-endian in 1.0, uint32 in 2.0 and 3.0), the header — a Python dict literal such as
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" padded with spaces and a final
// '\n' — then the raw elements. The writer reproduces numpy's own header bytes (sorted keys,
// numpy's growth padding after the shape, 64-byte alignment) so files are byte-identical to
// what numpy.save writes for the same array.
#include "backend/io/npy.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "backend/io/atomic_file.h"

namespace raxc::io {

namespace {

using runtime::Tensor;
using runtime::TensorPtr;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr int64_t kAlign = 64;

// What the header says about the data.
struct Header {
  DLDataType dtype{kDLFloat, 32, 1};
  int64_t elem_bytes = 4;
  bool swap = false;  // stored in the other byte order
  bool fortran = false;
  std::vector<int64_t> shape;
  int64_t nbytes = 0;  // bytes of element data
};

// ---------------------------------------------------------------- header text

// A cursor over the header dict literal (a small subset of Python literal syntax).
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  Result<Header> parse() {
    Header h;
    std::optional<std::string> descr;
    std::optional<bool> fortran;
    std::optional<std::vector<int64_t>> shape;
    skip_ws();
    if (!eat('{')) return fail("the header is not a dict literal");
    skip_ws();
    while (!eat('}')) {
      std::string key;
      if (!string_literal(key)) return fail("expected a quoted key in the header");
      skip_ws();
      if (!eat(':')) return fail("expected ':' after '" + key + "' in the header");
      skip_ws();
      if (key == "descr") {
        if (peek() == '[') {
          return fail("structured dtypes (a list 'descr') are not supported");
        }
        std::string d;
        if (!string_literal(d)) return fail("'descr' is not a string");
        descr = d;
      } else if (key == "fortran_order") {
        if (word("True")) {
          fortran = true;
        } else if (word("False")) {
          fortran = false;
        } else {
          return fail("'fortran_order' is not True or False");
        }
      } else if (key == "shape") {
        std::vector<int64_t> dims;
        if (Status st = shape_tuple(dims)) return *st;
        shape = std::move(dims);
      } else {
        return fail("unexpected key '" + key + "' in the header");
      }
      skip_ws();
      if (eat(',')) {
        skip_ws();
        continue;
      }
      if (peek() != '}') return fail("expected ',' or '}' in the header");
    }
    skip_ws();
    if (i_ != s_.size()) return fail("unexpected text after the header dict");
    if (!descr || !fortran || !shape) {
      return fail("the header lacks one of 'descr', 'fortran_order' and 'shape'");
    }
    if (Status st = set_dtype(*descr, h)) return *st;
    h.fortran = *fortran;
    h.shape = std::move(*shape);
    return h;
  }

 private:
  static IoError fail(std::string message) { return io_error("bad .npy header: " + message); }

  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool string_literal(std::string& out) {
    char q = peek();
    if (q != '\'' && q != '"') return false;
    ++i_;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    return eat(q);
  }
  // "()", "(3,)", "(2, 3)"; Python 2 files may spell dims "3L".
  Status shape_tuple(std::vector<int64_t>& dims) {
    if (!eat('(')) return fail("'shape' is not a tuple");
    skip_ws();
    while (!eat(')')) {
      if (peek() < '0' || peek() > '9') return fail("'shape' holds something other than sizes");
      int64_t d = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = s_[i_++] - '0';
        if (d > (INT64_MAX - digit) / 10) return fail("a dimension of 'shape' is too large");
        d = d * 10 + digit;
      }
      if (peek() == 'L' || peek() == 'l') ++i_;
      dims.push_back(d);
      if (static_cast<int>(dims.size()) > kMaxNpyDims) {
        return fail("more than " + std::to_string(kMaxNpyDims) + " dimensions");
      }
      skip_ws();
      if (eat(',')) {
        skip_ws();
      } else if (peek() != ')') {
        return fail("expected ',' or ')' in 'shape'");
      }
    }
    return std::nullopt;
  }
  static Status set_dtype(const std::string& descr, Header& h) {
    auto unsupported = [&](const std::string& why) {
      return io_error("unsupported dtype '" + descr + "' (" + why + ")");
    };
    std::string_view d = descr;
    char order = '=';
    if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
      order = d[0];
      d.remove_prefix(1);
    }
    if (d.empty()) return unsupported("empty");
    char kind = d[0];
    d.remove_prefix(1);
    int64_t size = 0;
    for (char c : d) {
      if (c < '0' || c > '9' || size > 1000) return unsupported("not a simple numeric dtype");
      size = size * 10 + (c - '0');
    }
    switch (kind) {
      case 'b':
        if (size != 1) return unsupported("bool of other than 1 byte");
        h.dtype = DLDataType{kDLUInt, 1, 1};
        break;
      case 'i':
      case 'u':
        if (size != 1 && size != 2 && size != 4 && size != 8) {
          return unsupported("no such integer size");
        }
        h.dtype = DLDataType{static_cast<uint8_t>(kind == 'i' ? kDLInt : kDLUInt),
                             static_cast<uint8_t>(size * 8), 1};
        break;
      case 'f':
        if (size != 2 && size != 4 && size != 8) return unsupported("only float16/32/64");
        h.dtype = DLDataType{kDLFloat, static_cast<uint8_t>(size * 8), 1};
        break;
      case 'c': return unsupported("complex numbers");
      case 'O': return unsupported("object arrays");
      case 'U':
      case 'S':
      case 'a': return unsupported("strings");
      case 'V': return unsupported("raw bytes or a structured/extension dtype such as bfloat16");
      case 'M':
      case 'm': return unsupported("dates and times");
      default: return unsupported("unknown kind");
    }
    h.elem_bytes = size;
    bool big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
    h.swap = size > 1 && big != (std::endian::native == std::endian::big);
    return std::nullopt;
  }

  std::string_view s_;
  size_t i_ = 0;
};

// ---------------------------------------------------------------- preamble

// Where the header text lies, from the first bytes of the file (at least 12, or all of a
// shorter file).
struct Preamble {
  int64_t header_begin = 0;
  int64_t header_len = 0;
};

Result<Preamble> parse_preamble(std::string_view first) {
  if (first.size() < kMagic.size() || first.substr(0, kMagic.size()) != kMagic) {
    return io_error("not a .npy file (bad magic string)");
  }
  if (first.size() < 8) return io_error("truncated .npy header");
  int major = static_cast<unsigned char>(first[6]), minor = static_cast<unsigned char>(first[7]);
  Preamble p;
  if (major == 1 && minor == 0) {
    if (first.size() < 10) return io_error("truncated .npy header");
    p.header_begin = 10;
    p.header_len =
        static_cast<unsigned char>(first[8]) | (int64_t{static_cast<unsigned char>(first[9])} << 8);
  } else if ((major == 2 || major == 3) && minor == 0) {
    if (first.size() < 12) return io_error("truncated .npy header");
    p.header_begin = 12;
    for (int i = 3; i >= 0; --i) {
      p.header_len = (p.header_len << 8) | static_cast<unsigned char>(first[8 + i]);
    }
  } else {
    return io_error("unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(minor));
  }
  if (p.header_len > kMaxNpyHeaderBytes) {
    return io_error(".npy header too large (" + std::to_string(p.header_len) + " bytes, at most " +
                    std::to_string(kMaxNpyHeaderBytes) + ")");
  }
  return p;
}

Result<Header> parse_header_text(std::string_view text) {
  Result<Header> r = HeaderParser(text).parse();
  if (Header* h = std::get_if<Header>(&r)) {
    std::optional<int64_t> bytes = Tensor::byte_size(h->shape, h->dtype);
    if (!bytes) return io_error("the shape's byte size overflows");
    h->nbytes = *bytes;
  }
  return r;
}

std::string truncated_message(int64_t declared, int64_t held) {
  return "truncated data: the header declares " + std::to_string(declared) +
         " bytes of elements, the file holds " + std::to_string(held);
}

// ---------------------------------------------------------------- element data

void byteswap_elements(char* p, int64_t n, int64_t size) {
  for (int64_t i = 0; i < n; ++i, p += size) std::reverse(p, p + size);
}

// Makes `raw` (the file's element bytes, already in memory) a row-major native tensor.
Result<TensorPtr> finish(const Header& h, TensorPtr raw) {
  int64_t n = raw->numel();
  char* p = static_cast<char*>(raw->data());
  if (h.swap) byteswap_elements(p, n, h.elem_bytes);
  if (runtime::is_bool(h.dtype)) {
    for (int64_t i = 0; i < n; ++i) p[i] = p[i] != 0;
  }
  if (!h.fortran || h.shape.size() < 2 || n == 0) return raw;
  // Column-major -> row-major: walk the destination in row-major order, keeping the source
  // offset of the same multi-index (column-major strides) up to date.
  TensorPtr out = Tensor::empty(h.shape, h.dtype);
  if (!out) return io_error("out of memory for " + std::to_string(h.nbytes) + " bytes");
  const size_t nd = h.shape.size();
  std::vector<int64_t> cstride(nd), index(nd, 0);
  for (size_t k = 0; k < nd; ++k) cstride[k] = k == 0 ? 1 : cstride[k - 1] * h.shape[k - 1];
  const char* src = p;
  char* dst = static_cast<char*>(out->data());
  const size_t es = static_cast<size_t>(h.elem_bytes);
  int64_t src_off = 0;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * h.elem_bytes, src + src_off * h.elem_bytes, es);
    for (size_t k = nd; k-- > 0;) {
      if (++index[k] < h.shape[k]) {
        src_off += cstride[k];
        break;
      }
      src_off -= cstride[k] * (h.shape[k] - 1);
      index[k] = 0;
    }
  }
  return out;
}

// ---------------------------------------------------------------- file reading

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Reads up to `n` bytes; fewer only at end of file. -1 on a read error (errno set).
int64_t read_up_to(int fd, char* out, int64_t n) {
  int64_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, out + got, static_cast<size_t>(std::min<int64_t>(n - got, 1 << 30)));
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (r == 0) break;
    got += r;
  }
  return got;
}

// Files at least this large are mapped rather than read, when their elements can be used as
// they lie (mapped_elements).
constexpr int64_t kMapAtLeastBytes = int64_t(1) << 20;

// The elements of a regular file, mapped copy-on-write, as a tensor: no copy and no fresh
// anonymous pages (on our VMs a read into new memory costs a page fault per 4 KiB and the copy:
// 28 ms for 34 MB, the mapping 3 ms), and writes to the tensor never reach the file. Null when
// the elements need converting (byte order, bool bytes, column-major), when they do not start
// 64-byte aligned (generated code assumes it; numpy's writer aligns them), or when mapping
// fails: the caller reads the file instead.
TensorPtr mapped_elements(int fd, const Header& h, int64_t data_begin) {
  if (h.swap || runtime::is_bool(h.dtype) || (h.fortran && h.shape.size() >= 2) ||
      h.nbytes < kMapAtLeastBytes || data_begin % runtime::kAllocAlignment != 0)
    return nullptr;
  size_t length = static_cast<size_t>(data_begin + h.nbytes);
  void* base = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (base == MAP_FAILED) return nullptr;
  std::shared_ptr<const void> mapping(
      base, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
  return Tensor::view(std::move(mapping), static_cast<char*>(base) + data_begin, h.shape, h.dtype);
}

Result<TensorPtr> read_npy_fd(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return io_error(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return io_error("is a directory");
  const bool regular = S_ISREG(st.st_mode);

  char first[12];
  int64_t got = read_up_to(fd, first, sizeof first);
  if (got < 0) return io_error(std::strerror(errno));
  Result<Preamble> pre = parse_preamble(std::string_view(first, static_cast<size_t>(got)));
  if (const IoError* e = error_of(pre)) return *e;
  const Preamble& p = std::get<Preamble>(pre);
  const int64_t data_begin = p.header_begin + p.header_len;
  if (regular && st.st_size < data_begin) return io_error("truncated .npy header");

  // The header text: the part already read plus the rest (bounded by kMaxNpyHeaderBytes).
  std::string text(first + p.header_begin, first + got);
  if (static_cast<int64_t>(text.size()) > p.header_len) {
    text.resize(static_cast<size_t>(p.header_len));
  }
  int64_t leftover = got - p.header_begin - static_cast<int64_t>(text.size());  // data bytes read
  if (static_cast<int64_t>(text.size()) < p.header_len) {
    size_t have = text.size();
    text.resize(static_cast<size_t>(p.header_len));
    int64_t more = read_up_to(fd, text.data() + have, p.header_len - static_cast<int64_t>(have));
    if (more < 0) return io_error(std::strerror(errno));
    if (more < p.header_len - static_cast<int64_t>(have)) return io_error("truncated .npy header");
  }
  Result<Header> hr = parse_header_text(text);
  if (const IoError* e = error_of(hr)) return *e;
  const Header& h = std::get<Header>(hr);

  // Check the size before allocating anything.
  if (regular && st.st_size - data_begin < h.nbytes) {
    return io_error(truncated_message(h.nbytes, st.st_size - data_begin));
  }
  if (!regular) {
    // A pipe or device: collect what arrives (memory grows with the data actually read).
    std::string data;
    if (leftover > 0) data.assign(first + data_begin, static_cast<size_t>(leftover));
    while (static_cast<int64_t>(data.size()) < h.nbytes) {
      size_t have = data.size();
      int64_t want = std::min<int64_t>(h.nbytes - static_cast<int64_t>(have), 1 << 20);
      data.resize(have + static_cast<size_t>(want));
      int64_t r = read_up_to(fd, data.data() + have, want);
      if (r < 0) return io_error(std::strerror(errno));
      data.resize(have + static_cast<size_t>(r));
      if (r < want) return io_error(truncated_message(h.nbytes, static_cast<int64_t>(data.size())));
    }
    TensorPtr raw = Tensor::empty(h.shape, h.dtype);
    if (!raw) return io_error("out of memory for " + std::to_string(h.nbytes) + " bytes");
    if (h.nbytes > 0) std::memcpy(raw->data(), data.data(), static_cast<size_t>(h.nbytes));
    return finish(h, std::move(raw));
  }
  if (TensorPtr mapped = mapped_elements(fd, h, data_begin)) return mapped;
  TensorPtr raw = Tensor::empty(h.shape, h.dtype);
  if (!raw) return io_error("out of memory for " + std::to_string(h.nbytes) + " bytes");
  char* dst = static_cast<char*>(raw->data());
  int64_t copied = std::min<int64_t>(std::max<int64_t>(leftover, 0), h.nbytes);
  if (copied > 0) std::memcpy(dst, first + data_begin, static_cast<size_t>(copied));
  int64_t r = read_up_to(fd, dst + copied, h.nbytes - copied);
  if (r < 0) return io_error(std::strerror(errno));
  if (copied + r < h.nbytes) return io_error(truncated_message(h.nbytes, copied + r));
  return finish(h, std::move(raw));
}

// ---------------------------------------------------------------- writing

std::string shape_repr(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// Header bytes (magic, version, length, dict, padding) as numpy.lib.format writes them.
Result<std::string> header_bytes(const std::string& descr, const std::vector<int64_t>& shape) {
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
  // numpy leaves room for the first dimension to grow to 21 digits.
  if (!shape.empty()) {
    dict.append(21 - std::min<size_t>(21, std::to_string(shape[0]).size()), ' ');
  }
  for (int version : {1, 2}) {
    const int64_t len_bytes = version == 1 ? 2 : 4;
    const int64_t hlen = static_cast<int64_t>(dict.size()) + 1;
    const int64_t pad = kAlign - ((6 + 2 + len_bytes + hlen) % kAlign);
    const int64_t total = hlen + pad;
    if (version == 1 && total > 0xffff) continue;
    std::string out(kMagic);
    out += static_cast<char>(version);
    out += '\0';
    for (int64_t i = 0; i < len_bytes; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
    out += dict;
    out.append(static_cast<size_t>(pad), ' ');
    out += '\n';
    return out;
  }
  return io_error(".npy header too large");
}

// The element bytes to write: the tensor's own memory, or float32 copies of bfloat16 values.
class Payload {
 public:
  explicit Payload(const Tensor& t) {
    if (t.dtype().code == kDLBfloat) {
      const int64_t n = t.numel();
      converted_.resize(static_cast<size_t>(n) * 4);
      const uint16_t* src = t.data_as<uint16_t>();
      for (int64_t i = 0; i < n; ++i) {
        float f = runtime::bfloat_to_float(src[i]);
        std::memcpy(converted_.data() + i * 4, &f, 4);
      }
      bytes_ = converted_;
    } else {
      bytes_ =
          std::string_view(static_cast<const char*>(t.data()), static_cast<size_t>(t.nbytes()));
    }
  }
  Payload(const Payload&) = delete;
  Payload& operator=(const Payload&) = delete;
  std::string_view bytes() const { return bytes_; }

 private:
  std::string converted_;
  std::string_view bytes_;
};

}  // namespace

Result<std::string> npy_descr(DLDataType dtype) {
  const std::string name = runtime::dtype_name(dtype);
  if (dtype.lanes != 1) return io_error("cannot store " + name + " in .npy (vector dtype)");
  if (runtime::is_bool(dtype)) return std::string("|b1");
  const char order = std::endian::native == std::endian::little ? '<' : '>';
  const int bytes = dtype.bits / 8;
  switch (dtype.code) {
    case kDLInt:
    case kDLUInt:
      if (dtype.bits != 8 && dtype.bits != 16 && dtype.bits != 32 && dtype.bits != 64) break;
      return std::string(1, bytes == 1 ? '|' : order) + (dtype.code == kDLInt ? "i" : "u") +
             std::to_string(bytes);
    case kDLFloat:
      if (dtype.bits != 16 && dtype.bits != 32 && dtype.bits != 64) break;
      return std::string(1, order) + "f" + std::to_string(bytes);
    case kDLBfloat:
      if (dtype.bits != 16) break;
      return std::string(1, order) + "f4";
    default: break;
  }
  return io_error("cannot store " + name + " in .npy");
}

Result<TensorPtr> decode_npy(std::string_view bytes) {
  Result<Preamble> pre = parse_preamble(bytes.substr(0, 12));
  if (const IoError* e = error_of(pre)) return *e;
  const Preamble& p = std::get<Preamble>(pre);
  if (static_cast<int64_t>(bytes.size()) < p.header_begin + p.header_len) {
    return io_error("truncated .npy header");
  }
  Result<Header> hr = parse_header_text(
      bytes.substr(static_cast<size_t>(p.header_begin), static_cast<size_t>(p.header_len)));
  if (const IoError* e = error_of(hr)) return *e;
  const Header& h = std::get<Header>(hr);
  const int64_t data_begin = p.header_begin + p.header_len;
  const int64_t held = static_cast<int64_t>(bytes.size()) - data_begin;
  if (held < h.nbytes) return io_error(truncated_message(h.nbytes, held));
  TensorPtr raw = Tensor::empty(h.shape, h.dtype);
  if (!raw) return io_error("out of memory for " + std::to_string(h.nbytes) + " bytes");
  if (h.nbytes > 0) {
    std::memcpy(raw->data(), bytes.data() + data_begin, static_cast<size_t>(h.nbytes));
  }
  return finish(h, std::move(raw));
}

Result<TensorPtr> read_npy(const std::filesystem::path& path) {
  const std::string shown = path.string();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(shown + ": cannot open: " + std::strerror(errno));
  Fd guard(fd);
  Result<TensorPtr> r = read_npy_fd(fd);
  if (IoError* e = std::get_if<IoError>(&r)) e->message = shown + ": " + e->message;
  return r;
}

Result<std::string> encode_npy(const Tensor& tensor) {
  Result<std::string> descr = npy_descr(tensor.dtype());
  if (const IoError* e = error_of(descr)) return *e;
  Result<std::string> head = header_bytes(std::get<std::string>(descr), tensor.shape());
  if (const IoError* e = error_of(head)) return *e;
  Payload body(tensor);
  std::string out = std::move(std::get<std::string>(head));
  out.append(body.bytes());
  return out;
}

Status write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  Result<std::string> descr = npy_descr(tensor.dtype());
  if (const IoError* e = error_of(descr)) return io_error(path.string() + ": " + e->message);
  Result<std::string> head = header_bytes(std::get<std::string>(descr), tensor.shape());
  if (const IoError* e = error_of(head)) return io_error(path.string() + ": " + e->message);
  Payload body(tensor);
  return write_file_atomic(path, {std::get<std::string>(head), body.bytes()});
}

}  // namespace raxc::io
