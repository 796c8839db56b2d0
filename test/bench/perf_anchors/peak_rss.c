// peak_rss CMD ARGS...: runs CMD and prints its peak resident size in bytes (ru_maxrss) on
// stderr's last line, passing its exit status on. A process forked from the benchmark's Python
// (numpy and torch loaded, ~250 MiB) would report Python's size as its own peak: Linux keeps
// the larger of the two across exec. Forked from this small program, CMD's peak is its own.
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: peak_rss CMD ARGS...\n");
    return 2;
  }
  pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    execvp(argv[1], argv + 1);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(child, &status, 0, &usage) < 0) return 2;
  fprintf(stderr, "peak_rss %ld\n", usage.ru_maxrss * 1024L);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
