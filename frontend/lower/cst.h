// Thin helpers over tree-sitter's C API for the lowering: node kinds resolved once to symbol
// ids (fast comparisons), field access by precomputed field id, source text and spans.
// Node and field names are those of grammar/NODES.md.
#pragma once
#include <tree_sitter/api.h>

#include <string_view>
#include <vector>

#include "frontend/span.h"

extern "C" const TSLanguage* tree_sitter_relax(void);

namespace raxc::cst {

// Every named node type the lowering distinguishes. Add names here (and in the .cpp table).
// Names that are C++ keywords take a trailing '_' (float_, true_, operator_); cst.cpp strips it.
#define RAXC_CST_KINDS(X)                                                                          \
  X(source_file)                                                                                   \
  X(import_from_statement) X(import_statement) X(aliased_import) X(dotted_name) X(comment)         \
      X(decorator) X(module_class) X(relax_function) X(prim_function) X(function_definition)       \
          X(class_definition) X(type_parameters) X(parameters) X(parameter) X(annotation) X(block) \
              X(binding) X(augmented_binding) X(pattern_list) X(expression_list)                   \
                  X(expression_statement) X(return_statement) X(pass_statement) X(break_statement) \
                      X(continue_statement) X(assert_statement) X(if_statement) X(elif_clause)     \
                          X(else_clause) X(for_statement) X(while_statement) X(dataflow_block)     \
                              X(with_statement) X(with_item) X(identifier) X(integer) X(float_)    \
                                  X(true_) X(false_) X(none) X(string) X(string_content)           \
                                      X(escape_sequence) X(concatenated_string) X(attribute)       \
                                          X(call) X(argument_list) X(keyword_argument)             \
                                              X(subscript) X(slice) X(binary_operator)             \
                                                  X(unary_operator) X(not_operator)                \
                                                      X(boolean_operator) X(comparison_operator)   \
                                                          X(conditional_expression) X(lambda)      \
                                                              X(lambda_parameters)                 \
                                                                  X(parenthesized_expression)      \
                                                                      X(tuple) X(list)             \
                                                                          X(dictionary) X(pair)

enum class Kind : uint16_t {
#define RAXC_CST_ENUM(name) name,
  RAXC_CST_KINDS(RAXC_CST_ENUM)
#undef RAXC_CST_ENUM
      Other,
};

#define RAXC_CST_FIELDS(X)                                                                        \
  X(module_name)                                                                                  \
  X(name) X(alias) X(value) X(decorator) X(superclasses) X(body) X(type_parameters) X(parameters) \
      X(return_type) X(annotation) X(left) X(right) X(operator_) X(condition) X(message)          \
          X(consequence) X(alternative) X(namespace_) X(item) X(object) X(attribute) X(function)  \
              X(arguments) X(subscript) X(start) X(stop) X(step) X(argument) X(key)

enum class Field : uint8_t {
#define RAXC_CST_ENUM(name) name,
  RAXC_CST_FIELDS(RAXC_CST_ENUM)
#undef RAXC_CST_ENUM
      Count,
};

// Resolves symbol and field ids of the relax language once; cheap to share.
class Language {
 public:
  static const Language& get();
  Kind kind(TSNode node) const;
  TSFieldId field_id(Field field) const { return fields_[size_t(field)]; }
  const TSLanguage* ts() const { return language_; }

 private:
  Language();
  const TSLanguage* language_;
  std::vector<Kind> kind_by_symbol_;
  TSFieldId fields_[size_t(Field::Count)];
};

// An ERROR node (tree-sitter 0.20.7 has no ts_node_is_error; its symbol is the builtin -1).
inline bool is_error(TSNode node) { return ts_node_symbol(node) == TSSymbol(-1); }

// A view of one parsed file: the source text plus node helpers.
class Cst {
 public:
  explicit Cst(std::string_view text) : text_(text), lang_(Language::get()) {}
  // `span_bias` is added to every span(): the Engine lowers a re-parsed definition into its own
  // range of offsets, so spans of old and new lowerings never collide (analysis/engine.h).
  Cst(std::string_view text, uint32_t span_bias)
      : text_(text), lang_(Language::get()), span_bias_(span_bias) {}

  Kind kind(TSNode node) const { return lang_.kind(node); }
  bool is(TSNode node, Kind k) const { return !ts_node_is_null(node) && kind(node) == k; }
  // A missing node (an absent field of a malformed construct) has empty text at offset 0: the
  // lowering reports what is missing instead of crashing on it.
  std::string_view text(TSNode node) const {
    if (ts_node_is_null(node)) return {};
    uint32_t b = ts_node_start_byte(node), e = ts_node_end_byte(node);
    return text_.substr(b, e - b);
  }
  Span span(TSNode node) const {
    if (ts_node_is_null(node)) return {span_bias_, span_bias_};
    return {ts_node_start_byte(node) + span_bias_, ts_node_end_byte(node) + span_bias_};
  }
  uint32_t span_bias() const { return span_bias_; }
  TSNode field(TSNode node, Field f) const {
    return ts_node_child_by_field_id(node, lang_.field_id(f));
  }
  // Every child carrying field `f`, in order (fields may repeat: decorators, import names).
  std::vector<TSNode> fields(TSNode node, Field f) const;
  // Named children, skipping comments.
  std::vector<TSNode> named_children(TSNode node) const;
  std::string_view source() const { return text_; }

 private:
  std::string_view text_;
  const Language& lang_;
  uint32_t span_bias_ = 0;
};

}  // namespace raxc::cst
