" Relax TVMScript is indented like Python (indent after ':', dedent after 'return').
if exists('b:did_indent')
  finish
endif
runtime! indent/python.vim
