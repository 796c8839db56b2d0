// backend/io: .npy reading and writing (against files numpy wrote, test/data/io/make_npy.py),
// command-line literals and the argument fillers, numpy-style printing (expected strings
// generated with numpy 1.24's str()) and JSON, and save_outputs.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/io/literal.h"
#include "backend/io/npy.h"
#include "backend/io/print.h"
#include "backend/io/save.h"

namespace {

namespace fs = std::filesystem;
using namespace raxc;
using io::IoError;
using io::Literal;
using runtime::Tensor;
using runtime::TensorPtr;
using runtime::Value;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

DLDataType dt(const char* name) { return *runtime::parse_dtype(name); }

fs::path data_dir() { return fs::path(RAXC_SOURCE_DIR) / "test" / "data" / "io"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// A fresh empty directory under the system temp dir, removed at scope exit.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("raxc_io_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path operator/(const std::string& name) const { return path / name; }
};

template <class T>
const T& value_of(const io::Result<T>& r) {
  if (const IoError* e = io::error_of(r)) FAIL("unexpected error: " << e->message);
  return std::get<T>(r);
}

template <class T>
std::string error_text(const io::Result<T>& r) {
  const IoError* e = io::error_of(r);
  if (!e) FAIL("expected an error");
  return e->message;
}

TensorPtr read_fixture(const char* name) { return value_of(io::read_npy(data_dir() / name)); }

TensorPtr make(const char* dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  TensorPtr t = Tensor::empty(std::move(shape), dt(dtype));
  REQUIRE(t);
  REQUIRE(static_cast<int64_t>(values.size()) == t->numel());
  const bool is_float = t->dtype().code == kDLFloat || t->dtype().code == kDLBfloat;
  for (size_t i = 0; i < values.size(); ++i) {
    if (is_float) {
      t->set_f64(static_cast<int64_t>(i), values[i]);
    } else {
      t->set_i64(static_cast<int64_t>(i), static_cast<int64_t>(values[i]));
    }
  }
  return t;
}

std::vector<double> f64s(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get_f64(i));
  return out;
}
std::vector<int64_t> i64s(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.get_i64(i));
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return runtime::same_dtype(a.dtype(), b.dtype()) && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.nbytes())) == 0;
}

// A .npy file image with the given header dict text and `data_bytes` zero bytes of data.
std::string npy_image(const std::string& dict, size_t data_bytes, int major = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  std::string header = dict + "\n";
  const size_t len = header.size();
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    out += static_cast<char>((len >> 16) & 0xff);
    out += static_cast<char>((len >> 24) & 0xff);
  }
  return out + header + std::string(data_bytes, '\0');
}

}  // namespace

// ================================================================ .npy

TEST_CASE("npy: numpy's files of every supported dtype", "[io]") {
  TensorPtr f4 = read_fixture("f4_2x3.npy");
  CHECK(runtime::dtype_name(f4->dtype()) == "float32");
  CHECK(f4->shape() == std::vector<int64_t>{2, 3});
  CHECK(f64s(*f4) == std::vector<double>{1.5, -2.25, 3.0, double(0.1f), double(1e-3f), 65504.0});

  TensorPtr f2 = read_fixture("f2_2x2.npy");
  CHECK(runtime::dtype_name(f2->dtype()) == "float16");
  CHECK(f2->get_f64(0) == double(runtime::half_to_float(runtime::float_to_half(0.1f))));
  CHECK(f2->get_f64(1) == -2.0);
  CHECK(f2->get_f64(2) == 65504.0);
  CHECK(f2->get_f64(3) == double(runtime::half_to_float(runtime::float_to_half(6e-8f))));

  TensorPtr b = read_fixture("b1.npy");
  CHECK(runtime::is_bool(b->dtype()));
  CHECK(i64s(*b) == std::vector<int64_t>{1, 0, 1, 1});

  TensorPtr i1 = read_fixture("i1.npy");
  CHECK(runtime::dtype_name(i1->dtype()) == "int8");
  CHECK(i64s(*i1) == std::vector<int64_t>{-128, 127, 0});
  TensorPtr u1 = read_fixture("u1.npy");
  CHECK(runtime::dtype_name(u1->dtype()) == "uint8");
  CHECK(i64s(*u1) == std::vector<int64_t>{0, 255, 7});
  TensorPtr u2 = read_fixture("u2.npy");
  CHECK(runtime::dtype_name(u2->dtype()) == "uint16");
  CHECK(u2->shape() == std::vector<int64_t>{1, 2});
  CHECK(i64s(*u2) == std::vector<int64_t>{65535, 1});
  TensorPtr u4 = read_fixture("u4.npy");
  CHECK(runtime::dtype_name(u4->dtype()) == "uint32");
  CHECK(i64s(*u4) == std::vector<int64_t>{4294967295, 3});
  TensorPtr u8 = read_fixture("u8.npy");
  CHECK(runtime::dtype_name(u8->dtype()) == "uint64");
  CHECK(u8->data_as<uint64_t>()[1] == std::numeric_limits<uint64_t>::max());
  TensorPtr i8 = read_fixture("i8.npy");
  CHECK(i64s(*i8) == std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                          std::numeric_limits<int64_t>::max()});
}

TEST_CASE("npy: big-endian files are converted", "[io]") {
  TensorPtr i4 = read_fixture("i4_big_endian.npy");
  CHECK(runtime::dtype_name(i4->dtype()) == "int32");
  CHECK(i64s(*i4) == std::vector<int64_t>{1, -2, 300000});
  TensorPtr f8 = read_fixture("f8_big_endian.npy");
  CHECK(f64s(*f8) == std::vector<double>{0.5, -1e300});
}

TEST_CASE("npy: Fortran order is transposed to row-major", "[io]") {
  TensorPtr f8 = read_fixture("f8_fortran_2x3.npy");
  CHECK(f8->shape() == std::vector<int64_t>{2, 3});
  CHECK(f64s(*f8) == std::vector<double>{1, 2, 3, 4, 5, 6});
  TensorPtr i2 = read_fixture("i2_fortran_2x3x4.npy");
  CHECK(i2->shape() == std::vector<int64_t>{2, 3, 4});
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 24; ++i) expected.push_back(i - 12);
  CHECK(i64s(*i2) == expected);
}

TEST_CASE("npy: 0-d, 0-size, format versions 2.0 and 3.0", "[io]") {
  TensorPtr s = read_fixture("f8_scalar.npy");
  CHECK(s->ndim() == 0);
  CHECK(s->get_f64(0) == 2.5);
  TensorPtr e = read_fixture("f4_empty_0x3.npy");
  CHECK(e->shape() == std::vector<int64_t>{0, 3});
  CHECK(e->numel() == 0);
  TensorPtr v2 = read_fixture("f4_v2.npy");
  CHECK(f64s(*v2) == std::vector<double>{1, 2});
  TensorPtr v3 = read_fixture("i8_v3.npy");
  CHECK(v3->shape() == std::vector<int64_t>{1, 2});
  CHECK(i64s(*v3) == std::vector<int64_t>{7, 8});
}

TEST_CASE("npy: unsupported dtypes are errors", "[io]") {
  CHECK_THAT(error_text(io::read_npy(data_dir() / "c8_complex.npy")),
             Catch::Contains("c8_complex.npy") && Catch::Contains("complex"));
  CHECK_THAT(error_text(io::read_npy(data_dir() / "object.npy")), Catch::Contains("object"));
  CHECK_THAT(error_text(io::read_npy(data_dir() / "U2_strings.npy")), Catch::Contains("string"));
  CHECK_THAT(error_text(io::decode_npy(npy_image(
                 "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", 4))),
             Catch::Contains("structured"));
  CHECK_THAT(error_text(io::decode_npy(
                 npy_image("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", 16))),
             Catch::Contains("unsupported dtype '<f16'"));
  CHECK_THAT(error_text(io::decode_npy(
                 npy_image("{'descr': '|V2', 'fortran_order': False, 'shape': (1,), }", 2))),
             Catch::Contains("bfloat16"));
}

TEST_CASE("npy: the writer reproduces numpy's bytes", "[io]") {
  for (const char* name : {"f4_2x3.npy", "b1.npy", "u8.npy", "i8.npy", "f2_2x2.npy",
                           "f8_scalar.npy", "f4_empty_0x3.npy", "i1.npy"}) {
    INFO(name);
    std::string bytes = slurp(data_dir() / name);
    TensorPtr t = value_of(io::decode_npy(bytes));
    CHECK(value_of(io::encode_npy(*t)) == bytes);
  }
}

TEST_CASE("npy: write and read back every dtype", "[io]") {
  TempDir dir;
  for (const char* name : {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64", "float16", "float32", "float64"}) {
    INFO(name);
    TensorPtr t = Tensor::empty({2, 3}, dt(name));
    std::mt19937_64 rng(7);
    io::fill_random(*t, rng);
    fs::path p = dir / (std::string(name) + ".npy");
    REQUIRE_FALSE(io::write_npy(p, *t));
    TensorPtr back = value_of(io::read_npy(p));
    CHECK(same_bits(*t, *back));
  }
  // 0-d and 0-size
  TensorPtr scalar = make("int32", {}, {-5});
  REQUIRE_FALSE(io::write_npy(dir / "s.npy", *scalar));
  CHECK(same_bits(*scalar, *value_of(io::read_npy(dir / "s.npy"))));
  TensorPtr empty = Tensor::empty({3, 0, 2}, dt("float64"));
  REQUIRE_FALSE(io::write_npy(dir / "e.npy", *empty));
  TensorPtr e = value_of(io::read_npy(dir / "e.npy"));
  CHECK(e->shape() == std::vector<int64_t>{3, 0, 2});
}

// The file a mapping of this process holds at `address` ("" when it is anonymous memory).
std::string file_mapped_at(const void* address) {
  std::ifstream maps("/proc/self/maps");
  auto at = reinterpret_cast<uintptr_t>(address);
  for (std::string line; std::getline(maps, line);) {
    uintptr_t begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx", &begin, &end) != 2 || at < begin || at >= end)
      continue;
    size_t slash = line.find('/');
    return slash == std::string::npos ? "" : line.substr(slash);
  }
  return "";
}

TEST_CASE("npy: large files are mapped copy-on-write, not copied", "[io]") {
  TempDir dir;
  TensorPtr t = Tensor::empty({512, 1024}, dt("float32"));  // 2 MiB
  std::mt19937_64 rng(11);
  io::fill_random(*t, rng);
  fs::path p = dir / "big.npy";
  REQUIRE_FALSE(io::write_npy(p, *t));
  const std::string bytes = slurp(p);

  TensorPtr back = value_of(io::read_npy(p));
  CHECK(same_bits(*t, *back));
  CHECK(reinterpret_cast<uintptr_t>(back->data()) % runtime::kAllocAlignment == 0);
  CHECK(file_mapped_at(back->data()) == fs::canonical(p).string());
  back->data_as<float>()[7] = 42.0f;  // stays in this process
  CHECK(slurp(p) == bytes);
  back.reset();  // unmapped

  // Near misses: read into memory of our own.
  TensorPtr small = Tensor::empty({4, 1024}, dt("float32"));  // 16 KiB: not worth a mapping
  REQUIRE_FALSE(io::write_npy(dir / "small.npy", *small));
  CHECK(file_mapped_at(value_of(io::read_npy(dir / "small.npy"))->data()).empty());
  std::string swapped = bytes;  // the same elements big-endian: converted, so copied
  swapped.replace(swapped.find("'<f4'"), 5, "'>f4'");
  spit(dir / "be.npy", swapped);
  TensorPtr be = value_of(io::read_npy(dir / "be.npy"));
  CHECK(file_mapped_at(be->data()).empty());
  CHECK_FALSE(same_bits(*t, *be));
}

TEST_CASE("npy: bfloat16 is written as float32", "[io]") {
  TensorPtr t = make("bfloat16", {3}, {1.5, -0.1, 3e38});
  CHECK(value_of(io::npy_descr(t->dtype())) == "<f4");
  std::string bytes = value_of(io::encode_npy(*t));
  CHECK(bytes.find("'descr': '<f4'") != std::string::npos);
  TensorPtr back = value_of(io::decode_npy(bytes));
  CHECK(runtime::dtype_name(back->dtype()) == "float32");
  CHECK(f64s(*back) == f64s(*t));
  TensorPtr vec = Tensor::empty({2}, DLDataType{kDLFloat, 32, 4});
  CHECK_THAT(error_text(io::encode_npy(*vec)), Catch::Contains("float32x4"));
}

TEST_CASE("npy: format 2.0 when the header needs it", "[io]") {
  TensorPtr t = Tensor::empty(std::vector<int64_t>(25000, 1), dt("float32"));
  std::string bytes = value_of(io::encode_npy(*t));
  REQUIRE(bytes.size() > 12);
  CHECK(bytes[6] == 2);
  uint32_t len = 0;
  for (int i = 3; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(bytes[8 + i]);
  CHECK(len > 65535);
  CHECK((12 + len) % 64 == 0);
  CHECK(bytes.size() == 12 + len + 4);
  // The reader's limit on header sizes (and on dimensions, numpy's 32) refuses it.
  CHECK_THAT(error_text(io::decode_npy(bytes)), Catch::Contains("header too large"));
  std::string dims33 =
      value_of(io::encode_npy(*Tensor::empty(std::vector<int64_t>(33, 1), dt("int8"))));
  CHECK_THAT(error_text(io::decode_npy(dims33)), Catch::Contains("more than 32 dimensions"));
}

TEST_CASE("npy: malformed files are errors, never crashes", "[io]") {
  TempDir dir;
  const std::string good = slurp(data_dir() / "f4_2x3.npy");

  CHECK_THAT(error_text(io::read_npy(dir / "missing.npy")),
             Catch::Contains("missing.npy") && Catch::Contains("cannot open"));
  CHECK_THAT(error_text(io::read_npy(dir.path)), Catch::Contains("directory"));
  CHECK_THAT(error_text(io::read_npy("/dev/null")), Catch::Contains("bad magic"));

  spit(dir / "magic.npy", "\x93NUMPZ" + good.substr(6));
  CHECK_THAT(error_text(io::read_npy(dir / "magic.npy")), Catch::Contains("bad magic"));
  spit(dir / "text.npy", "hello");
  CHECK_THAT(error_text(io::read_npy(dir / "text.npy")), Catch::Contains("bad magic"));
  spit(dir / "empty.npy", "");
  CHECK_THAT(error_text(io::read_npy(dir / "empty.npy")), Catch::Contains("bad magic"));

  // Truncated in the preamble, in the header and in the data.
  for (size_t cut : {7, 9, 40, 127}) {
    INFO(cut);
    spit(dir / "cut.npy", good.substr(0, cut));
    CHECK_THAT(error_text(io::read_npy(dir / "cut.npy")), Catch::Contains("truncated"));
    CHECK_THAT(error_text(io::decode_npy(good.substr(0, cut))), Catch::Contains("truncated"));
  }
  spit(dir / "cut.npy", good.substr(0, good.size() - 1));
  CHECK_THAT(error_text(io::read_npy(dir / "cut.npy")), Catch::Contains("truncated data") &&
                                                            Catch::Contains("24 bytes") &&
                                                            Catch::Contains("holds 23"));

  std::string bad_version = good;
  bad_version[6] = 4;
  CHECK_THAT(error_text(io::decode_npy(bad_version)), Catch::Contains("version 4.0"));

  // A header length far beyond the limit is refused before reading it.
  std::string huge_header =
      std::string("\x93NUMPY\x02\x00", 8) + std::string("\x00\x00\x00\x40", 4);
  spit(dir / "hh.npy", huge_header);
  CHECK_THAT(error_text(io::read_npy(dir / "hh.npy")), Catch::Contains("header too large"));

  // A huge declared shape in a tiny file: refused before allocating.
  spit(dir / "huge.npy",
       npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }",
                 8));
  CHECK_THAT(error_text(io::read_npy(dir / "huge.npy")),
             Catch::Contains("truncated data") && Catch::Contains("8000000000000000000 bytes"));
  CHECK_THAT(
      error_text(io::decode_npy(npy_image(
          "{'descr': '<f8', 'fortran_order': True, 'shape': (4611686018427387904, 4), }", 8))),
      Catch::Contains("overflows"));
  CHECK_THAT(
      error_text(io::decode_npy(npy_image(
          "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }", 8))),
      Catch::Contains("too large"));

  // Bad header texts.
  for (const char* dict : {"", "[1]", "{'descr': '<f8', 'shape': (2,), }",
                           "{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': [2], }",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                           "{'descr': 8, 'fortran_order': False, 'shape': (2,), }",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (2,) } junk",
                           "{'descr': '<f8', 'fortran_order': False, 'shape': (2,"}) {
    INFO(dict);
    CHECK_THAT(error_text(io::decode_npy(npy_image(dict, 16))), Catch::Contains("bad .npy header"));
  }
  // Python 2 long dims and extra data after the elements are accepted, as numpy does.
  TensorPtr t = value_of(io::decode_npy(
      npy_image("{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 1L), }", 6)));
  CHECK(t->shape() == std::vector<int64_t>{2, 1});
}

TEST_CASE("npy: bool bytes are normalised to 0/1", "[io]") {
  std::string image = npy_image("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 0);
  image += std::string("\x00\x02\xff", 3);
  TensorPtr t = value_of(io::decode_npy(image));
  CHECK(i64s(*t) == std::vector<int64_t>{0, 1, 1});
  CHECK(t->data_as<uint8_t>()[2] == 1);
}

TEST_CASE("npy: writing replaces a file atomically, keeping its permissions", "[io]") {
  TempDir dir;
  fs::path p = dir / "x.npy";
  spit(p, "old contents");
  REQUIRE(::chmod(p.c_str(), 0640) == 0);
  TensorPtr t = make("float32", {2}, {1, 2});
  REQUIRE_FALSE(io::write_npy(p, *t));
  CHECK(slurp(p) == value_of(io::encode_npy(*t)));
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path)) names.push_back(e.path().filename());
  CHECK(names == std::vector<std::string>{"x.npy"});  // no temporary file left behind

  io::Status st2 = io::write_npy(dir / "no" / "such" / "dir.npy", *t);
  REQUIRE(st2);
  CHECK_THAT(st2->message, Catch::Contains("dir.npy"));
}

// ================================================================ literals

TEST_CASE("literal: scalars", "[io]") {
  Literal i = value_of(io::parse_literal("  42 "));
  CHECK(i.kind == Literal::Kind::Int);
  CHECK(i.magnitude == 42);
  CHECK_FALSE(i.negative);
  Literal n = value_of(io::parse_literal("-2"));
  CHECK(n.kind == Literal::Kind::Int);
  CHECK(n.negative);
  CHECK(n.magnitude == 2);
  CHECK(n.f == -2.0);
  Literal f = value_of(io::parse_literal("1e-3"));
  CHECK(f.kind == Literal::Kind::Float);
  CHECK(f.f == 1e-3);
  CHECK(value_of(io::parse_literal("2.5")).f == 2.5);
  CHECK(value_of(io::parse_literal(".5")).f == 0.5);
  CHECK(value_of(io::parse_literal("1.")).kind == Literal::Kind::Float);
  CHECK(value_of(io::parse_literal("-2.5E+4")).f == -25000.0);
  CHECK(value_of(io::parse_literal("+7")).magnitude == 7);
  CHECK(value_of(io::parse_literal("inf")).f == kInf);
  CHECK(value_of(io::parse_literal("-inf")).f == -kInf);
  CHECK(value_of(io::parse_literal("Infinity")).f == kInf);
  CHECK(std::isnan(value_of(io::parse_literal("nan")).f));
  CHECK(std::isnan(value_of(io::parse_literal("NaN")).f));
  CHECK(value_of(io::parse_literal("1e999")).f == kInf);
  CHECK(value_of(io::parse_literal("1e-999")).f == 0.0);
  CHECK(value_of(io::parse_literal("0.000e999")).f == 0.0);
  for (const char* t : {"true", "True"}) {
    Literal b = value_of(io::parse_literal(t));
    CHECK(b.kind == Literal::Kind::Bool);
    CHECK(b.b);
  }
  CHECK_FALSE(value_of(io::parse_literal("False")).b);
  Literal big = value_of(io::parse_literal("18446744073709551615"));
  CHECK(big.magnitude == std::numeric_limits<uint64_t>::max());
  CHECK_FALSE(big.too_big);
  CHECK(value_of(io::parse_literal("18446744073709551616")).too_big);
}

TEST_CASE("literal: strings", "[io]") {
  Literal s = value_of(io::parse_literal(R"("a \"b\" \\ \n\t\u00e9\/")"));
  CHECK(s.kind == Literal::Kind::String);
  CHECK(s.s == "a \"b\" \\ \n\t\xc3\xa9/");
  CHECK(value_of(io::parse_literal("\"\"")).s.empty());
}

TEST_CASE("literal: lists and tuples", "[io]") {
  Literal l = value_of(io::parse_literal("[[1, 2], [3, 4]]"));
  REQUIRE(l.kind == Literal::Kind::List);
  REQUIRE(l.items.size() == 2);
  CHECK(l.items[1].items[0].magnitude == 3);
  CHECK(l.items[1].column == 10);
  Literal t = value_of(io::parse_literal("(2, 3)"));
  CHECK(t.kind == Literal::Kind::Tuple);
  CHECK(t.items.size() == 2);
  Literal one = value_of(io::parse_literal("(2,)"));
  CHECK(one.kind == Literal::Kind::Tuple);
  CHECK(one.items.size() == 1);
  CHECK(value_of(io::parse_literal("()")).items.empty());
  CHECK(value_of(io::parse_literal("[]")).kind == Literal::Kind::List);
  CHECK(value_of(io::parse_literal("(5)")).kind == Literal::Kind::Int);  // as in Python
  Literal ws = value_of(io::parse_literal(" \t[ 1 ,\n 2 , ]\n"));
  CHECK(ws.items.size() == 2);
  Literal mixed = value_of(io::parse_literal("[(1, \"x\"), [true, 2.5]]"));
  CHECK(mixed.items[0].items[1].s == "x");
}

TEST_CASE("literal: syntax errors name the column", "[io]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "column 1: expected a value, found the end of the input"},
      {"   ", "column 4: expected a value"},
      {"[1, 2", "column 6: expected ',' or ']', found the end of the input (the '[' at column 1"},
      {"[1 2]", "column 4: expected ',' or ']', found '2'"},
      {"[1,,2]", "column 4: expected a value, found ','"},
      {"(1, 2]", "column 6: expected ',' or ')', found ']'"},
      {"1 2", "column 3: unexpected '2' after the literal"},
      {"abc", "column 1: 'abc' is not a literal (strings need double quotes)"},
      {"-true", "column 1: '-true' is not a literal"},
      {"\"abc", "column 1: unterminated string"},
      {"\"a\\qb\"", "column 3: unknown escape '\\q'"},
      {"\"\\u12\"", "column 2: \\u needs four hexadecimal digits"},
      {"1.2.3", "column 4: unexpected '.' in a number"},
      {"1e", "column 3: expected the exponent's digits"},
      {"12abc", "column 3: unexpected 'a' in a number"},
      {"-", "column 1: expected a number after '-'"},
      {"[1, @]", "column 5: expected a value, found '@'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK_THAT(error_text(io::parse_literal(c.text)), Catch::StartsWith(c.message));
  }
  std::string deep(100, '[');
  CHECK_THAT(error_text(io::parse_literal(deep)), Catch::Contains("column 65: nesting deeper"));
}

TEST_CASE("literal: to tensor", "[io]") {
  auto tensor = [](const char* text, const char* dtype) {
    return io::literal_to_tensor(value_of(io::parse_literal(text)), dt(dtype));
  };
  TensorPtr t = value_of(tensor("[[1, 2.5], [-3, 1e-3]]", "float32"));
  CHECK(t->shape() == std::vector<int64_t>{2, 2});
  CHECK(f64s(*t) == std::vector<double>{1, 2.5, -3, double(1e-3f)});
  TensorPtr s = value_of(tensor("7", "int64"));
  CHECK(s->ndim() == 0);
  CHECK(s->get_i64(0) == 7);
  CHECK(value_of(tensor("[]", "float32"))->shape() == std::vector<int64_t>{0});
  CHECK(value_of(tensor("[[], []]", "int32"))->shape() == std::vector<int64_t>{2, 0});
  CHECK(value_of(tensor("((1, 2), (3, 4), (5, 6))", "int16"))->shape() ==
        std::vector<int64_t>{3, 2});
  CHECK(i64s(*value_of(tensor("[true, false]", "bool"))) == std::vector<int64_t>{1, 0});
  CHECK(i64s(*value_of(tensor("[-128, 127]", "int8"))) == std::vector<int64_t>{-128, 127});
  CHECK(value_of(tensor("18446744073709551615", "uint64"))->data_as<uint64_t>()[0] ==
        std::numeric_limits<uint64_t>::max());
  CHECK(value_of(tensor("-9223372036854775808", "int64"))->get_i64(0) ==
        std::numeric_limits<int64_t>::min());
  CHECK(value_of(tensor("65504", "float16"))->get_f64(0) == 65504.0);
  CHECK(value_of(tensor("[inf, -inf]", "float32"))->get_f64(1) == -kInf);
  CHECK(std::isnan(value_of(tensor("nan", "float16"))->get_f64(0)));
  CHECK(value_of(tensor("1.5", "bfloat16"))->get_f64(0) == 1.5);
  CHECK(value_of(tensor("1e-50", "float32"))->get_f64(0) == 0.0);  // underflow rounds, fine

  struct Case {
    const char* text;
    const char* dtype;
    const char* message;
  };
  const Case errors[] = {
      {"[[1, 2], [3]]", "float32",
       "column 10: ragged list: this element has shape (1,) but the first one (column 2) has "
       "shape (2,)"},
      {"[[1, 2], 3]", "float32", "column 10: ragged list: this element has shape ()"},
      {"[1, [2]]", "int32", "column 5: ragged list"},
      {"[1, 300]", "int8", "column 5: 300 does not fit int8 (-128 to 127)"},
      {"-1", "uint8", "column 1: -1 does not fit uint8 (0 to 255)"},
      {"9223372036854775808", "int64", "does not fit int64"},
      {"18446744073709551616", "uint64", "does not fit uint64"},
      {"[1, 2.5]", "int32", "column 5: 2.5 is not an integer, as int32 needs"},
      {"2.0", "int64", "column 1: 2.0 is not an integer"},
      {"[true, 1]", "bool", "column 8: 1 is not a bool (write true or false)"},
      {"true", "int32", "column 1: true is a bool, not a value of int32"},
      {"70000", "float16", "column 1: 70000 does not fit float16 (largest finite magnitude 65504)"},
      {"1e39", "float32", "column 1: 1e39 does not fit float32"},
      {"1e999", "float64", "column 1: 1e999 does not fit float64"},
      {"[\"a\"]", "float32", "column 2: the string \"a\" is not a value of float32"},
      {"\"a\"", "float32", "column 1: expected a number or a list"},
  };
  for (const Case& c : errors) {
    INFO(c.text << " as " << c.dtype);
    CHECK_THAT(error_text(tensor(c.text, c.dtype)), Catch::Contains(c.message));
  }
  CHECK_THAT(error_text(io::literal_to_tensor(value_of(io::parse_literal("1")),
                                              DLDataType{kDLFloat, 32, 4})),
             Catch::Contains("float32x4"));
}

TEST_CASE("literal: to prim, shape and string", "[io]") {
  auto lit = [](const char* text) { return value_of(io::parse_literal(text)); };
  runtime::Prim p = value_of(io::literal_to_prim(lit("3"), dt("int64")));
  CHECK(p.i == 3);
  CHECK(runtime::dtype_name(p.dtype) == "int64");
  runtime::Prim f = value_of(io::literal_to_prim(lit("0.1"), dt("float32")));
  CHECK(f.f == double(0.1f));
  CHECK(value_of(io::literal_to_prim(lit("True"), dt("bool"))).i == 1);
  CHECK(value_of(io::literal_to_prim(lit("18446744073709551615"), dt("uint64"))).i == -1);
  CHECK_THAT(error_text(io::literal_to_prim(lit("[1]"), dt("int64"))),
             Catch::Contains("a list is not a single int64 value"));
  CHECK_THAT(error_text(io::literal_to_prim(lit("2.5"), dt("int64"))),
             Catch::Contains("2.5 is not an integer"));

  CHECK(value_of(io::literal_to_shape(lit("(2, 3)"))).dims == std::vector<int64_t>{2, 3});
  CHECK(value_of(io::literal_to_shape(lit("[4]"))).dims == std::vector<int64_t>{4});
  CHECK(value_of(io::literal_to_shape(lit("(0,)"))).dims == std::vector<int64_t>{0});
  CHECK(value_of(io::literal_to_shape(lit("()"))).dims.empty());
  CHECK_THAT(error_text(io::literal_to_shape(lit("5"))), Catch::Contains("write (5,)"));
  CHECK_THAT(error_text(io::literal_to_shape(lit("(2, -1)"))),
             Catch::Contains("column 5: a shape's sizes are not negative, found -1"));
  CHECK_THAT(error_text(io::literal_to_shape(lit("(2.5,)"))),
             Catch::Contains("column 2: a shape's sizes are integers, found a float"));
  CHECK_THAT(error_text(io::literal_to_shape(lit("\"x\""))), Catch::Contains("found a string"));

  CHECK(value_of(io::literal_to_string(lit("\"hi\\n\""))).value == "hi\n");
  CHECK_THAT(error_text(io::literal_to_string(lit("3"))),
             Catch::Contains("expected a string in double quotes, found an integer"));
}

TEST_CASE("literal: fill_random distributions and reproducibility", "[io]") {
  for (const char* name : {"float16", "float32", "float64", "bfloat16"}) {
    INFO(name);
    TensorPtr t = Tensor::empty({4096}, dt(name));
    std::mt19937_64 rng(1);
    io::fill_random(*t, rng);
    double lo = 1, hi = -1;
    bool negative = false, positive = false;
    for (double v : f64s(*t)) {
      CHECK(v >= -1.0);
      CHECK(v < 1.0);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      negative = negative || v < 0;
      positive = positive || v > 0;
    }
    CHECK(negative);
    CHECK(positive);
    CHECK(hi - lo > 1.9);
  }
  for (const char* name : {"int8", "int32", "int64", "uint8", "uint64"}) {
    INFO(name);
    TensorPtr t = Tensor::empty({1000}, dt(name));
    std::mt19937_64 rng(2);
    io::fill_random(*t, rng);
    std::set<int64_t> seen;
    for (int64_t v : i64s(*t)) seen.insert(v);
    CHECK(seen == std::set<int64_t>{0, 1, 2, 3});
  }
  TensorPtr b = Tensor::empty({1000}, dt("bool"));
  std::mt19937_64 rng(3);
  io::fill_random(*b, rng);
  int64_t trues = 0;
  for (int64_t v : i64s(*b)) trues += v;
  CHECK(trues > 400);
  CHECK(trues < 600);

  // One 64-bit draw per element, a documented mapping: the same values everywhere.
  TensorPtr a = Tensor::empty({3}, dt("float64")), c = Tensor::empty({3}, dt("float64"));
  std::mt19937_64 r1(42), r2(42);
  io::fill_random(*a, r1);
  io::fill_random(*c, r2);
  CHECK(same_bits(*a, *c));
  std::mt19937_64 r3(42);
  for (int64_t i = 0; i < 3; ++i) {
    double expected = (static_cast<double>(r3() >> 11) - 0x1p52) / 0x1p52;
    CHECK(a->get_f64(i) == expected);
  }
  TensorPtr i = Tensor::empty({2}, dt("int32"));
  std::mt19937_64 r4(42), r5(42);
  io::fill_random(*i, r4);
  CHECK(i->get_i64(0) == static_cast<int64_t>(r5() >> 62));
}

TEST_CASE("literal: zeros and ones", "[io]") {
  TensorPtr f = make("float16", {3}, {1, 2, 3});
  io::fill_zeros(*f);
  CHECK(f64s(*f) == std::vector<double>{0, 0, 0});
  io::fill_ones(*f);
  CHECK(f64s(*f) == std::vector<double>{1, 1, 1});
  TensorPtr b = Tensor::empty({2}, dt("bool"));
  io::fill_ones(*b);
  CHECK(i64s(*b) == std::vector<int64_t>{1, 1});
  TensorPtr u = Tensor::empty({2}, dt("uint64"));
  io::fill_ones(*u);
  CHECK(i64s(*u) == std::vector<int64_t>{1, 1});
}

// ================================================================ printing

namespace {

enum Gen { kValues, kRange, kAlternate };

struct PrintCase {
  const char* name;
  const char* dtype;
  std::vector<int64_t> shape;
  std::vector<double> values;  // kValues: every element, row-major
  const char* expected;        // str(array) from numpy 1.24
  Gen gen = kValues;           // kRange: start + i * step; kAlternate: i % 2
  double start = 0, step = 0;
};

// Generated by /usr/bin/python3 (numpy 1.24.2) from the same dtype, shape and values.
const PrintCase kPrintCases[] = {
    {"float64 2x2",
     "float64",
     {2, 2},
     {1.0, 2.0, 3.0, 4.0},
     "[[1. 2.]\n"
     " [3. 4.]]"},
    {"float64 mixed magnitudes",
     "float64",
     {4},
     {0.1, 12.5, -3.75, 1000.0},
     "[ 1.00e-01  1.25e+01 -3.75e+00  1.00e+03]"},
    {"float64 small -> scientific", "float64", {2}, {1e-05, 1.0}, "[1.e-05 1.e+00]"},
    {"float64 ratio > 1e3 -> scientific",
     "float64",
     {3},
     {1.0, 10000.0, 2.5},
     "[1.0e+00 1.0e+04 2.5e+00]"},
    {"float64 >= 1e8 -> scientific", "float64", {2}, {100000000.0, 1.5}, "[1.0e+08 1.5e+00]"},
    {"float64 8 digits after the point",
     "float64",
     {3},
     {0.3333333333333333, 0.6666666666666666, 1.0},
     "[0.33333333 0.66666667 1.        ]"},
    {"float64 negatives and -0", "float64", {3}, {-1.5, 2.0, -0.0}, "[-1.5  2.  -0. ]"},
    {"float64 nan and inf", "float64", {4}, {kNan, 1.5, -kInf, kInf}, "[ nan  1.5 -inf  inf]"},
    {"float64 only nan", "float64", {2}, {kNan, kNan}, "[nan nan]"},
    {"float64 3-digit exponents", "float64", {2}, {1e+300, -1e-300}, "[ 1.e+300 -1.e-300]"},
    {"float64 precision cut",
     "float64",
     {2},
     {1234.5678901234, 0.5},
     "[1.23456789e+03 5.00000000e-01]"},
    {"float64 wraps at 75 columns",
     "float64",
     {30},
     {0.0,
      0.034482758620689655,
      0.06896551724137931,
      0.10344827586206896,
      0.13793103448275862,
      0.1724137931034483,
      0.20689655172413793,
      0.24137931034482757,
      0.27586206896551724,
      0.3103448275862069,
      0.3448275862068966,
      0.3793103448275862,
      0.41379310344827586,
      0.4482758620689655,
      0.48275862068965514,
      0.5172413793103449,
      0.5517241379310345,
      0.5862068965517241,
      0.6206896551724138,
      0.6551724137931034,
      0.6896551724137931,
      0.7241379310344828,
      0.7586206896551724,
      0.7931034482758621,
      0.8275862068965517,
      0.8620689655172413,
      0.896551724137931,
      0.9310344827586207,
      0.9655172413793103,
      1.0},
     "[0.         0.03448276 0.06896552 0.10344828 0.13793103 0.17241379\n"
     " 0.20689655 0.24137931 0.27586207 0.31034483 0.34482759 0.37931034\n"
     " 0.4137931  0.44827586 0.48275862 0.51724138 0.55172414 0.5862069\n"
     " 0.62068966 0.65517241 0.68965517 0.72413793 0.75862069 0.79310345\n"
     " 0.82758621 0.86206897 0.89655172 0.93103448 0.96551724 1.        ]"},
    {"float64 3-d",
     "float64",
     {2, 3, 4},
     {0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75,
      3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75},
     "[[[0.   0.25 0.5  0.75]\n"
     "  [1.   1.25 1.5  1.75]\n"
     "  [2.   2.25 2.5  2.75]]\n"
     "\n"
     " [[3.   3.25 3.5  3.75]\n"
     "  [4.   4.25 4.5  4.75]\n"
     "  [5.   5.25 5.5  5.75]]]"},
    {"float32 shortest digits",
     "float32",
     {3},
     {0.10000000149011612, 0.20000000298023224, 0.30000001192092896},
     "[0.1 0.2 0.3]"},
    {"float32 thirds",
     "float32",
     {2},
     {0.3333333432674408, -0.6666666865348816},
     "[ 0.33333334 -0.6666667 ]"},
    {"float32 99999992", "float32", {2}, {99999992.0, 1.5}, "[9.999999e+07 1.500000e+00]"},
    {"float16 values",
     "float16",
     {4},
     {0.0999755859375, 0.199951171875, 65504.0, -5.960464477539063e-08},
     "[ 1.00e-01  2.00e-01  6.55e+04 -5.96e-08]"},
    {"float16 3x3",
     "float16",
     {3, 3},
     {0.0, 0.142822265625, 0.28564453125, 0.428466796875, 0.5712890625, 0.71435546875,
      0.85693359375, 1.0, 1.142578125},
     "[[0.     0.1428 0.2856]\n"
     " [0.4285 0.5713 0.7144]\n"
     " [0.857  1.     1.143 ]]"},
    {"int64 aligned", "int64", {3}, {1, -20, 300}, "[  1 -20 300]"},
    {"int8 2x3",
     "int8",
     {2, 3},
     {-128, 5, 127, 0, -1, 42},
     "[[-128    5  127]\n"
     " [   0   -1   42]]"},
    {"uint8", "uint8", {3}, {0, 255, 9}, "[  0 255   9]"},
    {"int32 wrapped line",
     "int32",
     {30},
     {0,        1000003,  2000006,  3000009,  4000012,  5000015,  6000018,  7000021,
      8000024,  9000027,  10000030, 11000033, 12000036, 13000039, 14000042, 15000045,
      16000048, 17000051, 18000054, 19000057, 20000060, 21000063, 22000066, 23000069,
      24000072, 25000075, 26000078, 27000081, 28000084, 29000087},
     "[       0  1000003  2000006  3000009  4000012  5000015  6000018  7000021\n"
     "  8000024  9000027 10000030 11000033 12000036 13000039 14000042 15000045\n"
     " 16000048 17000051 18000054 19000057 20000060 21000063 22000066 23000069\n"
     " 24000072 25000075 26000078 27000081 28000084 29000087]"},
    {"int64 3-d",
     "int64",
     {2, 2, 2},
     {-4, -3, -2, -1, 0, 1, 2, 3},
     "[[[-4 -3]\n"
     "  [-2 -1]]\n"
     "\n"
     " [[ 0  1]\n"
     "  [ 2  3]]]"},
    {"bool 1-d", "bool", {3}, {1, 0, 1}, "[ True False  True]"},
    {"bool 2x2",
     "bool",
     {2, 2},
     {1, 0, 0, 1},
     "[[ True False]\n"
     " [False  True]]"},
    {"0-d float64", "float64", {}, {2.5}, "2.5"},
    {"0-d float32", "float32", {}, {0.10000000149011612}, "0.1"},
    {"0-d float64 1e20", "float64", {}, {1e+20}, "1e+20"},
    {"0-d float64 100", "float64", {}, {100.0}, "100.0"},
    {"0-d int64", "int64", {}, {-7}, "-7"},
    {"0-d bool", "bool", {}, {1}, "True"},
    {"0-d float16", "float16", {}, {0.300048828125}, "0.3"},
    {"0-size 1-d", "float32", {0}, {}, "[]"},
    {"0-size 2-d", "int32", {2, 0}, {}, "[]"},
    {"summarised 1-d float64",
     "float64",
     {1001},
     {},
     "[   0.    1.    2. ...  998.  999. 1000.]",
     kRange,
     0.0,
     1.0},
    {"summarised 2-d int64",
     "int64",
     {40, 50},
     {},
     "[[   0    1    2 ...   47   48   49]\n"
     " [  50   51   52 ...   97   98   99]\n"
     " [ 100  101  102 ...  147  148  149]\n"
     " ...\n"
     " [1850 1851 1852 ... 1897 1898 1899]\n"
     " [1900 1901 1902 ... 1947 1948 1949]\n"
     " [1950 1951 1952 ... 1997 1998 1999]]",
     kRange,
     0.0,
     1.0},
    {"summarised 3-d float32",
     "float32",
     {10, 10, 11},
     {},
     "[[[0.000e+00 5.000e-01 1.000e+00 ... 4.000e+00 4.500e+00 5.000e+00]\n"
     "  [5.500e+00 6.000e+00 6.500e+00 ... 9.500e+00 1.000e+01 1.050e+01]\n"
     "  [1.100e+01 1.150e+01 1.200e+01 ... 1.500e+01 1.550e+01 1.600e+01]\n"
     "  ...\n"
     "  [3.850e+01 3.900e+01 3.950e+01 ... 4.250e+01 4.300e+01 4.350e+01]\n"
     "  [4.400e+01 4.450e+01 4.500e+01 ... 4.800e+01 4.850e+01 4.900e+01]\n"
     "  [4.950e+01 5.000e+01 5.050e+01 ... 5.350e+01 5.400e+01 5.450e+01]]\n"
     "\n"
     " [[5.500e+01 5.550e+01 5.600e+01 ... 5.900e+01 5.950e+01 6.000e+01]\n"
     "  [6.050e+01 6.100e+01 6.150e+01 ... 6.450e+01 6.500e+01 6.550e+01]\n"
     "  [6.600e+01 6.650e+01 6.700e+01 ... 7.000e+01 7.050e+01 7.100e+01]\n"
     "  ...\n"
     "  [9.350e+01 9.400e+01 9.450e+01 ... 9.750e+01 9.800e+01 9.850e+01]\n"
     "  [9.900e+01 9.950e+01 1.000e+02 ... 1.030e+02 1.035e+02 1.040e+02]\n"
     "  [1.045e+02 1.050e+02 1.055e+02 ... 1.085e+02 1.090e+02 1.095e+02]]\n"
     "\n"
     " [[1.100e+02 1.105e+02 1.110e+02 ... 1.140e+02 1.145e+02 1.150e+02]\n"
     "  [1.155e+02 1.160e+02 1.165e+02 ... 1.195e+02 1.200e+02 1.205e+02]\n"
     "  [1.210e+02 1.215e+02 1.220e+02 ... 1.250e+02 1.255e+02 1.260e+02]\n"
     "  ...\n"
     "  [1.485e+02 1.490e+02 1.495e+02 ... 1.525e+02 1.530e+02 1.535e+02]\n"
     "  [1.540e+02 1.545e+02 1.550e+02 ... 1.580e+02 1.585e+02 1.590e+02]\n"
     "  [1.595e+02 1.600e+02 1.605e+02 ... 1.635e+02 1.640e+02 1.645e+02]]\n"
     "\n"
     " ...\n"
     "\n"
     " [[3.850e+02 3.855e+02 3.860e+02 ... 3.890e+02 3.895e+02 3.900e+02]\n"
     "  [3.905e+02 3.910e+02 3.915e+02 ... 3.945e+02 3.950e+02 3.955e+02]\n"
     "  [3.960e+02 3.965e+02 3.970e+02 ... 4.000e+02 4.005e+02 4.010e+02]\n"
     "  ...\n"
     "  [4.235e+02 4.240e+02 4.245e+02 ... 4.275e+02 4.280e+02 4.285e+02]\n"
     "  [4.290e+02 4.295e+02 4.300e+02 ... 4.330e+02 4.335e+02 4.340e+02]\n"
     "  [4.345e+02 4.350e+02 4.355e+02 ... 4.385e+02 4.390e+02 4.395e+02]]\n"
     "\n"
     " [[4.400e+02 4.405e+02 4.410e+02 ... 4.440e+02 4.445e+02 4.450e+02]\n"
     "  [4.455e+02 4.460e+02 4.465e+02 ... 4.495e+02 4.500e+02 4.505e+02]\n"
     "  [4.510e+02 4.515e+02 4.520e+02 ... 4.550e+02 4.555e+02 4.560e+02]\n"
     "  ...\n"
     "  [4.785e+02 4.790e+02 4.795e+02 ... 4.825e+02 4.830e+02 4.835e+02]\n"
     "  [4.840e+02 4.845e+02 4.850e+02 ... 4.880e+02 4.885e+02 4.890e+02]\n"
     "  [4.895e+02 4.900e+02 4.905e+02 ... 4.935e+02 4.940e+02 4.945e+02]]\n"
     "\n"
     " [[4.950e+02 4.955e+02 4.960e+02 ... 4.990e+02 4.995e+02 5.000e+02]\n"
     "  [5.005e+02 5.010e+02 5.015e+02 ... 5.045e+02 5.050e+02 5.055e+02]\n"
     "  [5.060e+02 5.065e+02 5.070e+02 ... 5.100e+02 5.105e+02 5.110e+02]\n"
     "  ...\n"
     "  [5.335e+02 5.340e+02 5.345e+02 ... 5.375e+02 5.380e+02 5.385e+02]\n"
     "  [5.390e+02 5.395e+02 5.400e+02 ... 5.430e+02 5.435e+02 5.440e+02]\n"
     "  [5.445e+02 5.450e+02 5.455e+02 ... 5.485e+02 5.490e+02 5.495e+02]]]",
     kRange,
     0.0,
     0.5},
    {"summarised 1-d float16",
     "float16",
     {2000},
     {},
     "[0.000e+00 2.500e-01 5.000e-01 ... 4.992e+02 4.995e+02 4.998e+02]",
     kRange,
     0.0,
     0.25},
    {"summarised bool",
     "bool",
     {1001},
     {},
     "[False  True False ... False  True False]",
     kAlternate},
    {"summarised float64 with scientific",
     "float64",
     {1200},
     {},
     "[0.000e+00 1.000e-06 2.000e-06 ... 1.197e-03 1.198e-03 1.199e-03]",
     kRange,
     0.0,
     1e-06},
};

TensorPtr build(const PrintCase& c) {
  TensorPtr t = Tensor::empty(c.shape, dt(c.dtype));
  REQUIRE(t);
  const bool is_float = t->dtype().code == kDLFloat;
  for (int64_t i = 0; i < t->numel(); ++i) {
    double v = c.gen == kValues  ? c.values.at(static_cast<size_t>(i))
               : c.gen == kRange ? c.start + static_cast<double>(i) * c.step
                                 : static_cast<double>(i % 2);
    if (is_float) {
      t->set_f64(i, v);
    } else {
      t->set_i64(i, static_cast<int64_t>(v));
    }
  }
  return t;
}

struct Described : runtime::Callable {
  std::string describe() const override { return "function @main"; }
};

}  // namespace

TEST_CASE("print: tensors as numpy prints them", "[io]") {
  STATIC_REQUIRE(sizeof(kPrintCases) / sizeof(kPrintCases[0]) >= 25);
  for (const PrintCase& c : kPrintCases) {
    INFO(c.name);
    CHECK(io::format_value(Value(build(c))) == c.expected);
  }
}

TEST_CASE("print: integers of every width, bfloat16", "[io]") {
  TensorPtr u = Tensor::empty({2}, dt("uint64"));
  u->data_as<uint64_t>()[1] = std::numeric_limits<uint64_t>::max();
  CHECK(io::format_tensor(*u) == "[                   0 18446744073709551615]");
  CHECK(io::format_tensor(*make("int64", {2}, {-9.2e18, 5})) ==
        "[-9200000000000000000                    5]");
  CHECK(io::format_tensor(*make("uint16", {3}, {65535, 0, 10})) == "[65535     0    10]");
  // bfloat16: numpy's rules with bfloat16's own shortest digits (0.1 is 0.10009765625).
  CHECK(io::format_tensor(*make("bfloat16", {3}, {1.0, 0.1, -2.5})) == "[ 1.   0.1 -2.5]");
  CHECK(io::format_tensor(*make("bfloat16", {}, {3.14159})) == "3.14");
}

TEST_CASE("print: options", "[io]") {
  io::PrintOptions o;
  o.threshold = 5;
  o.edgeitems = 1;
  CHECK(io::format_tensor(*make("int32", {6}, {1, 2, 3, 4, 5, 6}), o) == "[1 ... 6]");
  o = {};
  o.linewidth = 10;
  CHECK(io::format_tensor(*make("int32", {5}, {1, 2, 3, 4, 5}), o) == "[1 2 3 4\n 5]");
  o = {};
  o.precision = 3;
  CHECK(io::format_tensor(*make("float64", {2}, {1.0 / 3, 2}), o) == "[0.333 2.   ]");
}

TEST_CASE("print: scalars as numpy's str of the scalar", "[io]") {
  const DLDataType f64 = dt("float64"), f32 = dt("float32"), f16 = dt("float16");
  CHECK(io::format_float_scalar(2.5, f64) == "2.5");
  CHECK(io::format_float_scalar(100, f64) == "100.0");
  CHECK(io::format_float_scalar(0.1 + 0.2, f64) == "0.30000000000000004");
  CHECK(io::format_float_scalar(1e16, f64) == "1e+16");
  CHECK(io::format_float_scalar(1.5e16, f64) == "1.5e+16");
  CHECK(io::format_float_scalar(9999999999999998.0, f64) == "9999999999999998.0");
  CHECK(io::format_float_scalar(1e-5, f64) == "1e-05");
  CHECK(io::format_float_scalar(0.0001, f64) == "0.0001");
  CHECK(io::format_float_scalar(-0.0, f64) == "-0.0");
  CHECK(io::format_float_scalar(kNan, f64) == "nan");
  CHECK(io::format_float_scalar(-kInf, f32) == "-inf");
  CHECK(io::format_float_scalar(0.1, f32) == "0.1");
  CHECK(io::format_float_scalar(99999992.0, f32) == "99999990.0");
  CHECK(io::format_float_scalar(0.1, f16) == "0.1");
  CHECK(io::format_float_scalar(1e-5, f16) == "1e-05");
  CHECK(io::format_float_scalar(5e-324, f64) == "5e-324");
  CHECK(io::format_float_scalar(1.7976931348623157e308, f64) == "1.7976931348623157e+308");
}

TEST_CASE("print: other values", "[io]") {
  using namespace runtime;
  CHECK(io::format_value(Value()) == "None");
  CHECK(io::format_value(Value(Shape{{2, 3}})) == "R.shape([2, 3])");
  CHECK(io::format_value(Value(Shape{})) == "R.shape([])");
  CHECK(io::format_value(Value(Prim{dt("int64"), 3, 0})) == "3");
  CHECK(io::format_value(Value(Prim{dt("float32"), 0, 2.5})) == "2.5");
  CHECK(io::format_value(Value(Prim{dt("float32"), 0, double(0.1f)})) == "0.1");
  CHECK(io::format_value(Value(Prim{dt("float64"), 0, 1e20})) == "1e+20");
  CHECK(io::format_value(Value(Prim{dt("bool"), 1, 0})) == "True");
  CHECK(io::format_value(Value(Prim{dt("uint64"), -1, 0})) == "18446744073709551615");
  CHECK(io::format_value(Value(String{"a\"b\\c\n\x01"})) == R"("a\"b\\c\n\u0001")");
  CHECK(io::format_value(Value(DType{dt("bfloat16")})) == "bfloat16");
  CallablePtr fn = std::make_shared<Described>();
  CHECK(io::format_value(Value(fn)) == "<callable function @main>");
}

TEST_CASE("print: tuples", "[io]") {
  using namespace runtime;
  CHECK(io::format_value(Value(Tuple{})) == "()");
  CHECK(io::format_value(Value(Tuple{{Value(Prim{dt("int64"), 3, 0})}})) == "(3,)");
  Tuple flat{{Value(Prim{dt("int64"), 3, 0}), Value(Shape{{2}}), Value(String{"x"}),
              Value(Tuple{{Value(), Value(DType{dt("int8")})}})}};
  CHECK(io::format_value(Value(flat)) == R"((3, R.shape([2]), "x", (None, int8)))");

  Tuple with_tensors{{Value(make("float32", {2, 2}, {1, 2, 3, 4})), Value(Prim{dt("int64"), 3, 0}),
                      Value(Tuple{{Value(make("int32", {2}, {1, 2})), Value(String{"s"})}})}};
  CHECK(io::format_value(Value(with_tensors)) ==
        "(\n"
        "  [[1. 2.]\n"
        "   [3. 4.]],\n"
        "  3,\n"
        "  (\n"
        "    [1 2],\n"
        "    \"s\"\n"
        "  )\n"
        ")");
  CHECK(io::format_value(Value(Tuple{{Value(make("int32", {}, {5}))}})) == "(\n  5,\n)");
}

TEST_CASE("print: JSON", "[io]") {
  using namespace runtime;
  using nlohmann::json;
  CHECK(io::value_to_json(Value(make("float32", {2, 2}, {1, 2.5, 0.1, -3}))) ==
        json::parse(R"({"tensor": {"dtype": "float32", "shape": [2, 2],
                                   "data": [[1.0, 2.5], [0.1, -3.0]]}})"));
  CHECK(io::value_to_json(Value(make("float64", {3}, {kNan, kInf, -kInf}))).dump() ==
        R"({"tensor":{"data":["nan","inf","-inf"],"dtype":"float64","shape":[3]}})");
  CHECK(io::value_to_json(Value(make("int8", {}, {-3}))).dump() ==
        R"({"tensor":{"data":-3,"dtype":"int8","shape":[]}})");
  CHECK(io::value_to_json(Value(make("bool", {2}, {1, 0}))).dump() ==
        R"({"tensor":{"data":[true,false],"dtype":"bool","shape":[2]}})");
  CHECK(io::value_to_json(Value(make("float16", {1}, {0.1}))).dump() ==
        R"({"tensor":{"data":[0.1],"dtype":"float16","shape":[1]}})");
  CHECK(io::value_to_json(Value(Tensor::empty({0, 2}, dt("int32")))).dump() ==
        R"({"tensor":{"data":[],"dtype":"int32","shape":[0,2]}})");
  TensorPtr u = Tensor::empty({1}, dt("uint64"));
  u->data_as<uint64_t>()[0] = std::numeric_limits<uint64_t>::max();
  CHECK(io::value_to_json(Value(u)).dump() ==
        R"({"tensor":{"data":[18446744073709551615],"dtype":"uint64","shape":[1]}})");
  // Never summarised.
  json big = io::value_to_json(Value(make("int32", {2000}, std::vector<double>(2000, 1))));
  CHECK(big["tensor"]["data"].size() == 2000);

  CHECK(io::value_to_json(Value(Tuple{{Value(Shape{{2, 3}}), Value()}})).dump() ==
        R"({"tuple":[{"shape":[2,3]},{"null":true}]})");
  CHECK(io::value_to_json(Value(Prim{dt("int64"), 3, 0})).dump() ==
        R"({"dtype":"int64","prim":3})");
  CHECK(io::value_to_json(Value(Prim{dt("float32"), 0, kNan})).dump() ==
        R"({"dtype":"float32","prim":"nan"})");
  CHECK(io::value_to_json(Value(Prim{dt("bool"), 1, 0})).dump() ==
        R"({"dtype":"bool","prim":true})");
  CHECK(io::value_to_json(Value(String{"ok \xff"})).dump() == "{\"string\":\"ok \xef\xbf\xbd\"}");
  CHECK(io::value_to_json(Value(DType{dt("float32")})).dump() == R"({"dtype":"float32"})");
}

// ================================================================ save_outputs

TEST_CASE("save: tensors as numbered .npy files and outputs.json", "[io]") {
  using namespace runtime;
  TempDir tmp;
  fs::path dir = tmp / "out" / "nested";
  TensorPtr a = make("float32", {2}, {1, 2}), b = make("int64", {2, 2}, {1, 2, 3, 4}),
            c = make("bool", {}, {1});
  Value v(Tuple{{Value(a), Value(Tuple{{Value(Prim{dt("int64"), 3, 0}), Value(b)}}),
                 Value(Shape{{2, 3}}), Value(String{"s"}), Value(), Value(DType{dt("float16")}),
                 Value(c)}});
  REQUIRE_FALSE(io::save_outputs(dir, v));
  CHECK(nlohmann::json::parse(slurp(dir / "outputs.json")) == nlohmann::json::parse(R"({"value": [
      {"npy": "0.npy"}, [{"prim": 3, "dtype": "int64"}, {"npy": "1.npy"}],
      {"shape": [2, 3]}, {"string": "s"}, {"null": true}, {"dtype": "float16"},
      {"npy": "2.npy"}]})"));
  CHECK(same_bits(*a, *value_of(io::read_npy(dir / "0.npy"))));
  CHECK(same_bits(*b, *value_of(io::read_npy(dir / "1.npy"))));
  CHECK(same_bits(*c, *value_of(io::read_npy(dir / "2.npy"))));

  // Saving again replaces the files (no temporary files left behind).
  REQUIRE_FALSE(io::save_outputs(dir, Value(make("float64", {1}, {7}))));
  CHECK(nlohmann::json::parse(slurp(dir / "outputs.json")) ==
        nlohmann::json::parse(R"({"value": {"npy": "0.npy"}})"));
  CHECK(f64s(*value_of(io::read_npy(dir / "0.npy"))) == std::vector<double>{7});
  for (const auto& e : fs::directory_iterator(dir)) {
    CHECK_THAT(e.path().filename().string(), !Catch::Contains("raxc-tmp"));
  }
}

TEST_CASE("save: errors as values", "[io]") {
  using namespace runtime;
  TempDir tmp;
  CallablePtr fn = std::make_shared<Described>();
  io::Status st =
      io::save_outputs(tmp / "d", Value(Tuple{{Value(make("int8", {1}, {1})), Value(fn)}}));
  REQUIRE(st);
  CHECK_THAT(st->message, Catch::Contains("cannot save a callable (function @main)"));
  CHECK_FALSE(fs::exists(tmp / "d"));  // nothing written

  spit(tmp / "file", "x");
  st = io::save_outputs(tmp / "file", Value(Prim{}));
  REQUIRE(st);
  CHECK_THAT(st->message, Catch::Contains("file"));

  st = io::save_outputs(tmp / "v", Value(Tensor::empty({2}, DLDataType{kDLFloat, 32, 4})));
  REQUIRE(st);
  CHECK_THAT(st->message, Catch::Contains("float32x4"));
}

TEST_CASE("npy: numpy reads what raxc writes", "[io]") {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
    WARN("skipped: /usr/bin/python3 has no numpy");
    SUCCEED();
    return;
  }
  TempDir dir;
  REQUIRE_FALSE(io::write_npy(dir / "a.npy", *make("float16", {2, 2}, {0.1, -2, 65504, 0})));
  REQUIRE_FALSE(io::write_npy(dir / "b.npy", *make("bfloat16", {2}, {1.5, -0.1})));
  REQUIRE_FALSE(io::write_npy(dir / "c.npy", *make("bool", {3}, {1, 0, 1})));
  TensorPtr u = Tensor::empty({2}, dt("uint64"));
  u->data_as<uint64_t>()[1] = std::numeric_limits<uint64_t>::max();
  REQUIRE_FALSE(io::write_npy(dir / "d.npy", *u));
  REQUIRE_FALSE(io::write_npy(dir / "e.npy", *make("int32", {}, {-5})));
  REQUIRE_FALSE(io::write_npy(dir / "f.npy", *Tensor::empty({0, 3}, dt("float32"))));
  std::string script =
      "import numpy as np, sys\n"
      "d = sys.argv[1]\n"
      "a = np.load(d + '/a.npy'); assert a.dtype == np.float16 and a.tolist() == "
      "[[np.float16(0.1), -2.0], [65504.0, 0.0]], a\n"
      "b = np.load(d + '/b.npy'); assert b.dtype == np.float32 and b[0] == 1.5, b\n"
      "c = np.load(d + '/c.npy'); assert c.dtype == np.bool_ and c.tolist() == [True, False, "
      "True]\n"
      "u = np.load(d + '/d.npy'); assert u.dtype == np.uint64 and int(u[1]) == 2**64 - 1\n"
      "e = np.load(d + '/e.npy'); assert e.shape == () and e.dtype == np.int32 and e == -5\n"
      "f = np.load(d + '/f.npy'); assert f.shape == (0, 3) and f.dtype == np.float32\n";
  spit(dir / "check.py", script);
  std::string cmd = "/usr/bin/python3 " + (dir / "check.py").string() + " " + dir.path.string();
  CHECK(std::system(cmd.c_str()) == 0);
}
