// Alias scopes of a PrimFunc's buffers (private to backend/codegen).
//
// Generated loops reach their buffers through pointers LLVM knows nothing about (loaded from
// the argument array, or from a parallel body's closure), so it must assume that a store to the
// output may change any input: loads stay inside loops, and vectorized loops check for overlap
// at run time. Each buffer gets a scope, and every load and store says which scope it touches
// and which it does not: buffers a kernel allocates never overlap anything else; the buffers of
// its parameters are distinct from each other when the function says so (`tir.noalias`, which
// TVM's and raxc's legalized operators carry, as TVM's code generator then marks them
// noalias), and otherwise share one scope. A buffer matched over a region of another
// (T.match_buffer in a block) is in the other's scope.
#pragma once
#include <llvm/IR/Instruction.h>
#include <llvm/IR/Metadata.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/ir/module.h"

namespace raxc::backend {

class BufferAliasScopes {
 public:
  BufferAliasScopes(llvm::LLVMContext& context, const ir::PrimFunc& func, const std::string& name);
  // Marks a load or store of `buffer` (nothing for a buffer of unknown scope: it may alias all).
  void annotate(llvm::Instruction* access, const ir::Buffer* buffer) const;
  // Whether two buffers are known never to overlap (each has a scope, and they differ).
  bool distinct(const ir::Buffer* a, const ir::Buffer* b) const;

 private:
  std::unordered_map<const ir::Buffer*, size_t> group_of_;
  std::vector<llvm::MDNode*> scope_;      // per group: !{its scope}
  std::vector<llvm::MDNode*> not_scope_;  // per group: !{every other group's scope}
};

}  // namespace raxc::backend
