// Hashing for the small typed keys of the incremental caches (lowering's ModuleOutline, the
// analysis Engine's signature keys): a key is a struct of its parts with operator== and a
// std::hash specialisation built from hash_combine, never a string with separators.
#pragma once
#include <cstddef>
#include <functional>

namespace raxc {

// Mixes the hash of `value` into `seed` (the boost::hash_combine recipe with a 64-bit constant).
template <class T>
void hash_combine(std::size_t& seed, const T& value) {
  seed ^= std::hash<T>{}(value) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace raxc
