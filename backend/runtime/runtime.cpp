// The C entry points of raxc_runtime.h: error recording and workspace memory. Errors live in
// a thread-local slot (the executor takes them after a kernel returns non-zero); generated code
// never unwinds.
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "backend/runtime/error.h"
#include "backend/runtime/raxc_runtime.h"
#include "backend/runtime/tensor.h"

namespace raxc::runtime {
namespace {
thread_local std::optional<RuntimeError> last_error;
thread_local std::string last_error_text;
}  // namespace

std::optional<RuntimeError> take_last_error() {
  std::optional<RuntimeError> e = std::move(last_error);
  last_error.reset();
  return e;
}

void set_last_error(RuntimeError error) { last_error = std::move(error); }

}  // namespace raxc::runtime

using raxc::runtime::RuntimeError;

extern "C" int32_t raxc_fail(const RaxcErrorSite* site, int64_t v0, int64_t v1, int64_t v2) {
  RuntimeError e;
  e.code = site->code;
  e.begin = site->begin;
  e.end = site->end;
  for (int32_t i = 0; i < site->num_static; ++i) e.args.emplace_back(site->args[i]);
  const int64_t values[3] = {v0, v1, v2};
  for (int32_t i = 0; i < site->num_values && i < 3; ++i)
    e.args.push_back(std::to_string(values[i]));
  raxc::runtime::set_last_error(std::move(e));
  return 1;
}

// A workspace is pooled memory like a tensor's (a softmax's full-size intermediate would
// otherwise fragment malloc's heap and grow the process with every call), of exactly the size
// asked for rounded to the alignment, so that it takes the same blocks as tensors of its shape
// (a size header before it made a 768 KiB workspace a block of 772 KiB, a size no tensor
// frees). The pool's block may be larger than asked: its size is kept here for the free.
namespace {
struct Workspaces {
  std::mutex mutex;
  std::unordered_map<void*, size_t> block_bytes;
};
Workspaces& workspaces() {
  static Workspaces* w = new Workspaces();  // never destroyed: kernels may run during exit()
  return *w;
}
}  // namespace

extern "C" void* raxc_workspace_alloc(int64_t nbytes, const RaxcErrorSite* site) {
  constexpr int64_t kAlign = raxc::runtime::kAllocAlignment;
  if (nbytes >= 0 && nbytes <= raxc::runtime::allocation_limit()) {
    size_t size = static_cast<size_t>(nbytes + kAlign - 1) / kAlign * kAlign;
    raxc::runtime::PooledBlock block = raxc::runtime::allocate_storage(size);
    if (block.data) {
      Workspaces& w = workspaces();
      std::lock_guard<std::mutex> lock(w.mutex);
      w.block_bytes.emplace(block.data, block.bytes);
      return block.data;
    }
  }
  raxc_fail(site, nbytes, 0, 0);
  return nullptr;
}

extern "C" void raxc_workspace_free(void* ptr) {
  if (!ptr) return;
  raxc::runtime::PooledBlock block{ptr, 0};
  {
    Workspaces& w = workspaces();
    std::lock_guard<std::mutex> lock(w.mutex);
    auto it = w.block_bytes.find(ptr);
    if (it == w.block_bytes.end()) return;  // not a workspace: nothing of ours to give back
    block.bytes = it->second;
    w.block_bytes.erase(it);
  }
  raxc::runtime::free_storage(block);
}

extern "C" const char* raxc_last_error(void) {
  using namespace raxc::runtime;
  if (!last_error) return "";
  if (!last_error->rendered.empty()) return last_error->rendered.c_str();
  last_error_text = last_error->code + ":";
  for (const std::string& a : last_error->args) last_error_text += " " + a;
  return last_error_text.c_str();
}

extern "C" int32_t raxc_plugin_fail(const char* message) {
  raxc::runtime::RuntimeError e;
  e.code = "RX5032";
  e.args.emplace_back(message ? message : "");
  raxc::runtime::set_last_error(std::move(e));
  return 1;
}
