// ELF headers, program headers and notes read with pread (elf_file.h).
#include "backend/exec/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>
#include <vector>

namespace raxc::backend {
namespace {

#if defined(__x86_64__)
constexpr int kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int kMachine = EM_AARCH64;
#else
constexpr int kMachine = EM_NONE;
#endif

// An open file, closed on every path.
struct File {
  explicit File(const std::string& path) : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~File() {
    if (fd >= 0) ::close(fd);
  }
  bool read(void* into, size_t size, off_t at) const {
    return fd >= 0 && ::pread(fd, into, size, at) == static_cast<ssize_t>(size);
  }
  int fd;
};

// The file's ELF header and program headers, when it is a 64-bit little-endian ELF file of this
// machine.
bool read_headers(const File& file, Elf64_Ehdr& header, std::vector<Elf64_Phdr>& segments) {
  if (!file.read(&header, sizeof header, 0)) return false;
  if (std::string_view(reinterpret_cast<const char*>(header.e_ident), SELFMAG) != ELFMAG ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != kMachine || header.e_phentsize != sizeof(Elf64_Phdr) ||
      header.e_phnum > 64)
    return false;
  segments.resize(header.e_phnum);
  return file.read(segments.data(), segments.size() * sizeof(Elf64_Phdr), header.e_phoff);
}

}  // namespace

std::optional<std::string> elf_build_id(const std::string& path) {
  File file(path);
  Elf64_Ehdr header;
  std::vector<Elf64_Phdr> segments;
  if (!read_headers(file, header, segments)) return std::nullopt;
  for (const Elf64_Phdr& s : segments) {
    if (s.p_type != PT_NOTE || s.p_filesz > (1 << 16)) continue;
    std::vector<char> notes(s.p_filesz);
    if (!file.read(notes.data(), notes.size(), s.p_offset)) continue;
    // Each note: namesz, descsz, type, then name and descriptor, each padded to 4 bytes.
    for (size_t at = 0; at + sizeof(Elf64_Nhdr) <= notes.size();) {
      Elf64_Nhdr n;
      std::memcpy(&n, notes.data() + at, sizeof n);
      size_t name = at + sizeof n, desc = name + ((n.n_namesz + 3) & ~3u);
      size_t next = desc + ((n.n_descsz + 3) & ~3u);
      if (next > notes.size()) break;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
          std::string_view(notes.data() + name, 4) == std::string_view("GNU\0", 4)) {
        static const char* digits = "0123456789abcdef";
        std::string hex;
        for (size_t i = 0; i < n.n_descsz; ++i) {
          auto b = static_cast<unsigned char>(notes[desc + i]);
          hex += digits[b >> 4];
          hex += digits[b & 15];
        }
        return hex;
      }
      at = next;
    }
  }
  return std::nullopt;
}

bool elf_shared_object_complete(const std::string& path) {
  File file(path);
  Elf64_Ehdr header;
  std::vector<Elf64_Phdr> segments;
  struct stat st {};
  if (!read_headers(file, header, segments) || header.e_type != ET_DYN || fstat(file.fd, &st) != 0)
    return false;
  auto size = static_cast<uint64_t>(st.st_size);
  for (const Elf64_Phdr& s : segments)
    if (s.p_offset + s.p_filesz > size) return false;
  return header.e_shoff + uint64_t(header.e_shnum) * header.e_shentsize <= size;
}

}  // namespace raxc::backend
