// Writing a file without ever truncating an existing one in place: the bytes go to a new
// temporary file in the target's directory (".NAME.raxc-tmp-PID-N", created exclusively with
// the process umask applied), which is flushed and then renamed over the target; on any failure
// the temporary file is removed and the target is left as it was. An existing target keeps its
// permission bits.
#pragma once
#include <filesystem>
#include <initializer_list>
#include <string_view>

#include "backend/io/io_error.h"

namespace raxc::io {

// Writes the concatenation of `pieces` to `path` atomically (see above).
Status write_file_atomic(const std::filesystem::path& path,
                         std::initializer_list<std::string_view> pieces);

}  // namespace raxc::io
