// memplan CLI: large inputs on huge pages.
#pragma once

namespace memplan {

// Re-runs this program (execv of /proc/self/exe with the same arguments) with glibc's
// malloc told to back its large blocks with transparent huge pages
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, glibc >= 2.35), unless GLIBC_TUNABLES already
// says how (glibc.malloc.hugetlb=0 opts out) or MEMPLAN_HUGE_PAGES=0. Returns (and the run
// goes on as is) where that cannot be done: no glibc, no /proc, exec refused.
//
// Why: a 1,000,000-buffer problem touches about 1 GB, and where the kernel maps it one
// 4 KiB page fault at a time the faults can cost more than the solve: on the machines this
// was measured on (virtual machines, transparent huge pages on "madvise"), touching 100 MB
// took 0.40 s against 0.04 s on huge pages, and `memplan solve` on 1M buffers had about
// 30 % of its perf samples in the kernel's fault path (README: "Large inputs" under Command
// line, and "Writing at scale, and huge pages" under Results).
void use_huge_pages(char** argv);

}  // namespace memplan
