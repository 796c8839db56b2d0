// Explicit memory of TVM's memory-planned and VM-lowered programs as the executor runs it
// (private to backend/exec): memory.cpp implements the operators (R.memory.*, R.vm.*,
// R.call_builtin_with_ctx) over the runtime's storage blocks and views
// (backend/runtime/storage.h); vm_builtins.cpp registers the `vm.builtin.*` packed functions
// that need the executor.
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/exec/interpreter.h"
#include "backend/runtime/storage.h"

namespace raxc::backend {

// Storage, placement and views live in the runtime (backend/runtime/storage.h), shared with the
// libraries `raxc build` writes; their RuntimeErrors are located here with located().
using runtime::as_storage;
using runtime::dtype_text;
using runtime::Storage;

// Calls `callee` (a PrimFunc of the module, another global, or a packed function, by value or
// by name) with `args` followed by the dimensions of the shape `last`, as R.vm.call_tir_dyn and
// vm.builtin.call_tir_dyn do.
runtime::Value call_tir_dyn(Interpreter& in, const runtime::Value& callee,
                            std::vector<runtime::Value> args, const runtime::Value& last, Span at);

// The operators of this file, by name ("relax.memory.alloc_storage", ...), for builtins.cpp's
// table.
using MemoryOpHandler = runtime::Value (*)(Interpreter&, const ir::Call*, Frame&);
const std::unordered_map<std::string_view, MemoryOpHandler>& memory_ops();

// The `vm.builtin.*` packed functions that call back into the program (call_tir_dyn,
// invoke_closure); the others are the runtime's (backend/runtime/vm_builtins.cpp).
void register_vm_builtins(std::unordered_map<std::string, PackedFunction>& functions);

}  // namespace raxc::backend
