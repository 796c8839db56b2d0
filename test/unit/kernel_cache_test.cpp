// The compiled-code cache's key, computed without LLVM (backend/exec/kernel_cache.h): SHA-256
// against FIPS 180-4's examples, what the key depends on and what it ignores, and the ELF checks
// that keep a damaged entry from being loaded (backend/exec/elf_file.h).
#include "backend/exec/kernel_cache.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "backend/exec/codegen.h"
#include "backend/exec/elf_file.h"
#include "backend/exec/sha256.h"
#include "frontend/frontend.h"

using namespace raxc;

namespace {

std::string sha256(const std::string& text) {
  backend::Sha256 h;
  h.update(text);
  return h.hex_digest();
}

// A module with one PrimFunc, `prefix` lines above it and `body` as main's return.
std::string module_text(const std::string& prefix, const std::string& ret = "y") {
  return prefix + R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(x: T.Buffer((4,), "float32"), y: T.Buffer((4,), "float32")):
        for i in range(4):
            y[i] = x[i] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((4,), dtype="float32"))
        z = R.call_tir(cls.add_one, (y,), out_sinfo=R.Tensor((4,), dtype="float32"))
        return )" +
         ret + "\n";
}

std::string key_of(const std::string& text, backend::CodegenOptions options = {},
                   const std::string& codegen = "build-id 1") {
  frontend::ParsedFile file = frontend::parse_file(text);
  REQUIRE_FALSE(file.has_errors());
  return backend::KernelCache::key(*file.module, options, codegen);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("kernel cache: SHA-256 of FIPS 180-4's examples", "[backend][cache]") {
  CHECK(sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Fed in pieces across block boundaries, the same digest as at once.
  std::string million(1000000, 'a');
  backend::Sha256 pieces;
  for (size_t at = 0; at < million.size(); at += 777)
    pieces.update(std::string_view(million).substr(at, 777));
  CHECK(pieces.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("kernel cache: the key follows the kernels, their spans, options and code generator",
          "[backend][cache]") {
  const std::string base = key_of(module_text(""));
  CHECK(base.size() == 64);
  CHECK(key_of(module_text("")) == base);
  // Error sites carry .rx offsets: the same kernel one line lower is other code.
  CHECK(key_of(module_text("# a comment\n")) != base);
  CHECK(key_of(module_text(""), backend::CodegenOptions{.check_bounds = true}) != base);
  CHECK(key_of(module_text(""), {}, "build-id 2") != base);
  // Relax functions are not in the kernels' shared object: changing one keeps the key.
  CHECK(key_of(module_text("", "z")) == base);
  CHECK_FALSE(backend::host_cpu_identity().empty());
}

TEST_CASE("kernel cache: only complete ELF shared objects are loaded", "[backend][cache]") {
  const std::string& codegen = backend::codegen_library_path();
  REQUIRE(std::filesystem::exists(codegen));
  CHECK(backend::elf_shared_object_complete(codegen));
  CHECK(backend::elf_build_id(codegen).has_value());
  CHECK_FALSE(backend::codegen_identity().empty());

  auto dir = std::filesystem::temp_directory_path() / "raxc-kernel-cache-test";
  std::filesystem::create_directories(dir);
  std::string bytes = read_bytes(codegen);
  auto write = [&](const std::string& name, const std::string& content) {
    std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  };
  CHECK_FALSE(
      backend::elf_shared_object_complete(write("half.so", bytes.substr(0, bytes.size() / 2))));
  CHECK_FALSE(backend::elf_shared_object_complete(write("text.so", "not a shared object")));
  CHECK_FALSE(backend::elf_shared_object_complete((dir / "missing.so").string()));
  CHECK_FALSE(backend::elf_build_id(write("text.so", "not an ELF file")).has_value());
  std::filesystem::remove_all(dir);
}
