/* A native backtrace on a fatal signal, for machines without gdb (the GPU machine): build and preload
 *   cc -shared -fPIC -O0 -o /tmp/tg-backtrace.so tools/backtrace-preload.c
 *   LD_PRELOAD=/tmp/tg-backtrace.so python3 -m pytest -p no:faulthandler ...
 * On SIGSEGV, SIGFPE, SIGBUS, SIGILL or SIGABRT it writes the faulting address and the frames (symbol+offset of each
 * shared object; `addr2line -e <object> <offset>` or c++filt for more) to stderr, then dies by the same signal. */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static void on_fatal(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  void* frames[64];
  const int n = backtrace(frames, 64);
  const char* name = strsignal(sig);
  write(2, "\n[tg-backtrace] fatal signal: ", 30);
  write(2, name, strlen(name));
  write(2, "\n", 1);
  (void)info;
  backtrace_symbols_fd(frames, n, 2);
  signal(sig, SIG_DFL);
  raise(sig);
}

__attribute__((constructor)) static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  const int sigs[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; ++i) sigaction(sigs[i], &sa, 0);
}
