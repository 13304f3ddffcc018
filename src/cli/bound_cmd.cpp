#include "cli/bound_cmd.h"

#include <charconv>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/load.h"
#include "cli/options.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/solver.h"

namespace memplan {
namespace {

int64_t parse_time(const std::string& text, const std::string& whole) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size())
    throw std::invalid_argument("--window '" + whole + "': expected FROM:TO, two integer times");
  return v;
}

}  // namespace

void add_bound_command(CLI::App& app, BoundArgs& a) {
  a.cmd = app.add_subcommand("bound",
                             "refute a capacity on a time window (a lower bound on the whole: what "
                             "solve -a exact logs as window_refuted=)");
  a.cmd->add_option("input", a.input, "problem file")->required();
  a.cmd->add_option("--window", a.window, "the window FROM:TO in time, half-open [FROM, TO)")->required();
  a.cmd->add_option("--capacity", a.capacity, "the capacity to refute, in bytes")
      ->required()
      ->check(integer_in<int64_t>(0, INT64_MAX, "a capacity in bytes, an integer >= 0"));
  a.cmd->add_option("--time-limit", a.time_limit, "seconds for the exact search (0 = no limit, the default)")
      ->check(seconds_option());
  a.cmd->add_option("-o,--output", a.output, "also write the window problem here (MiniMalloc CSV)");
  a.cmd->add_option("--lifetimes", a.lifetimes, "CSV lifetime convention: half-open or inclusive")
      ->check(CLI::IsMember({"half-open", "inclusive"}));
}

int run_bound(const BoundArgs& a) {
  const size_t colon = a.window.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("--window '" + a.window + "': expected FROM:TO, two integer times");
  const int64_t from = parse_time(a.window.substr(0, colon), a.window);
  const int64_t to = parse_time(a.window.substr(colon + 1), a.window);
  const Loaded l = load_problem_as_given(a.input, a.lifetimes);
  const Problem w = window_problem(l.problem, from, to);
  if (!a.output.empty()) {
    std::ostringstream out;
    write_csv(out, w, nullptr);
    write_file_atomic(a.output, out.str());
  }
  SolveOptions o;
  o.capacity = a.capacity;
  o.time_limit_seconds = a.time_limit;
  o.explain = false;
  const SolveResult r = solve(w, "exact", o);
  const bool refuted = r.status == Status::kInfeasible;
  std::cout << "window=[" << from << "," << to << ") buffers=" << w.buffers.size() << " capacity=" << a.capacity
            << " status=" << (refuted ? "refuted" : r.solution ? "fits" : "unknown") << " " << r.detail << "\n";
  if (refuted) std::cout << "lower_bound=" << a.capacity + 1 << " (every plan of " << a.input << ")\n";
  return refuted ? 0 : 3;
}

}  // namespace memplan
