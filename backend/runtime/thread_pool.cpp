// The runtime's thread pool behind raxc_parallel_for: one pool per process, workers started on
// first use and kept. Measured on this VM (../shared/research/backend.md): waking a sleeping
// thread costs ~12 µs with millisecond tails, so workers spin briefly after a job before they
// sleep, and the calling thread always takes a chunk itself. Errors recorded by raxc_fail on a
// worker (thread-local) are moved to the calling thread.
#include <sched.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "backend/runtime/error.h"
#include "backend/runtime/raxc_runtime.h"

namespace raxc::runtime {
namespace {

thread_local bool inside_parallel_body = false;

int cpus_available() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

// The default thread count: RAXC_NUM_THREADS when it is a positive number (so a program using a
// built library, or a benchmark, can pin it without code), else every CPU the process may use.
int default_threads() {
  if (const char* env = std::getenv("RAXC_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0 && n <= 1024) return static_cast<int>(n);
  }
  return cpus_available();
}

class ThreadPool {
 public:
  static ThreadPool& instance() {
    static ThreadPool* pool = new ThreadPool();  // never destroyed: workers outlive exit()
    return *pool;
  }

  void set_threads(int n) { threads_ = n > 0 ? n : default_threads(); }
  int threads() const { return threads_; }

  int32_t run(int64_t begin, int64_t end, RaxcParallelBody body, void* closure) {
    int64_t count = end - begin;
    int chunks = static_cast<int>(std::min<int64_t>(threads_, count));
    if (inside_parallel_body || chunks <= 1) return run_inline(begin, end, body, closure);
    std::lock_guard<std::mutex> one_job(job_mutex_);  // one parallel loop at a time
    start_workers(chunks - 1);
    Job job;
    job.begin = begin;
    job.end = end;
    job.body = body;
    job.closure = closure;
    job.chunks = chunks;
    job.pending.store(chunks, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    execute(job, 0);
    // Wait for the workers' chunks: spin first (they are usually done within microseconds).
    auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    while (job.pending.load(std::memory_order_acquire) != 0) {
      if (std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return job.pending.load(std::memory_order_acquire) == 0; });
      }
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = nullptr;
    }
    if (job.status != 0 && job.error) set_last_error(std::move(*job.error));
    return job.status;
  }

 private:
  struct Job {
    int64_t begin = 0, end = 0;
    RaxcParallelBody body = nullptr;
    void* closure = nullptr;
    int chunks = 1;
    std::atomic<int> pending{0};
    std::atomic<int> claimed{1};  // chunk 0 belongs to the caller
    std::mutex error_mutex;
    int32_t status = 0;
    std::optional<RuntimeError> error;
  };

  ThreadPool() { threads_ = default_threads(); }

  static int32_t run_inline(int64_t begin, int64_t end, RaxcParallelBody body, void* closure) {
    bool outer = inside_parallel_body;
    inside_parallel_body = true;
    int32_t status = body(begin, end, closure);
    inside_parallel_body = outer;
    return status;
  }

  void execute(Job& job, int chunk) {
    int64_t count = job.end - job.begin;
    int64_t b = job.begin + count * chunk / job.chunks;
    int64_t e = job.begin + count * (chunk + 1) / job.chunks;
    int32_t status = run_inline(b, e, job.body, job.closure);
    if (status != 0) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (job.status == 0) {
        job.status = status;
        job.error = take_last_error();
      }
    }
    if (job.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.notify_all();
    }
  }

  void start_workers(int wanted) {
    for (; workers_ < wanted; ++workers_) std::thread([this] { work(); }).detach();
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      Job* job = nullptr;
      int chunk = 0;
      // Spin a little for the next job before sleeping (back-to-back kernels skip the wake-up).
      auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
      for (;;) {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!(generation_ != seen && job_) && std::chrono::steady_clock::now() > spin_until)
          wake_.wait(lock, [&] { return generation_ != seen && job_; });
        if (generation_ != seen && job_) {
          // The chunk is claimed under the lock: the job cannot finish (and its owner cannot
          // return) before a claimed chunk has run, and a worker that claims too late never
          // touches the job again.
          seen = generation_;
          job = job_;
          chunk = job->claimed.fetch_add(1, std::memory_order_acq_rel);
          break;
        }
        lock.unlock();
        std::this_thread::yield();
      }
      if (chunk < job->chunks) execute(*job, chunk);
    }
  }

  int threads_ = 1;
  std::mutex job_mutex_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  int workers_ = 0;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
};

}  // namespace
}  // namespace raxc::runtime

extern "C" int32_t raxc_parallel_for(int64_t begin, int64_t end, RaxcParallelBody body,
                                     void* closure) {
  if (end <= begin) return 0;
  return raxc::runtime::ThreadPool::instance().run(begin, end, body, closure);
}

extern "C" void raxc_set_num_threads(int32_t n) {
  raxc::runtime::ThreadPool::instance().set_threads(n);
}

extern "C" int32_t raxc_num_threads(void) {
  return raxc::runtime::ThreadPool::instance().threads();
}
