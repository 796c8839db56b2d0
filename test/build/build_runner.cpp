// raxc_build_runner LIB.so FILE.rx ENTRY [ARG...] [--bind N=V]... [--default-dim N] [--random]
//                   [--seed S] [--repeat N] [--load PLUGIN.so]...
// Calls ENTRY of a library `raxc build` wrote from FILE.rx with the arguments `raxc run` would
// make from the same words (backend/exec/arguments.h), and prints the result as
// `raxc run --output-format json` prints it, so test/build/run_goldens.py can compare the two.
// Everything it calls in the library goes through the library's own exported C API (looked up
// with dlsym), as a C program would. A failing entry prints "error: " and raxc_last_error();
// exit 1. --repeat N calls the entry N times and prints the min and median time on stderr
// (the same measurement as `raxc run --repeat`). --load registers a plugin's functions in the
// library's packed-function registry (raxc_load_plugin) before the call.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "analysis/engine.h"
#include "backend/exec/arguments.h"
#include "backend/io/print.h"
#include "backend/runtime/raxc_value.h"
#include "frontend/source.h"

namespace {

using raxc::runtime::Value;

struct Api {
  void* lib = nullptr;
  template <class F>
  F get(const char* name) {
    void* p = dlsym(lib, name);
    if (!p) {
      std::cerr << "missing symbol " << name << "\n";
      std::exit(3);
    }
    return reinterpret_cast<F>(p);
  }
};

RaxcValue* to_handle(Api& api, const Value& v) {
  namespace rt = raxc::runtime;
  if (const rt::TensorPtr* t = v.tensor())
    return api.get<RaxcValue* (*)(const DLTensor*)>("raxc_value_from_dltensor")((*t)->dl());
  if (const auto* p = v.get_if<rt::Prim>()) {
    if (p->is_float())
      return api.get<RaxcValue* (*)(double, DLDataType)>("raxc_value_prim_float")(p->f, p->dtype);
    return api.get<RaxcValue* (*)(int64_t, DLDataType)>("raxc_value_prim_int")(p->i, p->dtype);
  }
  if (const auto* s = v.get_if<rt::Shape>())
    return api.get<RaxcValue* (*)(const int64_t*, int32_t)>("raxc_value_shape")(
        s->dims.data(), static_cast<int32_t>(s->dims.size()));
  if (const auto* s = v.get_if<rt::String>())
    return api.get<RaxcValue* (*)(const char*)>("raxc_value_string")(s->value.c_str());
  if (const auto* t = v.get_if<rt::Tuple>()) {
    std::vector<RaxcValue*> fields;
    for (const Value& f : t->fields) fields.push_back(to_handle(api, f));
    RaxcValue* h = api.get<RaxcValue* (*)(RaxcValue* const*, int32_t)>("raxc_value_tuple")(
        fields.data(), static_cast<int32_t>(fields.size()));
    for (RaxcValue* f : fields) api.get<void (*)(RaxcValue*)>("raxc_value_release")(f);
    return h;
  }
  return api.get<RaxcValue* (*)()>("raxc_value_null")();
}

Value from_handle(Api& api, RaxcValue* h) {
  namespace rt = raxc::runtime;
  switch (api.get<int32_t (*)(const RaxcValue*)>("raxc_value_kind")(h)) {
    case RAXC_VALUE_TENSOR: {
      const DLTensor* t = api.get<const DLTensor* (*)(const RaxcValue*)>("raxc_value_dltensor")(h);
      rt::TensorPtr copy =
          rt::Tensor::empty(std::vector<int64_t>(t->shape, t->shape + t->ndim), t->dtype);
      std::memcpy(copy->data(), t->data, static_cast<size_t>(copy->nbytes()));
      return copy;
    }
    case RAXC_VALUE_TUPLE: {
      rt::Tuple tuple;
      int32_t n = api.get<int32_t (*)(const RaxcValue*)>("raxc_value_tuple_size")(h);
      for (int32_t i = 0; i < n; ++i) {
        RaxcValue* f =
            api.get<RaxcValue* (*)(const RaxcValue*, int32_t)>("raxc_value_tuple_get")(h, i);
        tuple.fields.push_back(from_handle(api, f));
        api.get<void (*)(RaxcValue*)>("raxc_value_release")(f);
      }
      return tuple;
    }
    case RAXC_VALUE_SHAPE: {
      int32_t n = api.get<int32_t (*)(const RaxcValue*)>("raxc_value_shape_ndim")(h);
      const int64_t* d = api.get<const int64_t* (*)(const RaxcValue*)>("raxc_value_shape_dims")(h);
      return rt::Shape{std::vector<int64_t>(d, d + n)};
    }
    case RAXC_VALUE_PRIM: {
      rt::Prim p;
      p.dtype = api.get<DLDataType (*)(const RaxcValue*)>("raxc_value_prim_dtype")(h);
      if (p.is_float())
        p.f = api.get<double (*)(const RaxcValue*)>("raxc_value_prim_f64")(h);
      else
        p.i = api.get<int64_t (*)(const RaxcValue*)>("raxc_value_prim_i64")(h);
      return p;
    }
    case RAXC_VALUE_DTYPE:
      return rt::DType{api.get<DLDataType (*)(const RaxcValue*)>("raxc_value_dtype_get")(h)};
    case RAXC_VALUE_STRING:
      return rt::String{api.get<const char* (*)(const RaxcValue*)>("raxc_value_string_get")(h)};
    default: return rt::Null{};
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: raxc_build_runner LIB.so FILE.rx ENTRY [ARG...]\n";
    return 2;
  }
  std::string lib_path = argv[1], file = argv[2], entry = argv[3];
  raxc::backend::ArgumentOptions options;
  std::vector<std::string> texts;
  int repeat = 1;
  std::vector<std::string> plugins;
  for (int i = 4; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--random")
      options.random = true;
    else if (a == "--seed" && i + 1 < argc)
      options.seed = std::stoull(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::stoi(argv[++i]));
    else if (a == "--load" && i + 1 < argc)
      plugins.push_back(argv[++i]);
    else if (a == "--default-dim" && i + 1 < argc)
      options.default_dim = std::stoll(argv[++i]);
    else if (a == "--bind" && i + 1 < argc) {
      std::string b = argv[++i];
      size_t eq = b.find('=');
      options.binds.emplace_back(b.substr(0, eq), std::stoll(b.substr(eq + 1)));
    } else
      texts.push_back(a);
  }
  raxc::SourceManager sources;
  auto loaded = sources.load(file);
  if (!loaded.file) return 2;
  raxc::analysis::Engine engine;
  engine.open(file, loaded.file->text());
  const raxc::ir::Function* f = engine.normalized(file, entry);
  if (!f) {
    std::cerr << "no function " << entry << "\n";
    return 2;
  }
  auto args = raxc::backend::make_arguments(*f, entry, texts, options);
  if (auto* d = std::get_if<raxc::Diagnostic>(&args)) {
    std::cerr << "bad arguments: " << d->message << "\n";
    return 2;
  }
  Api api;
  // Global, as a program linked with the library sees it: plugins resolve raxc_plugin_fail.
  api.lib = dlopen(lib_path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!api.lib) {
    std::cerr << dlerror() << "\n";
    return 2;
  }
  for (const std::string& p : plugins) {
    if (api.get<int32_t (*)(const char*)>("raxc_load_plugin")(p.c_str()) != 0) {
      std::cerr << "error: " << api.get<const char* (*)()>("raxc_last_error")() << "\n";
      return 2;
    }
  }
  std::string prefix = std::filesystem::path(lib_path).stem().string().substr(3) + "_";
  auto fn = api.get<int32_t (*)(RaxcValue* const*, int32_t, RaxcValue**)>((prefix + entry).c_str());
  std::vector<RaxcValue*> handles;
  for (const Value& v : std::get<std::vector<Value>>(args)) handles.push_back(to_handle(api, v));
  RaxcValue* result = nullptr;
  int32_t status = 0;
  std::vector<double> times;
  for (int i = 0; i < repeat && status == 0; ++i) {
    if (result) api.get<void (*)(RaxcValue*)>("raxc_value_release")(result);
    auto start = std::chrono::steady_clock::now();
    status = fn(handles.data(), static_cast<int32_t>(handles.size()), &result);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  if (repeat > 1 && status == 0) {
    std::sort(times.begin(), times.end());
    std::fprintf(stderr, "run over %d: min %.3f ms, median %.3f ms\n", repeat, times.front(),
                 times[times.size() / 2]);
  }
  for (RaxcValue* h : handles) api.get<void (*)(RaxcValue*)>("raxc_value_release")(h);
  if (status != 0) {
    std::cout << "error: " << api.get<const char* (*)()>("raxc_last_error")() << "\n";
    return 1;
  }
  std::cout << raxc::io::value_to_json(from_handle(api, result)).dump() << "\n";
  api.get<void (*)(RaxcValue*)>("raxc_value_release")(result);
  // No dlclose: the runtime's worker threads (T.parallel) live until the process exits.
  return 0;
}
