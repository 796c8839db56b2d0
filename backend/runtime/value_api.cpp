// The value handles of raxc_value.h (a refcounted box around runtime::Value) and the helpers of
// raxc_relax_abi.h that the Relax code of a `raxc build` library calls: allocation, tuples,
// scalars, shapes, kernel argument packing, If conditions, the StructInfo checks of parameters,
// match_cast and return values, the call-depth limit, and locating an error in the source.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "backend/runtime/error.h"
#include "backend/runtime/raxc_relax_abi.h"
#include "backend/runtime/value.h"
#include "backend/runtime/value_handle.h"

namespace raxc::runtime {

namespace {
std::string dims_text(const int64_t* dims, size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  if (n == 1) s += ",";
  return s + ")";
}
}  // namespace

RaxcValue* box(Value v) {
  auto* h = new (std::nothrow) RaxcValue;
  if (h) h->value = std::move(v);
  return h;
}

std::string describe(const RaxcValue* h) { return h ? describe(h->value) : "a null handle"; }

std::string describe(const Value& v) {
  if (const TensorPtr* t = v.tensor())
    return "a " + dtype_name((*t)->dtype()) + " tensor of shape " +
           dims_text((*t)->shape().data(), (*t)->shape().size());
  if (const auto* t = v.get_if<Tuple>())
    return "a tuple of " + std::to_string(t->fields.size()) + " field(s)";
  if (const auto* s = v.get_if<Shape>())
    return "the shape " + dims_text(s->dims.data(), s->dims.size());
  if (const auto* p = v.get_if<Prim>()) {
    char text[64];
    if (p->is_float())
      std::snprintf(text, sizeof text, "%g", p->f);
    else
      std::snprintf(text, sizeof text, "%lld", static_cast<long long>(p->i));
    return "the " + dtype_name(p->dtype) + " value " + text;
  }
  return std::string("a ") + v.kind_name();
}

int32_t fail(const RaxcErrorSite* site, std::vector<std::string> extra) {
  RuntimeError e;
  e.code = site->code;
  e.begin = site->begin;
  e.end = site->end;
  for (int32_t i = 0; i < site->num_static; ++i) e.args.emplace_back(site->args[i]);
  for (std::string& s : extra) e.args.push_back(std::move(s));
  set_last_error(std::move(e));
  return 1;
}

namespace {

// Deep enough for real recursion, shallow enough that native frames never exhaust the stack
// (the interpreter's default limit is the same).
constexpr int kMaxDepth = 4096;
thread_local int depth = 0;

DLDataType dl_type(int32_t code, int32_t bits) {
  return DLDataType{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
}

// The encoded StructInfo of relax_sinfo (backend/codegen): a prefix walk of int64 words.
enum Tag : int64_t { kObject = 0, kTensor = 1, kTuple = 2, kShape = 3, kPrim = 4, kFunc = 5 };
enum DimKind : int64_t { kConst = 0, kBind = 1, kComputed = 2 };

class Checker {
 public:
  Checker(const int64_t* desc, int64_t* slots, uint8_t* bound, const char* const* names,
          int32_t phase)
      : p_(desc), slots_(slots), bound_(bound), names_(names), phase_(phase) {}

  // The reason `v` does not match, or empty. Always consumes its descriptor.
  std::string match(const RaxcValue* h) {
    int64_t tag = *p_++;
    switch (tag) {
      case kTensor: return tensor(h);
      case kTuple: return tuple(h);
      case kShape: return shape(h);
      case kPrim: return prim(h);
      case kFunc: return h && h->value.is<CallablePtr>() ? "" : "it is " + describe(h);
      default: return h ? "" : "it is " + describe(h);
    }
  }

 private:
  std::string dim(int64_t actual, const std::string& where) {
    int64_t kind = *p_++, value = *p_++;
    if (kind == kConst) {
      if (actual != value)
        return where + " is " + std::to_string(actual) + ", expected " + std::to_string(value);
      return "";
    }
    if (kind == kComputed && phase_ == 0) return "";
    if (kind == kBind && !bound_[value]) {
      slots_[value] = actual;
      bound_[value] = 1;
      return "";
    }
    if (slots_[value] == actual) return "";
    if (kind == kBind)
      return where + " is " + std::to_string(actual) + ", but '" + names_[value] + "' is " +
             std::to_string(slots_[value]);
    return where + " is " + std::to_string(actual) + ", expected " + std::to_string(slots_[value]);
  }

  // Declared dims against actual ones; skips the declaration when the counts differ.
  std::string dims(const int64_t* actual, int64_t n, int64_t declared) {
    if (n != declared) {
      p_ += 2 * declared;
      return "it has " + std::to_string(n) + " dimension(s), not " + std::to_string(declared);
    }
    for (int64_t k = 0; k < n; ++k) {
      std::string why = dim(actual[k], "dimension " + std::to_string(k));
      if (!why.empty()) {
        p_ += 2 * (n - k - 1);
        return why;
      }
    }
    return "";
  }

  std::string tensor(const RaxcValue* h) {
    int64_t ndim = *p_++, code = *p_++, bits = *p_++, has_shape = *p_++;
    const int64_t* after = p_ + (has_shape ? 2 * ndim : 0);
    const TensorPtr* t = h ? h->value.tensor() : nullptr;
    std::string why;
    if (!t) {
      why = "it is " + describe(h);
    } else if (ndim >= 0 && (*t)->ndim() != ndim) {
      why = "it has " + std::to_string((*t)->ndim()) + " dimension(s), not " + std::to_string(ndim);
    } else if (code >= 0 && !same_dtype((*t)->dtype(), dl_type(code, bits))) {
      why =
          "its dtype is " + dtype_name((*t)->dtype()) + ", not " + dtype_name(dl_type(code, bits));
    } else if (has_shape) {
      why = dims((*t)->shape().data(), (*t)->ndim(), ndim);
    }
    p_ = after;
    return why;
  }

  std::string tuple(const RaxcValue* h) {
    int64_t n = *p_++;
    const auto* t = h ? h->value.get_if<Tuple>() : nullptr;
    std::string why;
    if (!t)
      why = "it is " + describe(h);
    else if (static_cast<int64_t>(t->fields.size()) != n)
      why = "it has " + std::to_string(t->fields.size()) + " field(s), not " + std::to_string(n);
    for (int64_t i = 0; i < n; ++i) {
      if (!why.empty() || !t) {
        skip();
        continue;
      }
      RaxcValue field;
      field.value = t->fields[i];
      std::string e = match(&field);
      if (!e.empty()) why = "field " + std::to_string(i) + ": " + e;
    }
    return why;
  }

  std::string shape(const RaxcValue* h) {
    int64_t ndim = *p_++, has_values = *p_++;
    const int64_t* after = p_ + (has_values ? 2 * ndim : 0);
    const auto* s = h ? h->value.get_if<Shape>() : nullptr;
    std::string why;
    if (!s)
      why = "it is " + describe(h);
    else if (has_values)
      why = dims(s->dims.data(), static_cast<int64_t>(s->dims.size()), ndim);
    else if (ndim >= 0 && static_cast<int64_t>(s->dims.size()) != ndim)
      why =
          "it has " + std::to_string(s->dims.size()) + " dimension(s), not " + std::to_string(ndim);
    p_ = after;
    return why;
  }

  std::string prim(const RaxcValue* h) {
    int64_t code = *p_++, bits = *p_++, has_value = *p_++;
    const int64_t* after = p_ + (has_value ? 2 : 0);
    const auto* v = h ? h->value.get_if<Prim>() : nullptr;
    std::string why;
    if (!v)
      why = "it is " + describe(h);
    else if (code >= 0 && !same_dtype(v->dtype, dl_type(code, bits)))
      why = "its dtype is " + dtype_name(v->dtype) + ", not " + dtype_name(dl_type(code, bits));
    else if (has_value && !v->is_float())
      why = dim(v->i, "its value");
    p_ = after;
    return why;
  }

  // Moves past one encoded StructInfo without checking anything.
  void skip() {
    int64_t tag = *p_++;
    if (tag == kTensor) {
      int64_t ndim = p_[0], has_shape = p_[3];
      p_ += 4 + (has_shape ? 2 * ndim : 0);
    } else if (tag == kTuple) {
      int64_t n = *p_++;
      for (int64_t i = 0; i < n; ++i) skip();
    } else if (tag == kShape) {
      int64_t ndim = p_[0], has = p_[1];
      p_ += 2 + (has ? 2 * ndim : 0);
    } else if (tag == kPrim) {
      p_ += 3 + (p_[2] ? 2 : 0);
    }
  }

  const int64_t* p_;
  int64_t* slots_;
  uint8_t* bound_;
  const char* const* names_;
  int32_t phase_;
};

// Fills a "{0} ... {1}" template.
std::string fill(const char* templ, const std::vector<std::string>& args) {
  std::string out;
  for (const char* c = templ; *c; ++c) {
    if (*c == '{' && c[1] >= '0' && c[1] <= '9') {
      const char* close = std::strchr(c, '}');
      if (close) {
        size_t index = std::strtoul(c + 1, nullptr, 10);
        if (index < args.size()) out += args[index];
        c = close;
        continue;
      }
    }
    out += *c;
  }
  return out;
}

}  // namespace
}  // namespace raxc::runtime

using namespace raxc::runtime;

// ------------------------------------------------------------------------- the public API

extern "C" RaxcValue* raxc_value_from_dltensor(const DLTensor* t) {
  if (!t || (t->ndim > 0 && !t->shape) || t->ndim < 0) return nullptr;
  std::vector<int64_t> shape(t->shape, t->shape + t->ndim);
  DLDataType dtype = t->dtype;
  TensorPtr copy = Tensor::empty(shape, dtype);
  if (!copy) return nullptr;
  int64_t elem = dtype_bytes(dtype), n = copy->numel();
  const char* src = static_cast<const char*>(t->data) + t->byte_offset;
  if (!t->strides) {
    if (n > 0) std::memcpy(copy->data(), src, static_cast<size_t>(n * elem));
  } else {  // element by element, row-major index -> strided offset
    std::vector<int64_t> index(shape.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t offset = 0;
      for (size_t k = 0; k < shape.size(); ++k) offset += index[k] * t->strides[k];
      std::memcpy(copy->data_as<char>() + i * elem, src + offset * elem, static_cast<size_t>(elem));
      for (size_t k = shape.size(); k-- > 0;) {
        if (++index[k] < shape[k]) break;
        index[k] = 0;
      }
    }
  }
  return box(copy);
}

extern "C" RaxcValue* raxc_value_tensor_empty(const int64_t* shape, int32_t ndim,
                                              DLDataType dtype) {
  if (ndim < 0 || (ndim > 0 && !shape)) return nullptr;
  TensorPtr t = Tensor::empty(std::vector<int64_t>(shape, shape + ndim), dtype);
  return t ? box(t) : nullptr;
}

extern "C" RaxcValue* raxc_value_prim_int(int64_t value, DLDataType dtype) {
  Prim p;
  p.dtype = dtype;
  if (p.is_float())
    p.f = static_cast<double>(value);
  else
    p.i = is_bool(dtype) ? (value != 0) : value;
  return box(p);
}

extern "C" RaxcValue* raxc_value_prim_float(double value, DLDataType dtype) {
  Prim p;
  p.dtype = dtype;
  if (p.is_float())
    p.f = value;
  else
    p.i = static_cast<int64_t>(value);
  return box(p);
}

extern "C" RaxcValue* raxc_value_shape(const int64_t* dims, int32_t ndim) {
  if (ndim < 0 || (ndim > 0 && !dims)) return nullptr;
  return box(Shape{std::vector<int64_t>(dims, dims + ndim)});
}

extern "C" RaxcValue* raxc_value_tuple(RaxcValue* const* fields, int32_t n) {
  if (n < 0 || (n > 0 && !fields)) return nullptr;
  Tuple t;
  for (int32_t i = 0; i < n; ++i) {
    if (!fields[i]) return nullptr;
    t.fields.push_back(fields[i]->value);
  }
  return box(std::move(t));
}

extern "C" RaxcValue* raxc_value_string(const char* text) { return box(String{text ? text : ""}); }
extern "C" RaxcValue* raxc_value_null(void) { return box(Null{}); }

extern "C" int32_t raxc_value_kind(const RaxcValue* h) {
  return h ? static_cast<int32_t>(h->value.v.index()) : -1;
}

extern "C" const DLTensor* raxc_value_dltensor(const RaxcValue* h) {
  const TensorPtr* t = h ? h->value.tensor() : nullptr;
  return t ? (*t)->dl() : nullptr;
}

extern "C" int32_t raxc_value_tuple_size(const RaxcValue* h) {
  const auto* t = h ? h->value.get_if<Tuple>() : nullptr;
  return t ? static_cast<int32_t>(t->fields.size()) : -1;
}

extern "C" RaxcValue* raxc_value_tuple_get(const RaxcValue* h, int32_t index) {
  const auto* t = h ? h->value.get_if<Tuple>() : nullptr;
  if (!t || index < 0 || index >= static_cast<int32_t>(t->fields.size())) return nullptr;
  return box(t->fields[index]);
}

extern "C" DLDataType raxc_value_prim_dtype(const RaxcValue* h) {
  const auto* p = h ? h->value.get_if<Prim>() : nullptr;
  return p ? p->dtype : DLDataType{kDLOpaqueHandle, 0, 0};
}

extern "C" int64_t raxc_value_prim_i64(const RaxcValue* h) {
  const auto* p = h ? h->value.get_if<Prim>() : nullptr;
  if (!p) return 0;
  return p->is_float() ? static_cast<int64_t>(p->f) : p->i;
}

extern "C" double raxc_value_prim_f64(const RaxcValue* h) {
  const auto* p = h ? h->value.get_if<Prim>() : nullptr;
  return p ? p->as_f64() : 0;
}

extern "C" int32_t raxc_value_shape_ndim(const RaxcValue* h) {
  const auto* s = h ? h->value.get_if<Shape>() : nullptr;
  return s ? static_cast<int32_t>(s->dims.size()) : -1;
}

extern "C" const int64_t* raxc_value_shape_dims(const RaxcValue* h) {
  const auto* s = h ? h->value.get_if<Shape>() : nullptr;
  return s ? s->dims.data() : nullptr;
}

extern "C" const char* raxc_value_string_get(const RaxcValue* h) {
  const auto* s = h ? h->value.get_if<String>() : nullptr;
  return s ? s->value.c_str() : nullptr;
}

extern "C" DLDataType raxc_value_dtype_get(const RaxcValue* h) {
  const auto* d = h ? h->value.get_if<DType>() : nullptr;
  return d ? d->dtype : DLDataType{kDLOpaqueHandle, 0, 0};
}

namespace {
// Seals (or unseals) the tensors of `v`, those of a tuple too.
void set_sealed(const Value& v, bool sealed) {
  if (const auto* t = v.get_if<TensorPtr>()) {
    if (!*t) return;
    if (sealed)
      (*t)->seal();
    else if ((*t)->sealed())
      (*t)->unseal();
  }
  if (const auto* tuple = v.get_if<Tuple>())
    for (const Value& field : tuple->fields) set_sealed(field, sealed);
}
}  // namespace

extern "C" int32_t raxc_value_seal(RaxcValue* h) {
  if (!h || !(h->value.get_if<TensorPtr>() || h->value.get_if<Tuple>())) return -1;
  set_sealed(h->value, true);
  return 0;
}

extern "C" void raxc_value_retain(RaxcValue* h) {
  if (h) h->refs.fetch_add(1, std::memory_order_relaxed);
}

extern "C" void raxc_value_release(RaxcValue* h) {
  if (h && h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete h;
}

// ----------------------------------------------------------------- helpers of generated code

extern "C" void raxc_rt_unseal_arguments(RaxcValue* const* args, int32_t num_args) {
  for (int32_t i = 0; args && i < num_args; ++i)
    if (args[i]) set_sealed(args[i]->value, false);
}

// An output of call_tir / call_dps_packed (or a constant, copied over): the callee writes every
// element, so the storage is not cleared first.
extern "C" RaxcValue* raxc_rt_alloc(const int64_t* shape, int32_t ndim, int32_t code, int32_t bits,
                                    const RaxcErrorSite* site) {
  TensorPtr t = ndim < 0 || (ndim > 0 && !shape)
                    ? nullptr
                    : Tensor::empty(std::vector<int64_t>(shape, shape + ndim), dl_type(code, bits),
                                    Tensor::Fill::Undefined);
  RaxcValue* h = t ? box(t) : nullptr;
  if (!h)
    fail(site, {dims_text(shape, static_cast<size_t>(ndim)), dtype_name(dl_type(code, bits))});
  return h;
}

extern "C" RaxcValue* raxc_rt_const(const void* data, int64_t nbytes, const int64_t* shape,
                                    int32_t ndim, int32_t code, int32_t bits,
                                    const RaxcErrorSite* site) {
  RaxcValue* h = raxc_rt_alloc(shape, ndim, code, bits, site);
  if (h && nbytes > 0) std::memcpy((*h->value.tensor())->data(), data, static_cast<size_t>(nbytes));
  return h;
}

extern "C" RaxcValue* raxc_rt_tuple(RaxcValue* const* fields, int32_t n) {
  return raxc_value_tuple(fields, n);
}

extern "C" RaxcValue* raxc_rt_get(const RaxcValue* tuple, int64_t index,
                                  const RaxcErrorSite* site) {
  const auto* t = tuple ? tuple->value.get_if<Tuple>() : nullptr;
  if (!t || index < 0 || index >= static_cast<int64_t>(t->fields.size())) {
    fail(site, {"a tuple with field " + std::to_string(index), "it is " + describe(tuple)});
    return nullptr;
  }
  return box(t->fields[index]);
}

extern "C" RaxcValue* raxc_rt_prim_int(int64_t value, int32_t code, int32_t bits) {
  return raxc_value_prim_int(value, dl_type(code, bits));
}

extern "C" RaxcValue* raxc_rt_prim_float(double value, int32_t code, int32_t bits) {
  return raxc_value_prim_float(value, dl_type(code, bits));
}

extern "C" RaxcValue* raxc_rt_shape(const int64_t* dims, int32_t ndim) {
  return raxc_value_shape(dims, ndim);
}

extern "C" RaxcValue* raxc_rt_shape_of(const RaxcValue* tensor, const RaxcErrorSite* site) {
  const TensorPtr* t = tensor ? tensor->value.tensor() : nullptr;
  if (!t) {
    fail(site, {"it is " + describe(tensor)});
    return nullptr;
  }
  return box(Shape{(*t)->shape()});
}

extern "C" int32_t raxc_rt_pack(const RaxcValue* h, RaxcArg* arg, int32_t* kind,
                                const RaxcErrorSite* site) {
  if (const TensorPtr* t = h ? h->value.tensor() : nullptr) {
    arg->tensor = (*t)->dl();
    *kind = RAXC_ARG_TENSOR;
  } else if (const auto* p = h ? h->value.get_if<Prim>() : nullptr) {
    if (p->is_float()) {
      arg->f64 = p->f;
      *kind = RAXC_ARG_FLOAT;
    } else {
      arg->i64 = p->i;
      *kind = RAXC_ARG_INT;
    }
  } else {
    return fail(site, {"a tensor or a scalar, not " + describe(h)});
  }
  return 0;
}

extern "C" int32_t raxc_rt_cond(const RaxcValue* h, const RaxcErrorSite* site) {
  if (const TensorPtr* t = h ? h->value.tensor() : nullptr) {
    if ((*t)->ndim() == 0) return (*t)->get_f64(0) != 0;
  } else if (const auto* p = h ? h->value.get_if<Prim>() : nullptr) {
    return p->as_f64() != 0;
  }
  fail(site, {describe(h)});
  return -1;
}

extern "C" int32_t raxc_rt_check(const RaxcValue* value, const int64_t* desc, int64_t* slots,
                                 uint8_t* bound, const char* const* names, int32_t phase,
                                 const RaxcErrorSite* site) {
  std::string why = Checker(desc, slots, bound, names, phase).match(value);
  return why.empty() ? 0 : fail(site, {why});
}

extern "C" int32_t raxc_rt_enter(const RaxcErrorSite* site) {
  if (depth >= kMaxDepth) return fail(site, {std::to_string(kMaxDepth)});
  ++depth;
  return 0;
}

extern "C" void raxc_rt_leave(void) { --depth; }

extern "C" void raxc_rt_locate(const RaxcModuleInfo* info) {
  std::optional<RuntimeError> e = take_last_error();
  if (!e) {
    e = RuntimeError{"RX5000", 0, 0, {"a function that failed without an error"}, ""};
  }
  std::string where = info->file;
  if (e->begin != e->end || e->begin != 0) {
    int32_t line = 0;
    while (line + 1 < info->num_lines && info->line_starts[line + 1] <= e->begin) ++line;
    where += ":" + std::to_string(line + 1) + ":" +
             std::to_string(e->begin - info->line_starts[line] + 1);
  }
  const char* templ = nullptr;
  for (int32_t i = 0; i < info->num_templates; ++i)
    if (e->code == info->templates[2 * i]) templ = info->templates[2 * i + 1];
  std::string message;
  if (templ) {
    message = fill(templ, e->args);
  } else {
    for (const std::string& a : e->args) message += (message.empty() ? "" : " ") + a;
  }
  e->rendered = e->code + ": " + where + ": " + message;
  set_last_error(std::move(*e));
}
