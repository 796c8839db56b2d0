// Lexical scopes of a PrimFunc: parameters and declarations (function frame), loop variables
// (one frame per loop), block variables (one per block), lets (over the rest of their suite).
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontend/lower/prim.h"

namespace raxc::lower {

class TirNames : public PrimNames {
 public:
  struct Entry {
    const ir::PrimVar* var = nullptr;
    const ir::Buffer* buffer = nullptr;
    const ir::PrimExpr* expr = nullptr;  // mutable local scalar: a load of its 0-d buffer
    bool is_handle_param = false;
    // `for iters in T.grid(a, b):` binds one name to the tuple of loop variables.
    const std::vector<const ir::PrimVar*>* loop_tuple = nullptr;
  };

  void push() { frames_.emplace_back(); }
  void pop() {
    for (const std::string& name : frames_.back()) {
      auto it = by_name_.find(name);
      it->second.pop_back();
      if (it->second.empty()) by_name_.erase(it);
    }
    frames_.pop_back();
  }
  void define(std::string name, Entry entry) {
    auto& stack = by_name_[name];
    if (!stack.empty() && stack.back().depth == frames_.size()) {
      stack.back().entry = entry;  // redefinition in the same frame (reported by the caller)
      return;
    }
    stack.push_back({frames_.size(), entry});
    frames_.back().push_back(std::move(name));
  }
  bool defined_here(std::string_view name) const {
    auto it = by_name_.find(name);
    return it != by_name_.end() && it->second.back().depth == frames_.size();
  }
  // The innermost definition of `name`; it hides outer ones whatever its kind.
  const Entry* find(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &it->second.back().entry;
  }

  const ir::PrimVar* find_var(std::string_view name) const override {
    const Entry* e = find(name);
    return e ? e->var : nullptr;
  }
  const ir::Buffer* find_buffer(std::string_view name) const override {
    const Entry* e = find(name);
    return e ? e->buffer : nullptr;
  }
  const ir::PrimExpr* find_expr(std::string_view name) const override {
    const Entry* e = find(name);
    return e ? e->expr : nullptr;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Scoped {
    size_t depth;  // frames_.size() when defined
    Entry entry;
  };
  // One lookup per name whatever the nesting depth: a long chain of lets opens one frame each.
  std::unordered_map<std::string, std::vector<Scoped>, Hash, std::equal_to<>> by_name_;
  std::vector<std::vector<std::string>> frames_;  // the names each frame defined
};

}  // namespace raxc::lower
