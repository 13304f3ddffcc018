// Where the cell search thrashes on perfect packings: the depth (buffers placed) of every
// node of one search, summarized per run. Prints a Markdown table.
//
// Usage: cell_depth_bench [sizes=1600,3200,6400] [kind=pinwheel] [seeds=100-104] [budget=8]
//                         [orders=WAT] [search=4]
//   memplan generate --kind KIND instances (capacity = LOAD), tuning seeds by default; one
//   search (3 fewest branches, 4 all wells: exact_scale_bench strategies' numbering) with
//   budget x n nodes, one thread, backjumping as in `exact` (on: perfect packings). Per run:
//   whether it found the packing; its nodes; the deepest node (buffers placed / n) and when
//   it was first reached (fraction of the run's nodes); after that point, the shallowest
//   node (how far back the search ever returned) and the 10th, 50th and 90th percentiles of
//   the nodes' depths (where it spent its nodes). All depths as fractions of n. Unless found,
//   the two completions of the deepest placement `exact` has (deep_fill.h), as peak / LOAD:
//   "fill", the left buffers placed one at a time around it (fill_deepest), and "dive", the
//   canonical dives with its buffers pinned (dive_deepest), with the dives' milliseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "memplan/generate.h"
#include "memplan/validate.h"
#include "solvers/exact/deep_fill.h"
#include "solvers/exact/deep_threads.h"
#include "solvers/exact/search.h"

using namespace memplan;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, ',');) out.push_back(part);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  auto arg = [&](int k, const char* fallback) { return std::string(argc > k ? argv[k] : fallback); };
  const std::vector<std::string> sizes = split(arg(1, "1600,3200,6400"));
  const std::string kind = arg(2, "pinwheel"), seeds = arg(3, "100-104");
  const int64_t per_buffer = std::stoll(arg(4, "8"));
  const std::vector<std::string> orders = split(arg(5, "WAT"));
  const int search = std::stoi(arg(6, "4"));
  const int first = std::stoi(seeds.substr(0, seeds.find('-')));
  const int last = seeds.find('-') == std::string::npos ? first : std::stoi(seeds.substr(seeds.find('-') + 1));
  std::printf("| kind | buffers | seed | order | found | nodes | deepest | reached at | then shallowest | p10 | p50 | p90 | fill | dive | dive ms |\n"
              "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& size : sizes)
    for (int seed = first; seed <= last; ++seed) {
      GenerateOptions g;
      g.kind = kind;
      g.buffers = std::stoll(size);
      g.seed = static_cast<uint64_t>(seed);
      const Problem p = generate(g);
      const exact::Instance in = *exact::prepare(p, int64_t{1} << 30, Deadline());
      for (const std::string& name : orders) {
        const std::vector<int32_t> order = exact::preorder(in, name);
        std::vector<int32_t> trace;
        exact::SearchResult r;
        exact::run_deep(1, in.n + 2, [&] {
          exact::cell_depth_trace = &trace;
          r = exact::search_cells(in, g.capacity, order,
                                  search == 3 ? exact::CellChoice::kFewestBranches : exact::CellChoice::kWells,
                                  per_buffer * g.buffers, Deadline());
          exact::cell_depth_trace = nullptr;
        });
        const bool found = r.outcome == exact::Outcome::kFound;
        if (found && !validate(p, r.offsets).ok) {
          std::fprintf(stderr, "invalid plan: %s n=%s seed %d\n", kind.c_str(), size.c_str(), seed);
          return 1;
        }
        if (trace.empty()) continue;
        const size_t at = static_cast<size_t>(std::max_element(trace.begin(), trace.end()) - trace.begin());
        std::vector<int32_t> after(trace.begin() + static_cast<std::ptrdiff_t>(at), trace.end());
        std::sort(after.begin(), after.end());
        const double n = static_cast<double>(in.n);
        auto q = [&](double f) { return after[static_cast<size_t>(f * static_cast<double>(after.size() - 1))] / n; };
        // The completions, each checked by the validator (a fill that is not a plan fails the run).
        std::string fill = "-", dive = "-", dive_ms = "-";
        auto ratio = [&](const std::optional<Solution>& s, const char* what) {
          if (!s) return std::string("none");
          if (!validate(p, s->offsets).ok) {
            std::fprintf(stderr, "invalid %s: %s n=%s seed %d\n", what, kind.c_str(), size.c_str(), seed);
            std::exit(1);
          }
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(s->peak) / static_cast<double>(g.capacity));
          return std::string(buf);
        };
        if (!found && !r.deepest.empty()) {
          fill = ratio(exact::fill_deepest(p, r.deepest, Deadline()), "fill");
          const auto t0 = std::chrono::steady_clock::now();
          const std::optional<Solution> d = exact::dive_deepest(p, r.deepest, 2 * g.capacity, Deadline());
          const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
          dive = ratio(d, "dive");
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.1f", ms);
          dive_ms = buf;
        }
        std::printf("| %s | %s | %d | %s | %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s | %s |\n",
                    kind.c_str(), size.c_str(), seed, name.c_str(), found ? "yes" : "no", trace.size(),
                    trace[at] / n, static_cast<double>(at) / static_cast<double>(trace.size()), after.front() / n,
                    q(0.1), q(0.5), q(0.9), fill.c_str(), dive.c_str(), dive_ms.c_str());
        std::fflush(stdout);
      }
    }
  return 0;
}
