// What `raxc run`'s kernels (kernel_objects.cpp) and `raxc build` (library.cpp) share: LLVM's
// native target set up once, this machine's CPU with all its features as the target (the
// measured choice of ../shared/research/backend.md: code for the host, FMA contraction allowed),
// and LLVM's O2 module pipeline. One definition, so `raxc run` and `raxc build` compile the same
// code.
#pragma once
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <chrono>
#include <optional>
#include <string>

namespace raxc::backend {

// Registers the native target and its assembly printer (once per process).
void initialize_llvm();

// This CPU with its features, O3 code generation and fused multiply-add; `pic` adds
// position-independent code (a shared library). On failure returns nullopt and sets `error`.
std::optional<llvm::orc::JITTargetMachineBuilder> host_target(std::string* error, bool pic = false);

// Runs LLVM's default O2 module pipeline for `tm` on `module`. Not O3: what O3 adds (non-trivial
// loop unswitching above all, which copies a softmax's row loop once per invariant condition)
// made the transformer block's kernels 2.7x slower to compile, and the kernels it gave ran no
// faster (the same instruction counts under callgrind for softmax, layer_norm and the GELU
// chain; the same times for the transformer, MLP and ResNet-18 modules of test/bench/perf).
void optimize_module(llvm::Module& module, llvm::TargetMachine& tm);

// `module`'s machine code for `tm`: an object file or assembly text; nullopt when the target
// cannot emit that kind of file.
std::optional<std::string> machine_code(llvm::Module& module, llvm::TargetMachine& tm,
                                        llvm::CodeGenFileType type);

// Milliseconds since `start` (compile-time statistics).
double ms_since(std::chrono::steady_clock::time_point start);

}  // namespace raxc::backend
