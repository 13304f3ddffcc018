#include "cli/huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace memplan {

void use_huge_pages(char** argv) {
#if defined(__GLIBC__) && defined(__linux__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  const char* off = std::getenv("MEMPLAN_HUGE_PAGES");
  if (off && std::string(off) == "0") return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::string t = tunables ? tunables : "";
  if (t.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set: by the user, or by us before the exec
  t = t.empty() ? "glibc.malloc.hugetlb=1" : t + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", t.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-run: go on without (the environment keeps the setting, harmless for children).
#else
  (void)argv;
#endif
}

}  // namespace memplan
