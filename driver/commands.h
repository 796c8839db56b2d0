#pragma once
#include <functional>

namespace raxc::driver {

// Exit statuses of every subcommand.
inline constexpr int kExitClean = 0;
inline constexpr int kExitErrors = 1;  // diagnostics with errors were reported
inline constexpr int kExitUsage = 2;   // bad usage or an I/O error

int run(int argc, char** argv);
void run_with_large_stack(const std::function<void()>& body);

}  // namespace raxc::driver
