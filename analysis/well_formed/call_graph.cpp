#include "analysis/well_formed/call_graph.h"

#include <unordered_set>

#include "frontend/ir/walks.h"

namespace raxc::analysis::wf {
namespace {

// One cached index per thread: checks of one module ask about the same module many times, and
// building the index per function would make a module check quadratic. The index may outlive
// its module (a new one can even reuse the address), so it owns its keys and every hit is
// verified against the module asked about.
struct GlobalIndex {
  const ir::IRModule* module = nullptr;
  std::unordered_map<std::string, size_t> by_name;

  void rebuild(const ir::IRModule& m) {
    module = &m;
    by_name.clear();
    for (size_t i = 0; i < m.globals.size(); ++i) by_name.emplace(m.globals[i].gvar->name, i);
  }
};

const ir::GlobalDef* lookup(GlobalIndex& index, const ir::IRModule& module, std::string_view name) {
  auto it = index.by_name.find(std::string(name));
  if (it == index.by_name.end()) return nullptr;
  size_t i = it->second;
  if (i < module.globals.size() && module.globals[i].gvar->name == name) return &module.globals[i];
  return nullptr;
}

}  // namespace

const ir::GlobalDef* find_global(const ir::IRModule& module, std::string_view name) {
  thread_local GlobalIndex index;
  if (index.module == &module)
    if (const ir::GlobalDef* g = lookup(index, module, name)) return g;
  // Miss: either the name is not defined (rare: an error) or the index is stale.
  index.rebuild(module);
  return lookup(index, module, name);
}

std::unordered_set<std::string> affected_by_call_edges(const CallEdges& edges,
                                                       const std::vector<std::string>& changed) {
  std::unordered_set<std::string> affected;
  if (changed.empty()) return affected;
  std::unordered_map<std::string_view, std::vector<std::string_view>> callers;
  for (const auto& [caller, callees] : edges)
    for (const std::string& callee : callees) callers[callee].push_back(caller);
  std::vector<std::string_view> stack;
  for (const std::string& name : changed)
    if (affected.insert(name).second) stack.push_back(name);
  while (!stack.empty()) {
    std::string_view name = stack.back();
    stack.pop_back();
    auto it = callers.find(name);
    if (it == callers.end()) continue;
    for (std::string_view caller : it->second)
      if (affected.emplace(caller).second) stack.push_back(caller);
  }
  return affected;
}

const std::vector<std::string>& CallGraph::callees(const std::string& name) {
  auto it = callees_.find(name);
  if (it != callees_.end()) return it->second;
  std::vector<std::string> result;
  if (const ir::GlobalDef* g = find_global(module_, name))
    if (const ir::Function* f = g->function()) result = ir::called_globals(f);
  return callees_.emplace(name, std::move(result)).first->second;
}

bool CallGraph::reaches(const std::string& from, const std::string& target) {
  if (target != target_) {
    reaches_target_.clear();
    target_ = target;
  }
  auto known = reaches_target_.find(from);
  if (known != reaches_target_.end()) return known->second;
  // A plain DFS per question; only the answer for `from` is cached (answers for nodes met on
  // the way can depend on the path, because of cycles).
  std::unordered_set<std::string> visited{from};
  std::vector<std::string> stack{from};
  bool found = false;
  while (!stack.empty() && !found) {
    std::string name = std::move(stack.back());
    stack.pop_back();
    for (const std::string& callee : callees(name)) {
      if (callee == target) {
        found = true;
        break;
      }
      if (visited.insert(callee).second) stack.push_back(callee);
    }
  }
  reaches_target_[from] = found;
  return found;
}

}  // namespace raxc::analysis::wf
