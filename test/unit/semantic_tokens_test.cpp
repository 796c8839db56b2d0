// Semantic tokens of a whole document come from a lexical scan and the source maps, not from a
// walk of the syntax tree (lsp/semantic_tokens.h): on every file of the test cases, the
// conformance corpus and the examples, broken ones included, they must equal what the tree walk
// gives. Also the JSON text the server writes the data as.
#include "lsp/semantic_tokens.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "lsp/snapshot.h"

using namespace raxc;
using namespace raxc::lsp;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const Snapshot> analysed(Analyzer& analyzer, const std::string& text) {
  EditLog log;
  log.restart(1);
  std::string failure;
  auto snapshot = analyzer.analyze("file:///t.rx", 1, 1, text, log, &failure);
  INFO(failure);
  REQUIRE(failure.empty());
  return snapshot;
}

// "line:character text" of each token (absolute positions), to show where two arrays differ.
std::vector<std::string> decoded(const std::vector<uint32_t>& data, const std::string& text) {
  std::vector<std::string> lines(1);
  for (char c : text) {
    if (c == '\n')
      lines.emplace_back();
    else
      lines.back().push_back(c);
  }
  std::vector<std::string> out;
  uint32_t line = 0, character = 0;
  for (size_t i = 0; i + 4 < data.size(); i += 5) {
    line += data[i];
    character = data[i] ? data[i + 1] : character + data[i + 1];
    std::string name = line < lines.size() ? lines[line].substr(character, data[i + 2]) : "?";
    out.push_back(std::to_string(line) + ":" + std::to_string(character) + " " + name + " " +
                  std::to_string(data[i + 3]) + "/" + std::to_string(data[i + 4]));
  }
  return out;
}

// The scan and the tree walk agree on `text`, in both position encodings.
void check_same(Analyzer& analyzer, const std::string& text, const std::string& name) {
  auto snapshot = analysed(analyzer, text);
  Span all{0, uint32_t(text.size())};
  for (PositionEncoding encoding : {PositionEncoding::Utf16, PositionEncoding::Utf8}) {
    std::vector<uint32_t> scanned = semantic_token_data(*snapshot, encoding);
    std::vector<uint32_t> walked = semantic_token_data_by_tree(*snapshot, all, encoding);
    INFO(name);
    CHECK(decoded(scanned, text) == decoded(walked, text));
  }
}

std::vector<fs::path> rx_files() {
  std::vector<fs::path> out;
  fs::path root(RAXC_SOURCE_DIR);
  for (const char* dir : {"test/cases", "examples", "test/conformance", "test/fuzz"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir))
      if (entry.is_regular_file() && entry.path().extension() == ".rx") out.push_back(entry.path());
  }
  return out;
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace

TEST_CASE("semantic tokens: the scan equals the tree walk on every corpus file", "[lsp]") {
  std::vector<fs::path> files = rx_files();
  REQUIRE(files.size() > 100);
  Analyzer analyzer;
  for (const fs::path& path : files) check_same(analyzer, read(path), path.string());
}

TEST_CASE("semantic tokens: the scan equals the tree walk on lexical corner cases", "[lsp]") {
  Analyzer analyzer;
  // Comments and strings hide names; prefixes, escapes, triple quotes, unterminated strings,
  // numbers before a dot, chains of attributes, spaces around the dot, non-ASCII text.
  const char* cases[] = {
      "# R.add T.int64 \"float32\"\n@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n"
      "    y = R . add(x, x)  # R.multiply\n    z = x.R.add\n    return y\n",
      "from tvm.script import relax as R\nx = r\"R.add\" + b'T.x' + \"\"\"float32\n"
      "R.add\"\"\" + 'int8' + \"a\\\"R.b\"\ny = 1.5e-3 + 1. + 0x1F\n",
      "@I.ir_module\nclass Module:\n    @T.prim_func\n    def g(A: T.Buffer((4,), \"float16\")):\n"
      "        T.func_attr({\"global_symbol\": \"g\"})\n        A[0] = T.float16(1)\n\n"
      "    @R.function\n    def f(x: R.Tensor((\"n\",), \"float16\")) -> R.Tensor((\"n\",)):\n"
      "        n = T.int64()\n        with R.dataflow():\n            y = R.call_tir(cls.g, (x,), "
      "R.Tensor((n,), \"float16\"))\n            R.output(y)\n        return y  # é𝔘\n",
      "@R.function\ndef f(x: R.Tensor((2,), \"float32\")):\n    y = R.add(x, \n    z = R.nn.\n"
      "    return y.\n",
      // Broken: an unterminated string; a statement that ends badly before the next one.
      "x = 'unterminated\nR.add(1)\n\"\"\"never closed R.x\n",
      "w = \"int32\n",
  };
  for (const char* text : cases) check_same(analyzer, text, text);
}

TEST_CASE("semantic tokens: the data array as JSON text", "[lsp]") {
  CHECK(json_array_text({}) == "[]");
  CHECK(json_array_text({0, 7, 4294967295u}) == "[0,7,4294967295]");
  std::vector<uint32_t> many(1000);
  for (uint32_t i = 0; i < many.size(); ++i) many[i] = i * 7919;
  CHECK(nlohmann::json::parse(json_array_text(many)).get<std::vector<uint32_t>>() == many);
}
