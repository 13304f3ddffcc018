#include "cli/bound_cmd.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/load.h"
#include "cli/options.h"
#include "memplan/bounds.h"
#include "memplan/instant_bound.h"
#include "memplan/io.h"
#include "memplan/solver.h"
#include "memplan/timeline.h"

namespace memplan {
namespace {

int64_t parse_time(const std::string& text, const std::string& option, const std::string& whole,
                   const char* expected) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument(option + " '" + whole + "': expected " + expected);
  return v;
}

std::vector<int64_t> parse_instants(const std::string& text) {
  std::vector<int64_t> out;
  for (size_t at = 0; at <= text.size();) {
    const size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(parse_time(text.substr(at, comma - at), "--instants", text, "T1,T2,..., integer times"));
    at = comma + 1;
  }
  return out;
}

// The start of every section of `p` whose total live size is >= min_load.
std::vector<int64_t> sections_at_least(const Problem& p, int64_t min_load) {
  std::vector<int64_t> out;
  const Sections s = sections_of(p);
  for (int32_t k = 0; k < s.count(); ++k)
    if (s.total[k] >= min_load) out.push_back(s.times[k]);
  if (out.empty()) throw std::invalid_argument("--min-load " + std::to_string(min_load) + ": no section has that load");
  return out;
}

// The instants given: --instants, or the sections of --min-load, or none.
std::vector<int64_t> instants_of(const BoundArgs& a, const Problem& p) {
  if (!a.instants.empty()) return parse_instants(a.instants);
  if (a.min_load >= 0) return sections_at_least(p, a.min_load);
  return {};
}

// `exact` on one thread at a capacity, within `nodes` settled nodes (0: no limit) and
// `seconds` (0: no limit): deterministic when ended by nodes or a proof.
SolveResult decide(const Problem& p, int64_t capacity, int64_t nodes, double seconds) {
  SolveOptions o;
  o.capacity = capacity;
  o.time_limit_seconds = seconds;
  o.iterations = nodes;
  o.explain = false;
  return solve(p, "exact", o);
}

int run_cutting_planes(const BoundArgs& a, const Problem& p) {
  std::vector<int64_t> every;  // each buffer's start: instants_problem refuses what it does not model
  for (const Buffer& b : p.buffers) every.push_back(b.start);
  if (!every.empty()) (void)instants_problem(p, every);
  const int64_t start = a.capacity >= 0 ? a.capacity : lower_bound_of(p);
  const Deadline deadline(a.time_limit);
  const DecideInstants by_exact = [&](const Problem& r, int64_t capacity) {
    const double left = deadline.remaining_seconds();
    const SolveResult res = decide(r, capacity, a.nodes, std::isfinite(left) ? std::max(0.001, left) : 0);
    InstantDecision d;
    d.refuted = res.status == Status::kInfeasible;
    if (res.solution) d.offsets = res.solution->offsets;
    d.nodes = res.nodes;
    return d;
  };
  const std::vector<int64_t> seed = instants_of(a, p);
  const InstantBound b = instant_bound(p, start, seed, by_exact, deadline, [](const std::string& line) {
    std::cout << line << std::endl;
  });
  // A plan at the bound is optimal when the bound is proven: some capacity was refuted, or
  // the start was at most LOAD (lower_bound_of).
  const int64_t load = lower_bound_of(p);
  const bool proven = !b.refutations.empty() || start <= load;
  // Only a refuted capacity (plus a granule) or LOAD bounds the optimum from below: a start
  // above LOAD that nothing refuted is not a bound (`--capacity 100` printed lower_bound=100
  // on a problem whose optimum is 12).
  const int64_t bound = b.refutations.empty() ? std::min(b.bound, load) : b.bound;
  std::cout << "start=" << start << " lower_bound=" << bound << " granule=" << peak_granule(p)
            << " decisions=" << b.decisions << " refuted=" << b.refutations.size()
            << " instants=" << b.instants.size() << " status="
            << (b.plan ? proven ? "optimal" : "fits" : b.undecided ? "undecided" : deadline.expired() ? "time_limit" : "stopped")
            << "\n";
  return b.refutations.empty() && !(b.plan && proven) ? 3 : 0;
}

}  // namespace

void add_bound_command(CLI::App& app, BoundArgs& a) {
  a.cmd = app.add_subcommand("bound",
                             "refute a capacity on a time window or a set of instants (a lower bound on "
                             "the whole: what solve -a exact logs as window_refuted=), or run the "
                             "instants' cutting-plane loop");
  a.cmd->add_option("input", a.input, "problem file")->required();
  auto* window = a.cmd->add_option("--window", a.window, "the window FROM:TO in time, half-open [FROM, TO)");
  auto* instants = a.cmd->add_option("--instants", a.instants,
                                     "instants T1,T2,... (times): keep the conflicts at them only "
                                     "(with --cutting-planes: the seed set)");
  auto* min_load = a.cmd->add_option("--min-load", a.min_load,
                                     "instants: the start of every section with at least this total live size, "
                                     "in bytes (with --cutting-planes: the seed set)")
                       ->check(integer_in<int64_t>(0, INT64_MAX, "a size in bytes, an integer >= 0"));
  window->excludes(instants);
  window->excludes(min_load);
  instants->excludes(min_load);
  auto* planes = a.cmd->add_flag("--cutting-planes", a.cutting_planes,
                                 "grow the instant set from the peak sections until a capacity is refuted "
                                 "(one line per decision)");
  planes->excludes(window);
  a.cmd->add_option("--capacity", a.capacity,
                    "the capacity to refute, in bytes or with a unit, 4MiB (with --cutting-planes: the first one, default LOAD)")
      ->transform(bytes_in(0, INT64_MAX, "a capacity in bytes, >= 0"));
  a.cmd->add_option("--nodes", a.nodes, "settled nodes per exact decision (0 = no limit, the default)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "a node count, an integer >= 0"));
  a.cmd->add_option("--time-limit", a.time_limit, "seconds for the exact search, in all (0 = no limit, the default)")
      ->check(seconds_option());
  a.cmd->add_option("-o,--output", a.output, "also write the window or relaxed problem here (MiniMalloc CSV)");
  a.cmd->add_option("--lifetimes", a.lifetimes, "CSV lifetime convention: half-open or inclusive")
      ->check(CLI::IsMember({"half-open", "inclusive"}));
}

int run_bound(const BoundArgs& a) {
  if (a.cutting_planes) {
    if (!a.output.empty()) throw std::invalid_argument("bound: -o is for --window or --instants, not --cutting-planes");
    return run_cutting_planes(a, load_problem_as_given(a.input, a.lifetimes).problem);
  }
  if (a.window.empty() == (a.instants.empty() && a.min_load < 0))
    throw std::invalid_argument(
        "bound: give --window FROM:TO, --instants T1,T2,... or --min-load BYTES (or --cutting-planes)");
  if (a.capacity < 0) throw std::invalid_argument("bound: --capacity is required with --window or --instants");
  std::string where;
  int64_t from = 0, to = 0;
  std::vector<int64_t> at;
  const Loaded l = load_problem_as_given(a.input, a.lifetimes);
  if (!a.window.empty()) {
    const size_t colon = a.window.find(':');
    const char* expected = "FROM:TO, two integer times";
    if (colon == std::string::npos) throw std::invalid_argument("--window '" + a.window + "': expected " + expected);
    from = parse_time(a.window.substr(0, colon), "--window", a.window, expected);
    to = parse_time(a.window.substr(colon + 1), "--window", a.window, expected);
    where = "window=[" + std::to_string(from) + "," + std::to_string(to) + ")";
  } else {
    at = instants_of(a, l.problem);
    where = "instants=" + std::to_string(at.size());
  }
  const Problem w = a.window.empty() ? instants_problem(l.problem, at) : window_problem(l.problem, from, to);
  if (!a.output.empty()) {
    std::ostringstream out;
    write_csv(out, w, nullptr);
    write_file_atomic(a.output, out.str());
  }
  const SolveResult r = decide(w, a.capacity, a.nodes, a.time_limit);
  const bool refuted = r.status == Status::kInfeasible;
  std::cout << where << " buffers=" << w.buffers.size() << " capacity=" << a.capacity
            << " status=" << (refuted ? "refuted" : r.solution ? "fits" : "unknown") << " " << r.detail << "\n";
  if (refuted) std::cout << "lower_bound=" << a.capacity + 1 << " (every plan of " << a.input << ")\n";
  return refuted ? 0 : 3;
}

}  // namespace memplan
