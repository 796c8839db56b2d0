// IRModule: the whole program of one `.rx` file (seed spec "Program").
#pragma once
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "frontend/ir/arena.h"
#include "frontend/ir/attrs.h"
#include "frontend/ir/expr.h"
#include "frontend/ir/struct_info.h"
#include "frontend/ir/tir.h"

namespace raxc::ir {

// One global definition: a Relax function, a PrimFunc or an ExternFunc. Each owns the arena its
// nodes live in, so the engine can re-lower one function without touching the others.
struct GlobalDef {
  const GlobalVar* gvar;
  std::variant<const Function*, const PrimFunc*, const ExternFunc*> value;
  std::shared_ptr<Arena> arena;
  Span span;  // the whole definition, decorators included

  const Function* function() const {
    auto p = std::get_if<const Function*>(&value);
    return p ? *p : nullptr;
  }
  const PrimFunc* prim_func() const {
    auto p = std::get_if<const PrimFunc*>(&value);
    return p ? *p : nullptr;
  }
  const ExternFunc* extern_func() const {
    auto p = std::get_if<const ExternFunc*>(&value);
    return p ? *p : nullptr;
  }
};

enum class TopLevel : uint8_t { Module, Function, PrimFunc };

struct IRModule {
  TopLevel top_level = TopLevel::Module;  // a module class, or a lone function (text §3.4)
  std::string name = "Module";            // the class name
  bool check_well_formed = true;          // @I.ir_module(check_well_formed=False)
  bool s_tir = false;                     // @I.ir_module(s_tir=True)
  Attrs attrs;                            // I.module_attrs
  // I.module_global_infos: every key as written; "vdevice" is also decoded into `vdevices`.
  Attrs global_infos;
  std::vector<const VDevice*> vdevices;
  // Every R.device_mesh(...) of the global infos, under any key ("mesh" by convention).
  std::vector<const DeviceMesh*> device_meshes;
  bool has_metadata_def = false;  // metadata = tvm.ir.load_json(...) was present
  std::vector<GlobalDef> globals;  // in source order
  std::shared_ptr<Arena> arena = std::make_shared<Arena>();  // module-level nodes, GlobalVars

  // The mesh "key[index]" names, or null.
  const DeviceMesh* find_mesh(std::string_view key, int64_t index) const {
    for (const DeviceMesh* m : device_meshes)
      if (m->global_info_key == key && m->index == index) return m;
    return nullptr;
  }

  const GlobalDef* find(std::string_view name) const {
    for (auto& g : globals)
      if (g.gvar->name == name) return &g;
    return nullptr;
  }
};

}  // namespace raxc::ir
