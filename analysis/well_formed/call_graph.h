// Module facts the well-formedness checks need: globals by name and which Relax functions can
// call back into a given one (WF-7 mutual recursion in dataflow blocks, WF-8 return annotations).
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/ir/module.h"

namespace raxc::analysis::wf {

// The global named `name`, or null. References are GlobalVar nodes compared by name; the index
// behind this is rebuilt whenever a lookup finds it stale (the engine edits modules in place).
const ir::GlobalDef* find_global(const ir::IRModule& module, std::string_view name);

// Names of the globals called (GlobalVar in callee position) anywhere in `f`, nested
// functions included, in first-call order without duplicates.
std::vector<std::string> callees_of(const ir::Function* f);

// Reachability over the call graph of the module's Relax functions, computed lazily: only the
// functions reachable from the asked-about callee are walked, and each at most once.
class CallGraph {
 public:
  explicit CallGraph(const ir::IRModule& module) : module_(module) {}
  // True when a call chain leads from global `from` to global `target`.
  bool reaches(const std::string& from, const std::string& target);

 private:
  const std::vector<std::string>& callees(const std::string& name);

  const ir::IRModule& module_;
  std::unordered_map<std::string, std::vector<std::string>> callees_;
  std::unordered_map<std::string, bool> reaches_target_;  // for the target of the last query
  std::string target_;
};

}  // namespace raxc::analysis::wf
