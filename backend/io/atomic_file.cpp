// Atomic file replacement (temporary file in the same directory + rename), see atomic_file.h.
#include "backend/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace raxc::io {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

bool write_all(int fd, std::string_view bytes, int& err) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Status write_file_atomic(const std::filesystem::path& path,
                         std::initializer_list<std::string_view> pieces) {
  static std::atomic<unsigned> counter{0};
  const std::string shown = path.string();
  if (!path.has_filename()) return io_error(shown + ": not a file name");
  std::filesystem::path dir = path.parent_path();

  // A fresh name, created exclusively so that nothing else is ever overwritten.
  std::filesystem::path temp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    std::string name = "." + path.filename().string() + ".raxc-tmp-" + std::to_string(::getpid()) +
                       "-" + std::to_string(counter++);
    temp = dir.empty() ? std::filesystem::path(name) : dir / name;
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) {
      return io_error(shown + ": cannot create a temporary file next to it: " + errno_text(errno));
    }
  }
  if (fd < 0) return io_error(shown + ": cannot create a temporary file next to it");

  auto fail = [&](const std::string& what, int err) -> Status {
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    return io_error(shown + ": " + what + (err ? ": " + errno_text(err) : std::string()));
  };

  int err = 0;
  for (std::string_view piece : pieces) {
    if (!write_all(fd, piece, err)) return fail("cannot write", err);
  }
  // An existing target keeps its permissions.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    if (::fchmod(fd, st.st_mode & 07777) != 0) return fail("cannot set permissions", errno);
  }
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return fail("cannot write", errno);
  int closing = fd;
  fd = -1;
  if (::close(closing) != 0) return fail("cannot write", errno);
  if (::rename(temp.c_str(), path.c_str()) != 0) return fail("cannot replace", errno);
  return std::nullopt;
}

}  // namespace raxc::io
