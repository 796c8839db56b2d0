// Runtime errors as data: what raxc_fail() recorded, or what the executor raises, before the
// driver turns it into a located diagnostic. The runtime knows diagnostic codes only by their
// public text ("RX5003") so it needs nothing of the compiler; the driver looks the code up in
// the registry (frontend/diagnostics.def) and fills the template with `args`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace raxc::runtime {

struct RuntimeError {
  std::string code;               // "RX5003"
  uint32_t begin = 0, end = 0;    // byte offsets into the .rx source; begin == end: unknown
  std::vector<std::string> args;  // the message template's arguments, in order
  // The whole message as raxc_last_error() returns it, when a built library's entry has located
  // it in its source (raxc_rt_locate); empty otherwise.
  std::string rendered;
};

// The error recorded on this thread by raxc_fail() / raxc_workspace_alloc(), if any; taking it
// clears it.
std::optional<RuntimeError> take_last_error();
void set_last_error(RuntimeError error);

}  // namespace raxc::runtime
