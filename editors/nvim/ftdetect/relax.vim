" Relax TVMScript files. ftdetect/*.vim is sourced by every Neovim (and Vim).
autocmd BufRead,BufNewFile *.rx setfiletype relax
