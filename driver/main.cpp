// raxc — the command line: parse, fmt, check (and, as later stages land, run/build/lsp).
#include "driver/commands.h"

int main(int argc, char** argv) {
  // The frontend recurses over nested input; give it a generous stack of its own.
  int status = raxc::driver::kExitUsage;
  raxc::driver::run_with_large_stack([&] { status = raxc::driver::run(argc, argv); });
  return status;
}
