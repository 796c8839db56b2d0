; Scopes, definitions and references for Relax TVMScript (.rx).
; Relax and TIR functions, classes and lambdas open scopes; so do the blocks
; of if/else and dataflow blocks (names bound inside them are not visible
; after them, text-format.md §10 items 3 and 4).

; Scopes
[
  (source_file)
  (module_class)
  (class_definition)
  (relax_function)
  (prim_function)
  (function_definition)
  (lambda)
  (dataflow_block)
  (if_statement)
  (elif_clause)
  (else_clause)
] @local.scope

; Definitions
(relax_function
  name: (identifier) @local.definition)

(prim_function
  name: (identifier) @local.definition)

(function_definition
  name: (identifier) @local.definition)

(module_class
  name: (identifier) @local.definition)

(class_definition
  name: (identifier) @local.definition)

(type_parameters
  (identifier) @local.definition)

(parameter
  name: (identifier) @local.definition)

(lambda_parameters
  (identifier) @local.definition)

(binding
  left: (identifier) @local.definition)

(binding
  left: (pattern_list
    (identifier) @local.definition))

(augmented_binding
  left: (identifier) @local.definition)

(for_statement
  left: (identifier) @local.definition)

(for_statement
  left: (pattern_list
    (identifier) @local.definition))

(with_item
  alias: (identifier) @local.definition)

(aliased_import
  alias: (identifier) @local.definition)

(import_statement
  name: (dotted_name
    .
    (identifier) @local.definition))

(import_from_statement
  name: (dotted_name
    (identifier) @local.definition))

; References
(identifier) @local.reference
