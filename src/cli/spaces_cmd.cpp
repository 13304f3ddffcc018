#include "cli/spaces_cmd.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "memplan/explain.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/memories.h"
#include "memplan/spaces_io.h"
#include "memplan/swap.h"
#include "memplan/validate_spaces.h"

namespace memplan {

namespace {

constexpr int kExitOk = 0, kExitInvalid = 1, kExitBadInput = 2, kExitNoPlan = 3;

std::string seconds_since(std::chrono::steady_clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return buf;
}

// The plan as CSV with a `space` column (the chosen memory) appended to every row.
std::string plan_csv(const Problem& p, const std::vector<int64_t>& offsets, const std::vector<std::string>* space) {
  std::ostringstream out;
  write_csv(out, p, &offsets);
  if (!space) return out.str();
  std::istringstream in(out.str());
  std::string line, res;
  for (size_t row = 0; std::getline(in, line); ++row)
    res += line + "," + (row == 0 ? std::string("space") : (*space)[row - 1]) + "\n";
  return res;
}

}  // namespace

SpacesArgs& spaces_args() {
  static SpacesArgs a;
  return a;
}

void add_spaces_options(CLI::App* c) {
  SpacesArgs& a = spaces_args();
  c->add_option("--memories", a.memories, "memories fastest first: NAME[=CAPACITY[:ALIGNMENT]],... (see 'space' column)");
  c->add_flag("--swap", a.swap, "evict 'evictable' buffers between uses to fit --capacity");
  c->add_flag("--swap-exact", a.swap_exact, "with --swap: fewest bytes moved by enumeration (<= 16 windows)");
  c->add_option("--bandwidth", a.bandwidth, "copy bandwidth, bytes per time unit (0 = instantaneous)")->check(CLI::NonNegativeNumber);
  c->add_option("--copy-channels", a.channels, "copies running at once")->check(CLI::PositiveNumber);
  c->add_option("--durations", a.durations, "time units per step (comma separated; 1 beyond)")->delimiter(',');
  c->add_option("--transfers", a.transfers, "write the transfer schedule here (CSV buffer,direction,start,end)");
}

void load_spaces(Loaded& l, const std::string& input) {
  std::vector<std::string> where;
  if (l.table) {
    CsvTable t = *l.table;
    where = read_space_columns(t, input);
    l.problem.buffers = t.problem.buffers;
  } else if (has_extension(input, ".json")) {
    where = read_json_spaces(input, l.problem);
  }
  if (!spaces_args().memories.empty())
    l.problem.memories = parse_memories(spaces_args().memories, "--memories");
  check_spaces(l.problem, input, where);
  for (int64_t d : spaces_args().durations)
    if (d <= 0) throw InputError("--durations: every step needs a positive duration, got " + std::to_string(d));
}

std::string explain_failure(const Problem& p, int64_t capacity, const std::string& algo, const SolveOptions& opt) {
  SolveOptions o = opt;
  o.time_limit_seconds = std::min(opt.time_limit_seconds > 0 ? opt.time_limit_seconds : 1.0, 1.0);
  const Explanation e = explain(p, capacity, algo, o);
  std::cerr << e.report(p);
  return "explain=" + e.summary(p);
}

int solve_spaces(Loaded& l, const std::string& input, const std::string& algo, const SolveOptions& opt,
                 const std::string& output) {
  const SpacesArgs& a = spaces_args();
  const Problem& p = l.problem;
  const bool many = p.memories.size() > 0;
  if (!many && !a.swap) return -1;
  const auto t0 = std::chrono::steady_clock::now();
  std::ostringstream line;
  line << "algo=" << algo << " buffers=" << p.buffers.size();
  if (many && a.swap) {
    std::cerr << "memplan: error: --swap with declared memories is not supported yet\n";
    return kExitBadInput;
  }
  if (many) {
    const SpacesResult r = plan_spaces(p, algo, opt);
    if (!r.ok) {
      std::cout << line.str() << " spaces=" << p.memories.size() << " status=no_plan time=" << seconds_since(t0) << std::endl;
      std::cerr << "memplan: no plan fits the memories: " << r.error << "\n";
      return kExitNoPlan;
    }
    std::vector<std::string> names;
    for (int m : r.space) names.push_back(p.memories[static_cast<size_t>(m)].name);
    std::vector<int64_t> peaks;
    const Validation v = validate_spaces(p, names, r.offsets, &peaks);
    line << " spaces=" << p.memories.size();
    for (size_t m = 0; m < p.memories.size(); ++m) line << " peak_" << p.memories[m].name << "=" << peaks[m];
    line << " moves=" << r.moves << " time=" << seconds_since(t0) << " valid=" << (v.ok ? "yes" : "no")
         << " status=feasible";
    std::cout << line.str() << std::endl;
    for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
    if (!v.ok) return kExitInvalid;
    if (!output.empty()) write_file_atomic(output, plan_csv(p, r.offsets, &names));
    return kExitOk;
  }
  const auto cap = capacity_of(p, opt);
  if (!cap) {
    std::cerr << "memplan: error: --swap needs --capacity (or a capacity in the input)\n";
    return kExitBadInput;
  }
  SwapOptions so;
  so.bandwidth = a.bandwidth;
  so.channels = a.channels;
  so.durations = a.durations;
  so.exact = a.swap_exact;
  const SwapResult r = plan_swaps(p, *cap, algo, opt, so);
  line << " capacity=" << *cap << " evicted=" << r.evictions.size() << " bytes_moved=" << r.bytes_moved
       << " stall=" << r.stall << " transfers=" << r.transfers.size() << " rounds=" << r.rounds;
  if (!r.solution) {
    line << " peak=none time=" << seconds_since(t0) << " valid=none status=" << to_string(r.status);
    line << " explain=\"" << r.explain << "\"";
    std::cout << line.str() << std::endl;
    std::cerr << "memplan: no plan fits with swapping: " << r.explain << "\n";
    return kExitNoPlan;
  }
  const Validation v = validate_swaps(p, r.solution->offsets, *cap, r.evictions, r.transfers, so);
  line << " peak=" << v.peak << " time=" << seconds_since(t0) << " valid=" << (v.ok ? "yes" : "no")
       << " status=feasible";
  std::cout << line.str() << std::endl;
  for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
  if (!v.ok) return kExitInvalid;
  std::ostringstream tr;
  tr << "buffer,direction,start,end\n";
  for (const Transfer& x : r.transfers)
    tr << p.buffers[x.buffer].id << "," << (x.out ? "out" : "in") << "," << x.start << "," << x.end << "\n";
  if (!a.transfers.empty()) write_file_atomic(a.transfers, tr.str());
  else if (r.transfers.size() <= 40)
    for (const Transfer& x : r.transfers)
      std::cerr << "memplan: transfer " << p.buffers[x.buffer].id << " " << (x.out ? "out" : "in") << " ["
                << x.start << "," << x.end << ")\n";
  if (!output.empty()) {
    if (has_extension(output, ".json"))
      write_file_atomic(output, problem_to_json(r.problem, &r.solution->offsets,
                                                {{"algo", algo}, {"bytes_moved", std::to_string(r.bytes_moved)}}));
    else
      write_file_atomic(output, plan_csv(r.problem, r.solution->offsets, nullptr));
  }
  return kExitOk;
}

void add_explain_command(CLI::App& app, ExplainArgs& a) {
  a.cmd = app.add_subcommand("explain", "why a problem does not fit a capacity (overloaded instants or an infeasible subset)");
  a.cmd->add_option("input", a.input, "problem file")->required();
  a.cmd->add_option("--capacity", a.capacity, "capacity in bytes")->required()->check(CLI::NonNegativeNumber);
  a.cmd->add_option("-a,--algo", a.algo, "solver for the subset search and the best peak");
  a.cmd->add_option("--time-limit", a.time_limit, "seconds for the subset search")->check(CLI::NonNegativeNumber);
  a.cmd->add_option("--lifetimes", a.lifetimes, "CSV lifetime convention")->check(CLI::IsMember({"half-open", "inclusive"}));
}

int run_explain(const ExplainArgs& a) {
  const Loaded l = load_problem_as_given(a.input, a.lifetimes);
  SolveOptions o;
  o.time_limit_seconds = a.time_limit;
  o.capacity = a.capacity;
  if (!find_solver(a.algo)) throw InputError("unknown algorithm '" + a.algo + "' (see 'memplan list')");
  const LoadProfile lp = load_profile(l.problem);
  const int64_t load = lp.load.empty() ? 0 : *std::max_element(lp.load.begin(), lp.load.end());
  if (load <= *a.capacity) {
    const SolveResult r = solve(l.problem, a.algo, o);
    if (r.solution) {
      std::cout << "fits: peak " << r.solution->peak << " <= capacity " << *a.capacity << "\n";
      return kExitOk;
    }
  }
  const Explanation e = explain(l.problem, *a.capacity, a.algo, o);
  std::cout << e.report(l.problem, SIZE_MAX) << "explain=" << e.summary(l.problem) << "\n";
  return kExitNoPlan;
}

}  // namespace memplan
