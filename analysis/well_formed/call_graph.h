// Module facts the well-formedness checks need: globals by name and which Relax functions can
// call back into a given one (WF-7 mutual recursion in dataflow blocks, WF-8 return annotations).
#pragma once
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "frontend/ir/module.h"

namespace raxc::analysis::wf {

// The global named `name`, or null. References are GlobalVar nodes compared by name; the index
// behind this is rebuilt whenever a lookup finds it stale (the engine edits modules in place).
const ir::GlobalDef* find_global(const ir::IRModule& module, std::string_view name);

// The call edges of a module's Relax functions: global name -> the globals its function calls
// (ir::called_globals).
using CallEdges = std::unordered_map<std::string, std::vector<std::string>>;

// The functions whose well-formedness verdicts can change when the call edges of the functions
// in `changed` change: `changed` themselves and every function from which a call chain (over
// `edges`, the current graph) leads to one of them. A verdict of `f` about mutual recursion
// (RX2022, RX2025) asks whether a callee of `f` reaches `f`; such a path can only change at a
// function whose edges changed, and `f` reaches the first such function on the path through
// edges that did not change. One walk over the reversed graph: linear in the edges.
std::unordered_set<std::string> affected_by_call_edges(const CallEdges& edges,
                                                       const std::vector<std::string>& changed);

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
