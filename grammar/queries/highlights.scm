; Highlights for Relax TVMScript (.rx), nvim-treesitter capture names.
;
; Precedence works for both consumers:
;  - tree-sitter-highlight (the CLI, Helix, ...) uses the FIRST pattern that
;    matches a node, so specific patterns come first;
;  - Neovim lets the LATER pattern win at equal priority, so specific
;    patterns also carry a higher `priority` and the catch-alls a lower one.
; Only #match?/#eq? predicates are used: the tree-sitter 0.20.7 CLI silently
; ignores #any-of?.

; ---------------------------------------------------------------------------
; Comments, literals
; ---------------------------------------------------------------------------

(comment) @comment @spell

; Dtype strings: "float32", "int64", "bool", "float8_e4m3fn", "float32x4", ...
((string
  (string_content) @type.builtin)
  (#match? @type.builtin "^(u?int(8|16|32|64)|float(8|16|32|64)|bfloat16|bool|float8_e[0-9a-z_]+|float4_e[0-9a-z_]+|handle|void)(x[0-9]+)?$")
  (#set! priority 105))

; Docstrings
(module_class
  body: (block
    .
    (expression_statement
      (string) @string.documentation @spell)))

(relax_function
  body: (block
    .
    (expression_statement
      (string) @string.documentation @spell)))

(prim_function
  body: (block
    .
    (expression_statement
      (string) @string.documentation @spell)))

(function_definition
  body: (block
    .
    (expression_statement
      (string) @string.documentation @spell)))

(class_definition
  body: (block
    .
    (expression_statement
      (string) @string.documentation @spell)))

(escape_sequence) @string.escape

(string) @string

(integer) @number

(float) @number.float

[
  (true)
  (false)
] @boolean

(none) @constant.builtin

; ---------------------------------------------------------------------------
; Decorators
; ---------------------------------------------------------------------------

(decorator
  "@" @attribute)

(decorator
  value: (identifier) @attribute)

(decorator
  value: (attribute
    attribute: (identifier) @attribute)
  (#set! priority 110))

(decorator
  value: (call
    function: (identifier) @attribute)
  (#set! priority 110))

(decorator
  value: (call
    function: (attribute
      attribute: (identifier) @attribute))
  (#set! priority 110))

; ---------------------------------------------------------------------------
; Types: StructInfo / TIR types in annotations and StructInfo constructors
; ---------------------------------------------------------------------------

; R.Tensor, R.Shape, R.Prim, R.Tuple, R.Object, R.Any, R.Callable, T.Buffer,
; T.handle, ... anywhere (they are StructInfo also in out_sinfo=, sinfo_args=).
((attribute
  attribute: (identifier) @type.builtin)
  (#match? @type.builtin "^(Tensor|Shape|Prim|Tuple|Object|Any|Callable|DTensor|Buffer|handle|let)$")
  (#set! priority 110))

; T.int64, T.float32, T.bool, ... used as annotations (PrimStructInfo / TIR
; scalar types); elsewhere T.int64(...) is a call.
(annotation
  value: (attribute
    attribute: (identifier) @type.builtin)
  (#set! priority 110))

(annotation
  value: (subscript
    value: (attribute
      attribute: (identifier) @type.builtin)
    subscript: (attribute
      attribute: (identifier) @type.builtin))
  (#set! priority 110))

(annotation
  value: (identifier) @type
  (#set! priority 110))

(type_parameters
  (identifier) @type.definition)

(module_class
  name: (identifier) @type.definition)

(class_definition
  name: (identifier) @type.definition)

; ---------------------------------------------------------------------------
; Functions
; ---------------------------------------------------------------------------

(relax_function
  name: (identifier) @function)

(prim_function
  name: (identifier) @function)

(function_definition
  name: (identifier) @function)

(dataflow_block
  "dataflow" @function.builtin)

; R.add(...), T.max(...), I.module_attrs(...)
; (no helper captures such as @_ns: tree-sitter-highlight 0.20 would let them
; claim the node and leave it uncoloured)
(call
  function: (attribute
    object: (identifier) @module
    attribute: (identifier) @function.call)
  (#match? @module "^[RTI]$")
  (#set! priority 105))

; R.nn.conv2d(...), tvm.ir.load_json(...)
(call
  function: (attribute
    object: (attribute)
    attribute: (identifier) @function.call)
  (#set! priority 105))

; cls.f(...), Module.f(...), x.method(...)
(call
  function: (attribute
    attribute: (identifier) @function.method.call)
  (#set! priority 102))

(call
  function: (identifier) @function.builtin
  (#match? @function.builtin "^(range|TypeVar)$")
  (#set! priority 105))

(call
  function: (identifier) @function.call
  (#set! priority 102))

; ---------------------------------------------------------------------------
; Namespaces and modules
; ---------------------------------------------------------------------------

(dataflow_block
  namespace: (identifier) @module)

((attribute
  object: (identifier) @module)
  (#match? @module "^([RTI]|tvm|relax|tir|tirx|ir)$")
  (#set! priority 105))

; R.nn, R.memory, R.vm, T.axis, tvm.script, tvm.ir, ...
((attribute
  object: (attribute
    attribute: (identifier) @module))
  (#match? @module "^(nn|memory|vm|builtin|axis|script|ir|op|image|ccl|distributed|grad|qnn|relax|tir|tirx)$")
  (#set! priority 105))

(import_from_statement
  module_name: (dotted_name
    (identifier) @module))

(import_statement
  name: (dotted_name
    (identifier) @module))

(aliased_import
  name: (dotted_name
    (identifier) @module))

(aliased_import
  alias: (identifier) @module)

(import_from_statement
  name: (dotted_name
    (identifier) @variable))

; ---------------------------------------------------------------------------
; Variables
; ---------------------------------------------------------------------------

(parameter
  name: (identifier) @variable.parameter)

(lambda_parameters
  (identifier) @variable.parameter)

(keyword_argument
  name: (identifier) @variable.parameter)

((identifier) @variable.builtin
  (#match? @variable.builtin "^(cls|metadata)$")
  (#set! priority 101))

(attribute
  attribute: (identifier) @variable.member
  (#set! priority 99))

((identifier) @variable
  (#set! priority 95))

; ---------------------------------------------------------------------------
; Keywords, operators, punctuation
; ---------------------------------------------------------------------------

[
  "def"
  "lambda"
] @keyword.function

"return" @keyword.return

[
  "if"
  "elif"
  "else"
] @keyword.conditional

(conditional_expression
  [
    "if"
    "else"
  ] @keyword.conditional.ternary)

[
  "for"
  "while"
  (break_statement)
  (continue_statement)
] @keyword.repeat

[
  "import"
  "from"
  "as"
] @keyword.import

[
  "and"
  "or"
  "not"
  "in"
  "is"
  "not in"
  "is not"
] @keyword.operator

[
  "class"
  "with"
  "assert"
  (pass_statement)
] @keyword

[
  "+"
  "-"
  "*"
  "/"
  "//"
  "%"
  "**"
  "@"
  "<<"
  ">>"
  "&"
  "|"
  "^"
  "~"
  "<"
  "<="
  ">"
  ">="
  "=="
  "!="
  "="
  "+="
  "-="
  "*="
  "/="
  "//="
  "%="
  "**="
  "@="
  "<<="
  ">>="
  "&="
  "|="
  "^="
  "->"
] @operator

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  "."
  ":"
  ";"
] @punctuation.delimiter
