// Alias scopes of a PrimFunc's buffers (buffer_alias.h): one walk assigns each buffer a group,
// then each group gets an LLVM alias scope in a domain of the function's own.
#include "backend/codegen/buffer_alias.h"

#include <llvm/IR/MDBuilder.h>

#include "frontend/ir/visitor.h"

namespace raxc::backend {

namespace {

bool declares_noalias(const ir::PrimFunc& func) {
  for (const char* key : {"tir.noalias", "tirx.noalias"})
    if (const ir::AttrValue* v = func.attrs.find(key))
      if (const bool* b = v->get_if<bool>(); b && *b) return true;
  return false;
}

// Buffers a kernel allocates, and those matched over a region of another buffer.
class Declarations : public ir::Visitor {
 public:
  explicit Declarations(const ir::Stmt* body) { visit(body); }
  std::vector<const ir::Buffer*> allocated;
  std::vector<std::pair<const ir::Buffer*, const ir::Buffer*>> matched;  // view, source

 private:
  void on_stmt(const ir::Stmt* s) override {
    if (const auto* a = ir::dyn_cast<ir::AllocBufferStmt>(s)) allocated.push_back(a->buffer);
    if (const auto* b = ir::dyn_cast<ir::Block>(s)) {
      allocated.insert(allocated.end(), b->alloc_buffers.begin(), b->alloc_buffers.end());
      for (const ir::MatchBufferRegion& m : b->match_buffers)
        matched.emplace_back(m.buffer, m.source.buffer);
    }
  }
};

}  // namespace

BufferAliasScopes::BufferAliasScopes(llvm::LLVMContext& context, const ir::PrimFunc& func,
                                     const std::string& name) {
  size_t groups = 0;
  std::unordered_map<const ir::PrimVar*, size_t> group_of_handle;
  bool distinct = declares_noalias(func);
  for (const auto& [handle, buffer] : func.buffer_map) {
    auto [it, fresh] = group_of_handle.emplace(handle, distinct || groups == 0 ? groups : 0);
    if (fresh && it->second == groups) ++groups;
    group_of_[buffer] = it->second;
  }
  Declarations declared(func.body);
  for (const ir::Buffer* b : declared.allocated) group_of_.emplace(b, groups++);
  for (auto [view, source] : declared.matched)
    if (auto it = group_of_.find(source); it != group_of_.end())
      group_of_.emplace(view, it->second);
  if (groups < 2) {  // one scope says nothing
    group_of_.clear();
    return;
  }
  llvm::MDBuilder md(context);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain(name);
  std::vector<llvm::Metadata*> scopes;
  for (size_t g = 0; g < groups; ++g) {
    llvm::MDNode* scope = md.createAnonymousAliasScope(domain);
    scopes.push_back(scope);
    scope_.push_back(llvm::MDNode::get(context, {scope}));
  }
  for (size_t g = 0; g < groups; ++g) {
    std::vector<llvm::Metadata*> others;
    for (size_t k = 0; k < groups; ++k)
      if (k != g) others.push_back(scopes[k]);
    not_scope_.push_back(llvm::MDNode::get(context, others));
  }
}

void BufferAliasScopes::annotate(llvm::Instruction* access, const ir::Buffer* buffer) const {
  auto it = group_of_.find(buffer);
  if (it == group_of_.end() || !access) return;
  access->setMetadata(llvm::LLVMContext::MD_alias_scope, scope_[it->second]);
  access->setMetadata(llvm::LLVMContext::MD_noalias, not_scope_[it->second]);
}

bool BufferAliasScopes::distinct(const ir::Buffer* a, const ir::Buffer* b) const {
  auto ga = group_of_.find(a), gb = group_of_.find(b);
  return ga != group_of_.end() && gb != group_of_.end() && ga->second != gb->second;
}

}  // namespace raxc::backend
