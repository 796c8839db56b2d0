// save_outputs: a value as numbered .npy files plus outputs.json (see save.h).
#include "backend/io/save.h"

#include <nlohmann/json.hpp>
#include <system_error>
#include <vector>

#include "backend/io/atomic_file.h"
#include "backend/io/npy.h"
#include "backend/io/print.h"

namespace raxc::io {

namespace {

using nlohmann::json;
using runtime::Value;

// Builds the JSON description and collects the tensor leaves depth-first; fails on values that
// cannot be saved, before anything is written.
Result<json> describe(const Value& v, std::vector<const runtime::Tensor*>& leaves) {
  using namespace runtime;
  if (const TensorPtr* t = v.get_if<TensorPtr>()) {
    if (!*t) return json{{"null", true}};
    Result<std::string> descr = npy_descr((*t)->dtype());
    if (const IoError* e = error_of(descr)) return *e;
    json j{{"npy", std::to_string(leaves.size()) + ".npy"}};
    leaves.push_back(t->get());
    return j;
  }
  if (const Tuple* tuple = v.get_if<Tuple>()) {
    json arr = json::array();
    for (const Value& f : tuple->fields) {
      Result<json> r = describe(f, leaves);
      if (const IoError* e = error_of(r)) return *e;
      arr.push_back(std::move(std::get<json>(r)));
    }
    return arr;
  }
  if (v.is<CallablePtr>() && *v.get_if<CallablePtr>()) {
    return io_error("cannot save a callable (" + (*v.get_if<CallablePtr>())->describe() + ")");
  }
  // Shape, Prim, String, DType and Null: as value_to_json writes them.
  return value_to_json(v);
}

}  // namespace

Status save_outputs(const std::filesystem::path& dir_arg, const Value& value) {
  const std::filesystem::path dir = dir_arg.empty() ? std::filesystem::path(".") : dir_arg;
  std::vector<const runtime::Tensor*> leaves;
  Result<json> description = describe(value, leaves);
  if (const IoError* e = error_of(description)) return *e;

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error(dir.string() + ": cannot create the directory: " + ec.message());
  if (!std::filesystem::is_directory(dir, ec)) {
    return io_error(dir.string() + ": not a directory");
  }
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (Status st = write_npy(dir / (std::to_string(i) + ".npy"), *leaves[i])) return st;
  }
  const std::string text = json{{"value", std::get<json>(description)}}.dump(2) + "\n";
  return write_file_atomic(dir / "outputs.json", {text});
}

}  // namespace raxc::io
