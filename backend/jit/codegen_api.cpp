// The table libraxc-codegen.so hands the executable (codegen_api.h): the one exported entry.
#include "backend/jit/codegen_api.h"

#include "backend/jit/kernel_objects.h"
#include "backend/jit/library.h"

#ifndef RAXC_BUILD_TAG
#error "RAXC_BUILD_TAG must name the build (backend/CMakeLists.txt)"
#endif

extern "C" const void* raxc_codegen_api() {
  using namespace raxc::backend;
  static const CodegenApi api{
      .size = sizeof(CodegenApi),
      .version = RAXC_BUILD_TAG,
      .compile_kernels = &compile_kernels,
      .kernels_llvm_ir = &kernels_llvm_ir,
      .build_library = &build_library,
      .public_functions = &public_functions,
      .library_header = &relax_library_header,
  };
  return &api;
}
