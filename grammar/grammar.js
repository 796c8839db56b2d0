/**
 * tree-sitter grammar for Relax TVMScript (`.rx`) files.
 *
 * The CST is Python-shaped and generic.  Node types that depend on syntax only
 * (decorator attribute names `ir_module` / `function` / `prim_func`, and the
 * `with <ns>.dataflow():` context manager) get Relax-aware node types.  The
 * contract with the C++ lowering is grammar/NODES.md.
 *
 * The external scanner (src/scanner.c) produces line ends and indentation
 * (_newline / _indent / _dedent), string bodies, the brackets (to track the
 * bracket depth for implicit line joining), the `<ns>` of
 * `with <ns>.dataflow():`, and `_reserved_word` for keywords used as names.
 *
 * Several hidden rules are dead ends (`..., $._never, $._never` where `_never`
 * is never produced): they make the scanner's error tokens or misplaced
 * keywords valid in a state only so that the parser reports an ERROR there.
 * Two `_never`s are needed: with one, error recovery would "repair" the input
 * by inserting an invisible MISSING `_never`.
 */

/* eslint-disable no-undef */

const PREC = {
  lambda: -2,
  conditional: -1,
  parenthesized: 1,
  or: 10,
  and: 11,
  not: 12,
  compare: 13,
  bitwise_or: 14,
  xor: 15,
  bitwise_and: 16,
  shift: 17,
  plus: 18,
  times: 19,
  unary: 20,
  power: 21,
  call: 22,
};

// Reserved words.  tree-sitter keywords are contextual: a keyword that is not
// valid in the current state is lexed as an identifier.  To make keywords
// never be identifiers, the external scanner emits a hidden `_reserved_word`
// token (a dead end, hence an ERROR node) where a name may start, for Python
// keywords the format never uses (yield try except finally raise global
// nonlocal async await del), for `in is and or as`, and for statement keywords
// except at the start of a statement.  `else`/`elif` at a statement start that
// does not continue an `if` are caught by `_misplaced_clause`.

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
const commaSep = (rule) => optional(commaSep1(rule));

// `<prefix>.<kw>` where <kw> is a contextual keyword shown as an identifier.
const decoratorPath = ($, kw) =>
  seq(
    field('object', $._primary_expression),
    '.',
    field('attribute', alias(kw, $.identifier)),
  );

const decoratorCall = ($, path) =>
  seq(field('function', alias(path, $.attribute)), field('arguments', $.argument_list));

// `@path` or `@path(args)` on its own line.
const classifyingDecorator = ($, path, call) =>
  seq(
    '@',
    field('value', choice(alias(path, $.attribute), alias(call, $.call))),
    $._decorator_end,
  );

// A decorator run containing the classifying decorator `special`:
// plain* special, then (left-recursively via `self`) more plain ones.
const classifiedDecorators = ($, self, special) =>
  choice(
    seq(optional($._plain_decorators), field('decorator', alias(special, $.decorator))),
    seq(self, field('decorator', $.decorator)),
  );

module.exports = grammar({
  name: 'relax',

  word: ($) => $.identifier,

  externals: ($) => [
    $._newline,
    $._indent,
    $._dedent,
    $.string_start,
    $.string_content,
    $.string_end,
    $._dataflow_namespace, // identifier right before `.dataflow` after `with`
    $._reserved_word, // yield, try, ... (see above)
    $._never, // never produced; makes reserved words dead ends
    // Brackets are lexed by the scanner so that it knows the bracket depth:
    // line ends inside brackets are whitespace (implicit line joining), line
    // ends outside brackets where a statement cannot end are syntax errors.
    '(',
    '[',
    '{',
    ')',
    ']',
    '}',
  ],

  extras: ($) => [
    $.comment,
    /[ \t\f\r\n\uFEFF]/,
    /\\\r?\n/,
  ],

  inline: ($) => [
    $._simple_statement,
    $._compound_statement,
    $._left_hand_side,
    $._suite,
  ],

  conflicts: ($) => [],

  rules: {
    source_file: ($) => repeat($._statement),

    _statement: ($) =>
      choice(
        $._simple_statements,
        $._compound_statement,
        $._indented_statements,
        $._misplaced_clause,
      ),

    // `else` / `elif` that do not continue an `if`: without this they would be
    // lexed as identifiers at a statement start (tree-sitter keywords are
    // contextual), e.g. `else = 1` or a wrongly indented `else:`.
    _misplaced_clause: ($) => seq(choice('else', 'elif'), $._never, $._never),

    // A line indented deeper than its block (Python's "unexpected indent",
    // also a dedent to a column that matches no enclosing block) and the lines
    // after it at that depth. The syntax check reports it from the lines
    // (RX1007); the tree keeps them as statements of the enclosing block
    // (the rule is hidden), so one stray space while typing costs no error
    // recovery and leaves the rest of the file's structure as it was.
    _indented_statements: ($) => seq($._indent, repeat1($._statement), $._dedent),

    // After `;`: a dead end that only makes _indent valid there, which tells
    // the scanner that a statement starts (see RESERVED_MID_STATEMENT in
    // scanner.c).
    _unexpected_indent: ($) => seq($._indent, $._never, $._never),

    // ------------------------------------------------------------------
    // Simple statements
    // ------------------------------------------------------------------

    _simple_statements: ($) =>
      seq(
        $._simple_statement,
        // (_unexpected_indent: see above)
        repeat(seq(';', choice($._simple_statement, $._unexpected_indent))),
        optional(';'),
        $._newline,
      ),

    _simple_statement: ($) =>
      choice(
        $.import_statement,
        $.import_from_statement,
        $.binding,
        $.augmented_binding,
        $.expression_statement,
        $.return_statement,
        $.pass_statement,
        $.break_statement,
        $.continue_statement,
        $.assert_statement,
      ),

    import_statement: ($) =>
      seq('import', commaSep1(field('name', $._import_name))),

    import_from_statement: ($) =>
      seq(
        'from',
        field('module_name', $.dotted_name),
        'import',
        choice(
          commaSep1(field('name', $._import_name)),
          seq('(', commaSep1(field('name', $._import_name)), optional(','), ')'),
        ),
      ),

    _import_name: ($) => choice($.dotted_name, $.aliased_import),

    aliased_import: ($) =>
      seq(field('name', $.dotted_name), 'as', field('alias', $.identifier)),

    dotted_name: ($) => prec(1, seq($.identifier, repeat(seq('.', $.identifier)))),

    binding: ($) =>
      seq(
        field('left', $._left_hand_side),
        optional(seq(':', field('annotation', $.annotation))),
        '=',
        field('right', choice($._right_hand_side, alias($._chained_binding, $.binding))),
      ),

    // `a = b = c`: valid Python, rejected by lowering; the inner binding has
    // no annotation.
    _chained_binding: ($) =>
      seq(
        field('left', choice($.identifier, $.subscript, $.attribute)),
        '=',
        field('right', choice($._right_hand_side, alias($._chained_binding, $.binding))),
      ),

    augmented_binding: ($) =>
      seq(
        field('left', $._left_hand_side),
        field('operator', choice(
          '+=', '-=', '*=', '/=', '//=', '%=', '**=', '@=',
          '<<=', '>>=', '&=', '|=', '^=',
        )),
        field('right', $._right_hand_side),
      ),

    _left_hand_side: ($) =>
      choice($.identifier, $.pattern_list, $.subscript, $.attribute),

    _right_hand_side: ($) => choice($._expression, $.expression_list),

    pattern_list: ($) =>
      seq(
        $.identifier,
        choice(
          ',',
          seq(repeat1(seq(',', $.identifier)), optional(',')),
        ),
      ),

    expression_list: ($) =>
      prec.right(seq(
        $._expression,
        choice(
          ',',
          seq(repeat1(seq(',', $._expression)), optional(',')),
        ),
      )),

    expression_statement: ($) => field('value', $._expression),

    return_statement: ($) =>
      seq('return', optional(field('value', $._right_hand_side))),

    pass_statement: (_) => 'pass',
    break_statement: (_) => 'break',
    continue_statement: (_) => 'continue',

    assert_statement: ($) =>
      seq(
        'assert',
        field('condition', $._expression),
        optional(seq(',', field('message', $._expression))),
      ),

    // ------------------------------------------------------------------
    // Compound statements
    // ------------------------------------------------------------------

    _compound_statement: ($) =>
      choice(
        $.if_statement,
        $.for_statement,
        $.while_statement,
        $.with_statement,
        $.dataflow_block,
        $.function_definition,
        $.relax_function,
        $.prim_function,
        $.class_definition,
        $.module_class,
      ),

    // A suite: either an indented block, or simple statements on the header line.
    _suite: ($) =>
      choice(
        alias($._simple_statements, $.block),
        seq($._indent, $.block),
        $._missing_block,
      ),

    // `def f():` followed by a line that is not indented deeper ("expected an
    // indented block"): the scanner emits _newline there, a dead end.
    _missing_block: ($) => seq($._newline, $._never, $._never),

    block: ($) => seq(repeat1($._statement), $._dedent),

    // Right associative: an `else`/`elif` after the suite always continues
    // this `if` (instead of starting a misplaced clause).
    if_statement: ($) =>
      prec.right(seq(
        'if',
        field('condition', $._expression),
        ':',
        field('consequence', $._suite),
        repeat(field('alternative', $.elif_clause)),
        optional(field('alternative', $.else_clause)),
      )),

    elif_clause: ($) =>
      seq(
        'elif',
        field('condition', $._expression),
        ':',
        field('consequence', $._suite),
      ),

    else_clause: ($) => seq('else', ':', field('body', $._suite)),

    for_statement: ($) =>
      seq(
        'for',
        field('left', choice($.identifier, $.pattern_list)),
        'in',
        field('right', $._expression),
        ':',
        field('body', $._suite),
      ),

    while_statement: ($) =>
      seq('while', field('condition', $._expression), ':', field('body', $._suite)),

    with_statement: ($) =>
      seq(
        'with',
        commaSep1(field('item', $.with_item)),
        ':',
        field('body', $._suite),
      ),

    with_item: ($) =>
      seq(
        field('value', $._expression),
        optional(seq('as', field('alias', $._expression))),
      ),

    // `with R.dataflow():` -- the scanner recognises the namespace identifier
    // only when it is followed by `.dataflow`.
    dataflow_block: ($) =>
      seq(
        'with',
        field('namespace', alias($._dataflow_namespace, $.identifier)),
        '.',
        'dataflow',
        '(',
        ')',
        ':',
        field('body', $._suite),
      ),

    // ------------------------------------------------------------------
    // Definitions
    // ------------------------------------------------------------------

    decorator: ($) => seq('@', field('value', $._expression), $._decorator_end),

    // The decorated definition must start at the decorator's column.
    _decorator_end: ($) =>
      seq($._newline, optional(seq(choice($._indent, $._dedent), $._never, $._never))),

    // Classifying decorators: the last attribute name decides the node type.
    // `ir_module`, `function` and `prim_func` are keywords only right after
    // the `.` of a decorator path (keyword extraction makes them contextual).
    _module_path: ($) => decoratorPath($, 'ir_module'),
    _relax_path: ($) => decoratorPath($, 'function'),
    _prim_path: ($) => decoratorPath($, 'prim_func'),
    _module_call: ($) => decoratorCall($, $._module_path),
    _relax_call: ($) => decoratorCall($, $._relax_path),
    _prim_call: ($) => decoratorCall($, $._prim_path),
    _module_decorator: ($) => classifyingDecorator($, $._module_path, $._module_call),
    _relax_decorator: ($) => classifyingDecorator($, $._relax_path, $._relax_call),
    _prim_decorator: ($) => classifyingDecorator($, $._prim_path, $._prim_call),

    // Decorator runs, classified left to right: a run is "plain" until a
    // classifying decorator appears; generic decorators may surround it.
    // A second classifying decorator is a syntax error.
    _plain_decorators: ($) =>
      seq(optional($._plain_decorators), field('decorator', $.decorator)),
    _module_decorators: ($) =>
      classifiedDecorators($, $._module_decorators, $._module_decorator),
    _relax_decorators: ($) =>
      classifiedDecorators($, $._relax_decorators, $._relax_decorator),
    _prim_decorators: ($) =>
      classifiedDecorators($, $._prim_decorators, $._prim_decorator),

    module_class: ($) => seq($._module_decorators, $._class_rest),

    class_definition: ($) =>
      seq(
        optional(choice($._plain_decorators, $._relax_decorators, $._prim_decorators)),
        $._class_rest,
      ),

    relax_function: ($) => seq($._relax_decorators, $._def_rest),

    prim_function: ($) => seq($._prim_decorators, $._def_rest),

    function_definition: ($) =>
      seq(optional(choice($._plain_decorators, $._module_decorators)), $._def_rest),

    _class_rest: ($) =>
      seq(
        'class',
        $._name,
        optional(field('superclasses', $.argument_list)),
        ':',
        field('body', $._suite),
      ),

    _def_rest: ($) =>
      seq(
        'def',
        $._name,
        optional(field('type_parameters', $.type_parameters)),
        field('parameters', $.parameters),
        optional(seq('->', field('return_type', $.annotation))),
        ':',
        field('body', $._suite),
      ),

    type_parameters: ($) =>
      seq('[', commaSep1($.identifier), optional(','), ']'),

    parameters: ($) => seq('(', commaSep($.parameter), optional(','), ')'),

    parameter: ($) =>
      seq(
        $._name,
        optional(seq(':', field('annotation', $.annotation))),
      ),

    annotation: ($) => field('value', $._expression),

    // A name in a definition position; reserved words are rejected.
    _name: ($) => choice(field('name', $.identifier), $._reserved_use),

    // Two never-produced tokens: a single one would be "repaired" by the
    // parser inserting it as an invisible MISSING token; with two, error
    // recovery has to produce an ERROR node.
    _reserved_use: ($) => seq($._reserved_word, $._never, $._never),

    // ------------------------------------------------------------------
    // Expressions
    // ------------------------------------------------------------------

    _expression: ($) =>
      choice(
        $._primary_expression,
        $.comparison_operator,
        $.not_operator,
        $.boolean_operator,
        $.conditional_expression,
        $.lambda,
      ),

    _primary_expression: ($) =>
      choice(
        $.identifier,
        $.integer,
        $.float,
        $.string,
        $.concatenated_string,
        $.true,
        $.false,
        $.none,
        $.attribute,
        $.call,
        $.subscript,
        $.binary_operator,
        $.unary_operator,
        $.parenthesized_expression,
        $.tuple,
        $.list,
        $.dictionary,
        $._reserved_use,
      ),

    // The dead end after the dot only makes the scanner run there, so that a
    // line ending right after the dot (`z = R.nn.` while typing) ends the
    // statement instead of joining the next line's first name to the
    // attribute.  Any word after a dot is still an attribute name.
    attribute: ($) =>
      prec(PREC.call, seq(
        field('object', $._primary_expression),
        '.',
        choice(field('attribute', $.identifier), seq($._never, $._never)),
      )),

    call: ($) =>
      prec(PREC.call, seq(
        field('function', $._primary_expression),
        field('arguments', $.argument_list),
      )),

    argument_list: ($) =>
      seq(
        '(',
        commaSep(choice($._expression, $.keyword_argument)),
        optional(','),
        ')',
      ),

    keyword_argument: ($) =>
      seq(field('name', $.identifier), '=', field('value', $._expression)),

    subscript: ($) =>
      prec(PREC.call, seq(
        field('value', $._primary_expression),
        '[',
        commaSep1(field('subscript', choice($._expression, $.slice))),
        optional(','),
        ']',
      )),

    slice: ($) =>
      seq(
        optional(field('start', $._expression)),
        ':',
        optional(field('stop', $._expression)),
        optional(seq(':', optional(field('step', $._expression)))),
      ),

    binary_operator: ($) => {
      const table = [
        [prec.left, '+', PREC.plus],
        [prec.left, '-', PREC.plus],
        [prec.left, '*', PREC.times],
        [prec.left, '@', PREC.times],
        [prec.left, '/', PREC.times],
        [prec.left, '%', PREC.times],
        [prec.left, '//', PREC.times],
        [prec.right, '**', PREC.power],
        [prec.left, '|', PREC.bitwise_or],
        [prec.left, '&', PREC.bitwise_and],
        [prec.left, '^', PREC.xor],
        [prec.left, '<<', PREC.shift],
        [prec.left, '>>', PREC.shift],
      ];
      return choice(...table.map(([fn, operator, precedence]) => fn(precedence, seq(
        field('left', $._primary_expression),
        field('operator', operator),
        field('right', $._primary_expression),
      ))));
    },

    unary_operator: ($) =>
      prec(PREC.unary, seq(
        field('operator', choice('-', '+', '~')),
        field('argument', $._primary_expression),
      )),

    not_operator: ($) =>
      prec(PREC.not, seq('not', field('argument', $._expression))),

    boolean_operator: ($) =>
      choice(
        prec.left(PREC.and, seq(
          field('left', $._expression),
          field('operator', 'and'),
          field('right', $._expression),
        )),
        prec.left(PREC.or, seq(
          field('left', $._expression),
          field('operator', 'or'),
          field('right', $._expression),
        )),
      ),

    comparison_operator: ($) =>
      prec.left(PREC.compare, seq(
        field('left', choice($._primary_expression, $.comparison_operator)),
        field('operator', choice(
          '<', '<=', '>', '>=', '==', '!=',
          'in', alias(seq('not', 'in'), 'not in'),
          'is', alias(seq('is', 'not'), 'is not'),
        )),
        field('right', $._primary_expression),
      )),

    conditional_expression: ($) =>
      prec.right(PREC.conditional, seq(
        field('consequence', $._expression),
        'if',
        field('condition', $._expression),
        'else',
        field('alternative', $._expression),
      )),

    lambda: ($) =>
      prec(PREC.lambda, seq(
        'lambda',
        optional(field('parameters', $.lambda_parameters)),
        ':',
        field('body', $._expression),
      )),

    lambda_parameters: ($) => seq(commaSep1($.identifier), optional(',')),

    parenthesized_expression: ($) =>
      prec(PREC.parenthesized, seq('(', field('value', $._expression), ')')),

    tuple: ($) =>
      seq(
        '(',
        optional(seq(
          $._expression,
          choice(',', seq(repeat1(seq(',', $._expression)), optional(','))),
        )),
        ')',
      ),

    list: ($) => seq('[', commaSep($._expression), optional(','), ']'),

    dictionary: ($) => seq('{', commaSep($.pair), optional(','), '}'),

    pair: ($) =>
      seq(field('key', $._expression), ':', field('value', $._expression)),

    // ------------------------------------------------------------------
    // Literals
    // ------------------------------------------------------------------

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,

    true: (_) => 'True',
    false: (_) => 'False',
    none: (_) => 'None',

    integer: (_) => token(choice(
      /0[xX](_?[0-9a-fA-F])+/,
      /0[oO](_?[0-7])+/,
      /0[bB](_?[01])+/,
      /[0-9](_?[0-9])*/,
    )),

    float: (_) => {
      const digits = /[0-9](_?[0-9])*/;
      const exponent = seq(/[eE][+-]?/, digits);
      return token(choice(
        seq(digits, '.', optional(digits), optional(exponent)),
        seq('.', digits, optional(exponent)),
        seq(digits, exponent),
      ));
    },

    string: ($) =>
      seq(
        $.string_start,
        repeat(choice($.string_content, $.escape_sequence)),
        $.string_end,
      ),

    concatenated_string: ($) => seq($.string, repeat1($.string)),

    escape_sequence: (_) => token.immediate(prec(1, seq(
      '\\',
      choice(
        /x[0-9a-fA-F]{2}/,
        /u[0-9a-fA-F]{4}/,
        /U[0-9a-fA-F]{8}/,
        /N\{[^}\r\n]*\}/,
        /[0-7]{1,3}/,
        /\r?\n/,
        /[^\r\n]/,
      ),
    ))),

    comment: (_) => token(seq('#', /[^\r\n]*/)),
  },
});
