#include "cli/spaces_cmd.h"

#include <algorithm>
#include <climits>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cli/options.h"
#include "memplan/bounds.h"
#include "memplan/explain.h"
#include "memplan/graph.h"
#include "memplan/io.h"
#include "memplan/io_json.h"
#include "memplan/memories.h"
#include "memplan/spaces_io.h"
#include "memplan/svg.h"
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

using Column = std::pair<std::string, std::vector<std::string>>;  // name, a value per planned buffer

// The plan as CSV: every column of the input kept (as `solve -o` does), rows of `planned`
// (whose buffer k comes from input row origin[k]), plus the columns `extras` (`space`, the
// chosen memory; `evictions`, "lo-hi" list). A planned buffer from a split gets its piece's
// uses and evictable=0. An input column of the same name is overwritten.
std::string plan_csv(const Loaded& l, const Problem& planned, const std::vector<size_t>& origin,
                     const std::vector<int64_t>& offsets, const std::vector<Column>& extras) {
  std::ostringstream out;
  if (!l.table) {
    write_csv(out, planned, &offsets);
  } else {
    CsvTable t;  // the table's header and partial-order fields; the rest comes below
    t.columns = l.table->columns;
    t.order_fields = l.table->order_fields;
    std::vector<std::string> unknown;  // the columns kept verbatim, in order
    for (const std::string& c : t.columns)
      if (!known_column(c)) unknown.push_back(c);
    const size_t k = unknown.size();
    for (const auto& [name, values] : extras)
      if (std::find(unknown.begin(), unknown.end(), name) == unknown.end()) {
        t.columns.push_back(name);
        unknown.push_back(name);
      }
    std::vector<std::string> fields;
    for (size_t r = 0; r < planned.buffers.size(); ++r) {
      const size_t row = origin[r];
      for (size_t c = 0; c < unknown.size(); ++c) {
        std::string v = c < k && k * (row + 1) <= l.table->unknown_fields.size() ? l.table->unknown_fields[row * k + c] : "";
        const Buffer& b = planned.buffers[r];
        const auto extra = std::find_if(extras.begin(), extras.end(), [&](const Column& x) { return x.first == unknown[c]; });
        if (extra != extras.end()) v = extra->second[r];
        else if (unknown[c] == "uses" && b.id != l.problem.buffers[row].id) {
          v.clear();
          for (int64_t u : b.uses) v += (v.empty() ? "" : " ") + std::to_string(u);
        } else if (unknown[c] == "evictable" && b.id != l.problem.buffers[row].id) {
          v = "0";
        }
        fields.push_back(v);
      }
    }
    t.unknown_fields = std::move(fields);
    write_csv(out, t, planned, &offsets);
    return out.str();
  }
  if (extras.empty()) return out.str();
  std::istringstream in(out.str());
  std::string line, res;
  for (size_t row = 0; std::getline(in, line); ++row) {
    res += line;
    for (const auto& [name, values] : extras) res += "," + (row == 0 ? name : values[row - 1]);
    res += "\n";
  }
  return res;
}

// Per planned buffer, its absences as the `evictions` column lists them ("lo-hi lo-hi").
std::vector<std::string> evictions_column(size_t buffers, const std::vector<Eviction>& evictions) {
  std::vector<std::string> ev(buffers);
  for (const Eviction& e : evictions)
    ev[e.buffer] += (ev[e.buffer].empty() ? "" : " ") + std::to_string(e.lo) + "-" + std::to_string(e.hi);
  return ev;
}

std::string transfers_csv(const Problem& p, const std::vector<Transfer>& transfers) {
  std::ostringstream tr;
  tr << "buffer,direction,start,end\n";
  for (const Transfer& x : transfers)
    tr << p.buffers[x.buffer].id << "," << (x.out ? "out" : "in") << "," << x.start << "," << x.end << "\n";
  return tr.str();
}

std::vector<size_t> identity(size_t n) {
  std::vector<size_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

}  // namespace

SpacesArgs& spaces_args() {
  static SpacesArgs a;
  return a;
}

// --memories '' declared nothing and was read as no --memories at all.
CLI::Validator non_empty_memories() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "empty; expected memories NAME[=CAPACITY[:ALIGNMENT]],... (e.g. sram=4MiB,dram)" : "";
      },
      "MEMORIES");
}

void add_spaces_options(CLI::App* c) {
  SpacesArgs& a = spaces_args();
  c->add_option("--memories", a.memories, "memories fastest first: NAME[=CAPACITY[:ALIGNMENT]],... in bytes or with units (sram=4MiB:64,dram; see 'space' column)")
      ->check(non_empty_memories());
  c->add_flag("--swap", a.swap, "evict 'evictable' buffers between uses to fit --capacity");
  c->add_flag("--swap-exact", a.swap_exact, "with --swap: fewest bytes moved by enumeration (<= 16 windows)");
  c->add_option("--swap-mode", a.mode, "pinned: back at the same offset; split: may come back elsewhere")
      ->check(CLI::IsMember({"pinned", "split"}));
  c->add_option("--swap-to", a.to, "with --memories: the memory receiving the evicted copies (default: the last)");
  c->add_flag("--allow-stall", a.allow_stall, "with --swap: copies need not be hidden; report the stall");
  c->add_option("--bandwidth", a.bandwidth, "copy bandwidth, bytes per time unit (0 = instantaneous)")->check(integer_in<int64_t>(0, INT64_MAX, "bytes per time unit, an integer >= 0"));
  c->add_option("--copy-channels", a.channels, "copies running at once")->check(integer_in<int>(1, INT_MAX, "an integer >= 1"));
  c->add_option("--durations", a.durations, "time units per step (comma separated; 1 beyond)")
      ->delimiter(',')
      ->check(integer_in<int64_t>(1, INT64_MAX, "time units per step, integers >= 1"));
  c->add_option("--transfers", a.transfers, "write the transfer schedule here (CSV buffer,direction,start,end)");
}

void load_spaces(Loaded& l, const std::string& input) {
  std::function<std::string(size_t)> where;
  if (l.table) {
    read_space_columns(*l.table, l.problem.buffers, input);  // the table's rows are l.problem's buffers
    where = [&input](size_t r) { return csv_row_location(input, r); };
  } else if (has_extension(input, ".json")) {
    where = [&input](size_t i) { return json_buffer_location(input, i); };  // made only for a message
    if (l.json_space_fields) read_json_spaces(input, l.problem, &spaces_args().file, &spaces_args().file_swap);
  }
  if (!spaces_args().memories.empty())
    l.problem.memories = parse_memories(spaces_args().memories, "--memories");
  // A model's tensors cannot list memories (a problem file's buffers do, and an unlisted one
  // means the first memory): they may live in any declared memory, fastest first. Pinned to
  // the first, `--memories sram=4MiB,dram` on a model spilled nothing: no plan.
  if (l.model)
    for (Buffer& b : l.problem.buffers)
      if (b.spaces.empty())
        for (const Memory& m : l.problem.memories) b.spaces.push_back(m.name);
  // With --swap a model's tensors may be swapped out between the steps that touch them (its
  // lowering in the same order, with those steps as uses); a member of an in-place chain
  // only while no chain mate is live (swap.cpp). A problem file marks its evictable buffers
  // itself.
  // On several streams the steps of one stream are not a time axis the absences could use
  // (every interleaving is planned): nothing was evictable, and the status said infeasible.
  if (l.model && !l.graph && spaces_args().swap)
    throw InputError("--swap needs one stream: on several streams (--streams or the nodes' 'memplan_stream') the "
                     "model's tensors have no single order of uses to be swapped out between");
  if (l.graph && spaces_args().swap) {
    LowerOptions lo = l.lower;
    lo.uses = true;
    Problem with_uses = lower(*l.graph, l.scheduled.order, lo).problem;
    if (with_uses.buffers.size() != l.problem.buffers.size())
      throw std::logic_error("the model's lowering with uses has another buffer count");
    for (size_t i = 0; i < l.problem.buffers.size(); ++i) {
      l.problem.buffers[i].uses = std::move(with_uses.buffers[i].uses);
      l.problem.buffers[i].evictable = l.problem.buffers[i].uses.size() >= 2;  // a gap between two
    }
  }
  check_spaces(l.problem, input, where);
  for (int64_t d : spaces_args().durations)
    if (d <= 0) throw InputError("--durations: every step needs a positive duration, got " + std::to_string(d));
}

namespace {

// The JSON input's swap settings, overridden by the flags.
SwapOptions swap_options() {
  const SpacesArgs& a = spaces_args();
  SwapOptions so = a.file;
  if (a.bandwidth) so.bandwidth = *a.bandwidth;
  if (a.channels) so.channels = *a.channels;
  if (!a.durations.empty()) so.durations = a.durations;
  if (!a.mode.empty()) so.split = a.mode == "split";
  if (!a.to.empty()) so.to = a.to;
  so.allow_stall |= a.allow_stall;
  so.exact = a.swap_exact;
  return so;
}

}  // namespace

void add_validate_spaces_options(CLI::App* c) {
  SpacesArgs& a = spaces_args();
  c->add_option("--memories", a.memories, "the memories the plan's 'space' column names: NAME[=CAPACITY[:ALIGNMENT]],...")
      ->check(non_empty_memories());
  c->add_option("--transfers", a.transfers, "the transfer schedule solve --transfers wrote: check the copies too");
  c->add_option("--bandwidth", a.bandwidth, "with --transfers: copy bandwidth, bytes per time unit (0 = instantaneous)")
      ->check(integer_in<int64_t>(0, INT64_MAX, "bytes per time unit, an integer >= 0"));
  c->add_option("--copy-channels", a.channels, "with --transfers: copies running at once")
      ->check(integer_in<int>(1, INT_MAX, "an integer >= 1"));
  c->add_option("--durations", a.durations, "with --transfers: time units per step (comma separated; 1 beyond)")
      ->delimiter(',')
      ->check(integer_in<int64_t>(1, INT64_MAX, "time units per step, integers >= 1"));
  c->add_flag("--allow-stall", a.allow_stall, "with --transfers: copies need not be hidden");
}

int validate_plan_file(Loaded& l, const std::string& input, const std::string& plan, std::optional<int64_t> capacity,
                       std::vector<int64_t>* plan_offsets) {
  PlanColumns c;
  if (has_extension(plan, ".json")) {
    *plan_offsets = read_json_solution_file(plan, l.problem);
    c = read_plan_columns_json_file(plan, l.problem);
  } else {
    *plan_offsets = read_plan_csv_file(plan, l.problem, &c);
  }
  const std::vector<int64_t>& offsets = *plan_offsets;
  SpacesArgs& a = spaces_args();
  if (c.space.empty() && !c.has_evictions) {
    if (!a.memories.empty()) throw InputError(plan + ": --memories given, but the plan has no 'space' column or field");
    if (!a.transfers.empty()) throw InputError(plan + ": --transfers given, but the plan has no 'evictions' column or field");
    return -1;
  }
  a.swap = c.has_evictions;  // a model's tensors: the uses that absences must avoid (load_spaces)
  load_spaces(l, input);
  const Problem& p = l.problem;
  if (!c.space.empty() && p.memories.empty())
    throw InputError(plan + ": the plan places buffers in memories ('space'): declare them with --memories or the "
                     "problem's \"memories\"");
  if (!a.transfers.empty() && !c.space.empty())
    throw InputError("--transfers: with several memories the copies are checked by solve only (their offsets are not in the plan)");
  std::vector<int64_t> peaks;
  Validation v;
  std::string copies;
  if (!c.space.empty()) {
    v = c.has_evictions ? validate_spaces_absences(p, c.space, offsets, c.evictions, &peaks)
                        : validate_spaces(p, c.space, offsets, &peaks);
    if (c.has_evictions) copies = " copies=unchecked";
  } else {
    const int64_t cap = capacity ? *capacity : p.capacity.value_or(INT64_MAX);
    if (!a.transfers.empty()) {
      v = validate_swaps(p, offsets, cap, c.evictions, read_transfers_csv_file(a.transfers, p), swap_options());
      copies = " copies=checked";
    } else {
      v = validate_absences(p, offsets, cap, c.evictions);
      copies = " copies=unchecked";
    }
  }
  std::cout << "valid=" << (v.ok ? "yes" : "no") << " buffers=" << p.buffers.size() << " peak=" << v.peak;
  if (!c.space.empty()) {
    std::cout << " spaces=" << p.memories.size();
    for (size_t m = 0; m < p.memories.size() && m < peaks.size(); ++m) std::cout << " peak_" << p.memories[m].name << "=" << peaks[m];
  }
  if (c.has_evictions) std::cout << " evicted=" << c.evictions.size() << copies;
  std::cout << std::endl;
  for (const std::string& e : v.errors) std::cout << "error: " << e << "\n";
  return v.ok ? kExitOk : kExitInvalid;
}

int solve_spaces(Loaded& l, const std::string& input, const std::string& algo, const SolveOptions& opt,
                 const std::string& output, const std::string& svg) {
  const SpacesArgs& a = spaces_args();
  const Problem& p = l.problem;
  const bool many = p.memories.size() > 0;
  const bool swap = a.swap || a.file_swap;
  if (!swap) {  // copy settings read by --swap alone: said, not silently dropped
    const std::pair<bool, const char*> copy_options[] = {
        {a.bandwidth.has_value(), "--bandwidth"}, {a.channels.has_value(), "--copy-channels"},
        {!a.durations.empty(), "--durations"},    {!a.mode.empty(), "--swap-mode"},
        {a.allow_stall, "--allow-stall"},         {!a.transfers.empty(), "--transfers"},
        {a.swap_exact, "--swap-exact"}};
    for (const auto& [given, name] : copy_options)
      if (given) std::cerr << "memplan: warning: " << name << " applies with --swap only; ignored\n";
  }
  if (!a.to.empty() && !many) std::cerr << "memplan: warning: --swap-to applies with --memories only; ignored\n";
  if (!many && !swap) return -1;
  if (many && !svg.empty()) throw InputError(svg + ": --svg draws one memory's plan; not with several memories");
  if (!opt.validate) std::cerr << "memplan: warning: --no-validate: plans with memories or swaps are always checked\n";
  std::vector<std::pair<std::string, std::string>> files;  // written together at the end
  const auto t0 = std::chrono::steady_clock::now();
  std::ostringstream line;
  line << "algo=" << algo << " buffers=" << p.buffers.size();
  const SwapOptions so = swap_options();
  if (many) {
    if (swap && !p.memories[0].capacity) {
      std::cerr << "memplan: error: --swap with memories needs a capacity on the first memory ('" << p.memories[0].name
                << "')\n";
      return kExitBadInput;
    }
    SpacesResult r;
    try {
      r = swap ? plan_spaces_swap(p, algo, opt, so) : plan_spaces(p, algo, opt);
    } catch (const std::invalid_argument& e) {
      std::cerr << "memplan: error: " << input << ": " << e.what() << "\n";
      return kExitBadInput;
    }
    if (!r.ok) {
      std::cout << line.str() << " spaces=" << p.memories.size() << " status=no_plan time=" << seconds_since(t0) << std::endl;
      std::cerr << "memplan: no plan fits the memories: " << r.error << "\n";
      return kExitNoPlan;
    }
    std::vector<std::string> names;
    for (int m : r.space) names.push_back(p.memories[static_cast<size_t>(m)].name);
    std::vector<int64_t> peaks;
    const Validation v = swap ? validate_spaces_swaps(p, names, r.offsets, r.evictions, r.transfers, r.copy_offsets,
                                                      p.memories[static_cast<size_t>(r.swap_to)].name, so, &peaks)
                              : validate_spaces(p, names, r.offsets, &peaks);
    line << " spaces=" << p.memories.size();
    for (size_t m = 0; m < p.memories.size() && m < peaks.size(); ++m) line << " peak_" << p.memories[m].name << "=" << peaks[m];
    line << " moves=" << r.moves;
    if (swap)
      line << " swap_to=" << p.memories[static_cast<size_t>(r.swap_to)].name << " evicted=" << r.evictions.size()
           << " bytes_moved=" << r.bytes_moved << " stall=" << r.stall;
    line << " time=" << seconds_since(t0) << " valid=" << (v.ok ? "yes" : "no")
         << " status=" << (v.ok ? "feasible" : "invalid");
    std::cout << line.str() << std::endl;
    for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
    if (!v.ok) return kExitInvalid;
    if (!output.empty()) {
      Problem planned = p;
      for (const Eviction& e : r.evictions) planned.buffers[e.buffer].gaps.push_back({e.lo, e.hi, false, 0, 0});
      for (Buffer& b : planned.buffers)
        std::sort(b.gaps.begin(), b.gaps.end(), [](const Gap& x, const Gap& y) { return x.start < y.start; });
      PlanColumns columns{names, r.evictions, swap};
      if (has_extension(output, ".json")) {
        files.emplace_back(output, plan_to_json(planned, r.offsets, columns, {{"algo", algo}}));
      } else {
        std::vector<Column> extras = {{"space", names}};
        if (swap) extras.push_back({"evictions", evictions_column(p.buffers.size(), r.evictions)});
        files.emplace_back(output, plan_csv(l, planned, identity(p.buffers.size()), r.offsets, extras));
      }
    }
    if (!a.transfers.empty()) files.emplace_back(a.transfers, transfers_csv(p, r.transfers));
    write_files_atomic(files);
    return kExitOk;
  }
  const auto cap = capacity_of(p, opt);
  if (!cap) {
    std::cerr << "memplan: error: --swap needs --capacity (or a capacity in the input)\n";
    return kExitBadInput;
  }
  const SwapResult r = [&] {
    try {
      return plan_swaps(p, *cap, algo, opt, so);
    } catch (const InputError& e) {  // the library names the buffer; the file is ours to add
      throw InputError(input + ": " + e.what());
    }
  }();
  line << " capacity=" << *cap << " evicted=" << r.evictions.size() << " bytes_moved=" << r.bytes_moved
       << " stall=" << r.stall << " transfers=" << r.transfers.size() << " rounds=" << r.rounds;
  if (!r.solution) {
    line << " peak=none time=" << seconds_since(t0) << " valid=none status=" << to_string(r.status);
    line << " explain=\"" << r.explain << "\"";
    std::cout << line.str() << std::endl;
    std::cerr << "memplan: no plan fits with swapping: " << r.explain << "\n";
    return kExitNoPlan;
  }
  const Validation v = validate_swaps(p, r.offsets, *cap, r.evictions, r.transfers, so);
  line << " peak=" << v.peak << " time=" << seconds_since(t0) << " valid=" << (v.ok ? "yes" : "no")
       << " status=" << (v.ok ? "feasible" : "invalid");
  std::cout << line.str() << std::endl;
  for (const std::string& e : v.errors) std::cerr << "memplan: invalid plan: " << e << "\n";
  if (!v.ok) return kExitInvalid;
  if (!a.transfers.empty()) files.emplace_back(a.transfers, transfers_csv(p, r.transfers));
  else if (r.transfers.size() <= 40)
    for (const Transfer& x : r.transfers)
      std::cerr << "memplan: transfer " << p.buffers[x.buffer].id << " " << (x.out ? "out" : "in") << " ["
                << x.start << "," << x.end << ")\n";
  if (!output.empty()) {
    PlanColumns planned;  // the evictions by planned buffer (in split mode, the piece before each)
    planned.has_evictions = true;
    for (const Eviction& e : r.evictions)
      for (size_t k = 0; k < r.problem.buffers.size(); ++k)
        if (r.origin[k] == e.buffer && (r.problem.buffers[k].end == e.lo || !so.split || e.back < 0))
          planned.evictions.push_back({k, e.lo, e.hi, e.back});
    if (has_extension(output, ".json"))
      files.emplace_back(output, plan_to_json(r.problem, r.solution->offsets, planned,
                                              {{"algo", algo}, {"bytes_moved", std::to_string(r.bytes_moved)}}));
    else
      files.emplace_back(output, plan_csv(l, r.problem, r.origin, r.solution->offsets,
                                          {{"evictions", evictions_column(r.problem.buffers.size(), planned.evictions)}}));
  }
  if (!svg.empty()) {  // the planned buffers: each absence drawn as a gap
    SvgOptions svg_options;
    svg_options.title = input + ": " + algo + " with swapping, peak " + std::to_string(v.peak);
    files.emplace_back(svg, plan_to_svg(r.problem, r.solution->offsets, compute_load(r.problem), svg_options));
  }
  write_files_atomic(files);
  return kExitOk;
}

void add_explain_command(CLI::App& app, ExplainArgs& a) {
  a.cmd = app.add_subcommand("explain", "why a problem does not fit a capacity (overloaded instants or an infeasible subset)");
  a.cmd->add_option("input", a.input, "problem file")->required();
  a.cmd->add_option("--capacity", a.capacity, "capacity in bytes (or with a unit: 4MiB, 512KB)")
      ->required()
      ->transform(bytes_in(0, INT64_MAX, "a capacity in bytes, >= 0"));
  a.cmd->add_option("-a,--algo", a.algo, "solver for the subset search and the best peak");
  a.cmd->add_option("--time-limit", a.time_limit, "seconds in all: the plan, then the subset search (0 = no limit)")
      ->check(seconds_option());
  a.cmd->add_option("--lifetimes", a.lifetimes, "CSV lifetime convention")->check(CLI::IsMember({"half-open", "inclusive"}));
  add_model_options(a.cmd, a.model);
}

int run_explain(const ExplainArgs& a) {
  const Loaded l = load_problem_as_given(a.input, a.lifetimes, a.model);
  SolveOptions o;
  o.time_limit_seconds = a.time_limit;
  o.capacity = a.capacity;
  if (!find_solver(a.algo)) throw InputError("unknown algorithm '" + a.algo + "' (see 'memplan list')");
  const LoadProfile lp = load_profile(l.problem);
  const int64_t load = lp.load.empty() ? 0 : *std::max_element(lp.load.begin(), lp.load.end());
  if (load <= *a.capacity) {
    o.explain = false;  // explained below, in the time the plan's search leaves
    const auto t0 = std::chrono::steady_clock::now();
    const SolveResult r = solve(l.problem, a.algo, o);
    if (r.solution) {
      std::cout << "fits: peak " << r.solution->peak << " <= capacity " << *a.capacity << "\n";
      return kExitOk;
    }
    // One limit for the whole command (it took twice the limit: the search, then the
    // explanation with the limit again).
    if (a.time_limit > 0)
      o.time_limit_seconds =
          std::max(0.001, a.time_limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  const Explanation e = explain(l.problem, *a.capacity, a.algo, o);
  std::cout << e.report(l.problem, SIZE_MAX) << "explain=" << e.summary(l.problem) << "\n";
  return kExitNoPlan;
}

}  // namespace memplan
