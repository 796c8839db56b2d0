// Waiting inside a kernel for another thread to finish a unit of work it has claimed (packing a
// block a tile needs, copying the channels a convolution reads). Such waits are short, so the
// thread spins with the CPU's pause hint, and yields only once the wait has gone on long enough
// that the other thread seems descheduled (on a shared machine, for milliseconds).
#pragma once

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace raxc::runtime {

template <class Done>
void spin_until(Done done) {
  for (int spins = 0; !done(); ++spins) {
#if defined(__x86_64__) || defined(__i386__)
    if (spins < 4096) {
      _mm_pause();
      continue;
    }
#endif
    std::this_thread::yield();
  }
}

}  // namespace raxc::runtime
