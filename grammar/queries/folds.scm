; Folds for Relax TVMScript (.rx)
[
  (module_class)
  (class_definition)
  (relax_function)
  (prim_function)
  (function_definition)
  (dataflow_block)
  (with_statement)
  (if_statement)
  (elif_clause)
  (else_clause)
  (for_statement)
  (while_statement)
  (argument_list)
  (parameters)
  (list)
  (tuple)
  (dictionary)
  (string)
] @fold

; Runs of imports (nvim folds only nodes spanning several lines)
(import_from_statement)+ @fold
