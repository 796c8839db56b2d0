; Indentation for Relax TVMScript (.rx), nvim-treesitter style.

[
  (module_class)
  (class_definition)
  (relax_function)
  (prim_function)
  (function_definition)
  (dataflow_block)
  (with_statement)
  (if_statement)
  (for_statement)
  (while_statement)
] @indent.begin

[
  (elif_clause)
  (else_clause)
] @indent.branch

; `else:` / `elif ...:` start a new branch at the `if`'s column
[
  "elif"
  "else"
] @indent.branch

; After return/pass/break/continue the next line closes the block
(block
  [
    (return_statement)
    (pass_statement)
    (break_statement)
    (continue_statement)
  ] @indent.dedent .)

; Brackets
[
  (argument_list)
  (parameters)
  (list)
  (tuple)
  (dictionary)
  (parenthesized_expression)
  (subscript)
] @indent.begin

[
  ")"
  "]"
  "}"
] @indent.end @indent.branch

; Multi-line strings keep their own indentation
(string) @indent.ignore

(comment) @indent.auto

(ERROR
  "(" @indent.align
  (#set! indent.open_delimiter "(")
  (#set! indent.close_delimiter ")"))

(ERROR
  "[" @indent.align
  (#set! indent.open_delimiter "[")
  (#set! indent.close_delimiter "]"))
