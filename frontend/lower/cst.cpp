#include "frontend/lower/cst.h"

#include <cstring>
#include <string_view>

namespace raxc::cst {

namespace {
constexpr const char* kKindNames[] = {
#define RAXC_CST_NAME(name) #name,
    RAXC_CST_KINDS(RAXC_CST_NAME)
#undef RAXC_CST_NAME
};
constexpr const char* kFieldNames[] = {
#define RAXC_CST_NAME(name) #name,
    RAXC_CST_FIELDS(RAXC_CST_NAME)
#undef RAXC_CST_NAME
};
// The grammar's name for an enumerator: keywords were spelled with a trailing '_'.
std::string_view grammar_name(const char* enumerator) {
  std::string_view name(enumerator);
  if (!name.empty() && name.back() == '_') name.remove_suffix(1);
  return name;
}
}  // namespace

const Language& Language::get() {
  static const Language instance;
  return instance;
}

Language::Language() : language_(tree_sitter_relax()) {
  uint32_t count = ts_language_symbol_count(language_);
  kind_by_symbol_.assign(count, Kind::Other);
  for (uint32_t symbol = 0; symbol < count; ++symbol) {
    if (ts_language_symbol_type(language_, TSSymbol(symbol)) != TSSymbolTypeRegular) continue;
    const char* name = ts_language_symbol_name(language_, TSSymbol(symbol));
    for (size_t k = 0; k < std::size(kKindNames); ++k)
      if (grammar_name(kKindNames[k]) == name) kind_by_symbol_[symbol] = Kind(k);
  }
  for (size_t f = 0; f < size_t(Field::Count); ++f) {
    std::string_view field = grammar_name(kFieldNames[f]);
    fields_[f] = ts_language_field_id_for_name(language_, field.data(), uint32_t(field.size()));
  }
}

Kind Language::kind(TSNode node) const {
  TSSymbol symbol = ts_node_symbol(node);
  return symbol < kind_by_symbol_.size() ? kind_by_symbol_[symbol] : Kind::Other;
}

namespace {
// One cursor per thread, reset onto each node asked about: a new cursor costs a heap
// allocation, and its stack keeps its capacity across resets.
class ThreadCursor {
 public:
  ThreadCursor() : cursor_(ts_tree_cursor_new(TSNode{})) {}
  ~ThreadCursor() { ts_tree_cursor_delete(&cursor_); }
  ThreadCursor(const ThreadCursor&) = delete;
  ThreadCursor& operator=(const ThreadCursor&) = delete;
  TSTreeCursor* at(TSNode node) {
    ts_tree_cursor_reset(&cursor_, node);
    return &cursor_;
  }

 private:
  TSTreeCursor cursor_;
};

TSTreeCursor* cursor_at(TSNode node) {
  thread_local ThreadCursor cursor;
  return cursor.at(node);
}
}  // namespace

std::vector<TSNode> Cst::fields(TSNode node, Field f) const {
  std::vector<TSNode> result;
  TSFieldId id = lang_.field_id(f);
  if (id == 0) return result;
  TSTreeCursor* cursor = cursor_at(node);
  if (ts_tree_cursor_goto_first_child(cursor)) {
    do {
      if (ts_tree_cursor_current_field_id(cursor) == id)
        result.push_back(ts_tree_cursor_current_node(cursor));
    } while (ts_tree_cursor_goto_next_sibling(cursor));
  }
  return result;
}

std::vector<TSNode> Cst::named_children(TSNode node) const {
  std::vector<TSNode> result;
  // ts_node_named_child(i) is linear in i, which makes long suites quadratic; a cursor step
  // costs about five of its steps. Short lists (most nodes the lowering asks about: a call's
  // arguments, a binding's sides) are read by index, long ones with the thread's cursor. The
  // count is stored in the node: the list is allocated once.
  constexpr uint32_t kIndexedUpTo = 6;
  uint32_t count = ts_node_named_child_count(node);
  result.reserve(count);
  if (count <= kIndexedUpTo) {
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(node, i);
      if (kind(child) != Kind::comment) result.push_back(child);
    }
    return result;
  }
  TSTreeCursor* cursor = cursor_at(node);
  if (ts_tree_cursor_goto_first_child(cursor)) {
    do {
      TSNode child = ts_tree_cursor_current_node(cursor);
      if (ts_node_is_named(child) && kind(child) != Kind::comment) result.push_back(child);
    } while (ts_tree_cursor_goto_next_sibling(cursor));
  }
  return result;
}

}  // namespace raxc::cst
