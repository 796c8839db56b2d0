// Lexical scopes of a PrimFunc: parameters and declarations (function frame), loop variables
// (one frame per loop), block variables (one per block), lets (over the rest of their suite).
#pragma once
#include <map>
#include <string>
#include <string_view>
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
  void pop() { frames_.pop_back(); }
  void define(std::string name, Entry entry) { frames_.back()[std::move(name)] = entry; }
  bool defined_here(std::string_view name) const {
    return !frames_.empty() && frames_.back().find(name) != frames_.back().end();
  }
  // The innermost definition of `name`; it hides outer ones whatever its kind.
  const Entry* find(std::string_view name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
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
  std::vector<std::map<std::string, Entry, std::less<>>> frames_;
};

}  // namespace raxc::lower
