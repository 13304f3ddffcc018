// The C API (include/memplan/memplan.h) over the C++ library. Every exported function runs its
// body through `guarded`, so no exception crosses into C: each becomes an error code and a
// thread-local message.
#include "memplan/memplan.h"

#include <cmath>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "io/check.h"
#include "memplan/bounds.h"
#include "memplan/io.h"
#include "memplan/explain.h"
#include "memplan/solver.h"
#include "memplan/validate.h"

struct memplan_problem {
  memplan::Problem problem;
  std::unordered_map<std::string, size_t> index_of;  // id -> index, for duplicate ids
  memplan::TotalGuard total;                         // sizes summed stay below 2^61
};

struct memplan_options {
  std::string algorithm;
  memplan::SolveOptions solve;
};

struct memplan_result {
  memplan::SolveResult result;
  int64_t load = 0;
  size_t buffers = 0;
};

namespace {

thread_local std::string t_last_error;

memplan_error fail(memplan_error code, const std::string& message) noexcept {
  try {
    t_last_error = message;
  } catch (...) {
    t_last_error.clear();  // out of memory for the message itself: keep the code
  }
  return code;
}

// Runs `body` (returning memplan_error) and turns any exception into an error code.
template <class Body>
memplan_error guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail(MEMPLAN_ERROR_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const memplan::InputError& e) {
    return fail(MEMPLAN_ERROR_INVALID_ARGUMENT, std::string(function) + ": " + e.what());
  } catch (const std::exception& e) {
    return fail(MEMPLAN_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(MEMPLAN_ERROR_INTERNAL, std::string(function) + ": unknown exception");
  }
}

memplan_error null_argument(const char* function, const char* name) {
  return fail(MEMPLAN_ERROR_NULL_ARGUMENT, std::string(function) + ": " + name + " is NULL");
}

// The C API names the lifetime fields after its parameters (start, end); the readers'
// checks name them after MiniMalloc's CSV columns (lower, upper).
bool lifetime_field(const memplan::FieldIssue& issue) {
  return issue.field == "lower" || issue.field == "upper";
}

std::string api_field(const memplan::FieldIssue& issue) {
  if (!lifetime_field(issue)) return issue.field;
  return issue.field == "lower" ? "start" : "end";
}

std::string api_message(const memplan::FieldIssue& issue) {
  std::string text = issue.message;
  if (!lifetime_field(issue)) return text;
  for (auto [csv, api] : {std::pair{"lower", "start"}, std::pair{"upper", "end"}})
    for (size_t at = text.find(csv); at != std::string::npos; at = text.find(csv, at))
      text.replace(at, std::string(csv).size(), api);
  return text;
}

memplan_error bad_buffer(const char* function, const memplan::Buffer& b, size_t index,
                         const memplan::FieldIssue& issue) {
  return fail(MEMPLAN_ERROR_INVALID_ARGUMENT, std::string(function) + ": buffer '" + b.id + "' (#" +
                                                  std::to_string(index) + "): " +
                                                  api_field(issue) + ": " + api_message(issue));
}

memplan_error bad_capacity(const char* function, int64_t capacity) {
  return fail(MEMPLAN_ERROR_INVALID_ARGUMENT,
              std::string(function) + ": capacity must be >= 0 or MEMPLAN_NO_CAPACITY, got " +
                  std::to_string(capacity));
}

memplan_error no_plan(const char* function, const memplan_result* r) {
  // The explanation solve() attached (explain.h), e.g. "explain=t=2:load=8>6:...".
  const std::string why = r->result.explanation ? "; explain=" + r->result.explanation->summary(memplan::Problem{}) : "";
  return fail(MEMPLAN_ERROR_NO_PLAN, std::string(function) + ": the result holds no plan (status " +
                                         memplan::to_string(r->result.status) + why + ")");
}

}  // namespace

extern "C" {

const char* memplan_version(void) { return memplan::version(); }

const char* memplan_last_error(void) { return t_last_error.c_str(); }

const char* memplan_error_string(memplan_error code) {
  switch (code) {
    case MEMPLAN_OK: return "ok";
    case MEMPLAN_ERROR_NULL_ARGUMENT: return "null argument";
    case MEMPLAN_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case MEMPLAN_ERROR_UNKNOWN_ALGORITHM: return "unknown algorithm";
    case MEMPLAN_ERROR_OUT_OF_RANGE: return "out of range";
    case MEMPLAN_ERROR_NO_PLAN: return "no plan";
    case MEMPLAN_ERROR_INVALID_PLAN: return "invalid plan";
    case MEMPLAN_ERROR_OUT_OF_MEMORY: return "out of memory";
    case MEMPLAN_ERROR_INTERNAL: return "internal error";
  }
  return "unknown error code";
}

// ---- problem ----

memplan_error memplan_problem_create(memplan_problem** out) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!out) return null_argument(fn, "out");
    *out = new memplan_problem();
    return MEMPLAN_OK;
  });
}

void memplan_problem_destroy(memplan_problem* problem) { delete problem; }

memplan_error memplan_problem_add_buffer(memplan_problem* problem, const char* id, int64_t start,
                                         int64_t end, int64_t size, int64_t alignment,
                                         size_t* out_index) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (!id) return null_argument(fn, "id");
    memplan::Buffer b;
    b.id = id;
    b.start = start;
    b.end = end;
    b.size = size;
    b.alignment = alignment;
    const size_t index = problem->problem.buffers.size();
    if (auto issue = memplan::buffer_issue(b)) return bad_buffer(fn, b, index, *issue);
    if (auto it = problem->index_of.find(b.id); it != problem->index_of.end())
      return bad_buffer(fn, b, index,
                        {"id", "duplicate id (also buffer #" + std::to_string(it->second) + ")"});
    memplan::TotalGuard total = problem->total;
    if (auto issue = total.add(b)) return bad_buffer(fn, b, index, *issue);
    problem->problem.buffers.reserve(index + 1);  // may throw: before any change is made
    problem->index_of.emplace(b.id, index);
    problem->problem.buffers.push_back(std::move(b));
    problem->total = total;
    if (out_index) *out_index = index;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_problem_set_fixed_offset(memplan_problem* problem, size_t index,
                                               int64_t offset) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (index >= problem->problem.buffers.size())
      return fail(MEMPLAN_ERROR_OUT_OF_RANGE,
                  std::string(fn) + ": buffer index " + std::to_string(index) +
                      " out of range (the problem has " +
                      std::to_string(problem->problem.buffers.size()) + " buffers)");
    memplan::Buffer b = problem->problem.buffers[index];
    b.offset = offset;
    if (auto issue = memplan::buffer_issue(b)) return bad_buffer(fn, b, index, *issue);
    problem->problem.buffers[index].offset = offset;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_problem_set_capacity(memplan_problem* problem, int64_t capacity) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (capacity == MEMPLAN_NO_CAPACITY) {
      problem->problem.capacity.reset();
    } else {
      if (capacity < 0) return bad_capacity(fn, capacity);
      problem->problem.capacity = capacity;
    }
    return MEMPLAN_OK;
  });
}

memplan_error memplan_problem_buffer_count(const memplan_problem* problem, size_t* out_count) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (!out_count) return null_argument(fn, "out_count");
    *out_count = problem->problem.buffers.size();
    return MEMPLAN_OK;
  });
}

memplan_error memplan_problem_load(const memplan_problem* problem, int64_t* out_load) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (!out_load) return null_argument(fn, "out_load");
    *out_load = memplan::compute_load(problem->problem);
    return MEMPLAN_OK;
  });
}

// ---- options ----

memplan_error memplan_options_create(memplan_options** out) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!out) return null_argument(fn, "out");
    auto* o = new memplan_options();
    o->algorithm = memplan::find_solver("auto") ? "auto" : "greedy";
    o->solve.threads = 1;
    *out = o;
    return MEMPLAN_OK;
  });
}

void memplan_options_destroy(memplan_options* options) { delete options; }

memplan_error memplan_options_set_algorithm(memplan_options* options, const char* name) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!options) return null_argument(fn, "options");
    if (!name) return null_argument(fn, "name");
    if (!memplan::find_solver(name))
      return fail(MEMPLAN_ERROR_UNKNOWN_ALGORITHM, std::string(fn) + ": unknown algorithm '" +
                                                       name + "' (see 'memplan list')");
    options->algorithm = name;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_options_set_time_limit(memplan_options* options, double seconds) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!options) return null_argument(fn, "options");
    if (!std::isfinite(seconds) || seconds < 0)
      return fail(MEMPLAN_ERROR_INVALID_ARGUMENT,
                  std::string(fn) + ": time limit must be finite and >= 0 seconds (0 = none), got " +
                      std::to_string(seconds));
    options->solve.time_limit_seconds = seconds;  // 0: no limit, as SolveOptions reads it
    return MEMPLAN_OK;
  });
}

memplan_error memplan_options_set_seed(memplan_options* options, uint64_t seed) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!options) return null_argument(fn, "options");
    options->solve.seed = seed;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_options_set_threads(memplan_options* options, int threads) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!options) return null_argument(fn, "options");
    if (threads < 1)
      return fail(MEMPLAN_ERROR_INVALID_ARGUMENT,
                  std::string(fn) + ": threads must be >= 1, got " + std::to_string(threads));
    options->solve.threads = threads;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_options_set_capacity(memplan_options* options, int64_t capacity) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!options) return null_argument(fn, "options");
    if (capacity == MEMPLAN_NO_CAPACITY) {
      options->solve.capacity.reset();
    } else {
      if (capacity < 0) return bad_capacity(fn, capacity);
      options->solve.capacity = capacity;
    }
    return MEMPLAN_OK;
  });
}

// ---- solving ----

memplan_error memplan_solve(const memplan_problem* problem, const memplan_options* options,
                            memplan_result** out) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (!out) return null_argument(fn, "out");
    const memplan_options defaults = [] {
      memplan_options d;
      d.algorithm = memplan::find_solver("auto") ? "auto" : "greedy";
      d.solve.threads = 1;
      return d;
    }();
    const memplan_options& o = options ? *options : defaults;
    const memplan::Problem& p = problem->problem;
    memplan::check_problem(p, "problem");  // throws InputError naming the buffer and field
    auto r = std::make_unique<memplan_result>();
    r->result = memplan::solve(p, o.algorithm, o.solve);
    r->load = memplan::compute_load(p);
    r->buffers = p.buffers.size();
    if (const auto& plan = r->result.solution) {
      const memplan::Validation v = memplan::validate(p, plan->offsets, memplan::capacity_of(p, o.solve));
      if (!v.ok || v.peak != plan->peak)
        return fail(MEMPLAN_ERROR_INTERNAL,
                    std::string(fn) + ": algorithm '" + o.algorithm +
                        "' returned a plan that fails the independent check (a bug): " +
                        (v.errors.empty() ? "peak mismatch" : v.errors.front()));
    }
    *out = r.release();
    return MEMPLAN_OK;
  });
}

void memplan_result_destroy(memplan_result* result) { delete result; }

memplan_error memplan_result_status(const memplan_result* result, memplan_status* out_status) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_status) return null_argument(fn, "out_status");
    switch (result->result.status) {
      case memplan::Status::kFeasible: *out_status = MEMPLAN_STATUS_FEASIBLE; break;
      case memplan::Status::kOptimal: *out_status = MEMPLAN_STATUS_OPTIMAL; break;
      case memplan::Status::kInfeasible: *out_status = MEMPLAN_STATUS_INFEASIBLE; break;
      case memplan::Status::kNoPlan: *out_status = MEMPLAN_STATUS_NO_PLAN; break;
      // solve() validates (the C API never opts out), so kUnchecked does not arise; a plan
      // that failed the check is not returned.
      case memplan::Status::kInvalid:
      case memplan::Status::kUnchecked: *out_status = MEMPLAN_STATUS_INVALID; break;
    }
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_has_plan(const memplan_result* result, int* out_has_plan) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_has_plan) return null_argument(fn, "out_has_plan");
    *out_has_plan = result->result.solution ? 1 : 0;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_peak(const memplan_result* result, int64_t* out_peak) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_peak) return null_argument(fn, "out_peak");
    if (!result->result.solution) return no_plan(fn, result);
    *out_peak = result->result.solution->peak;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_lower_bound(const memplan_result* result, int64_t* out_lower_bound) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_lower_bound) return null_argument(fn, "out_lower_bound");
    *out_lower_bound = result->result.lower_bound;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_load(const memplan_result* result, int64_t* out_load) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_load) return null_argument(fn, "out_load");
    *out_load = result->load;
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_offsets(const memplan_result* result, int64_t* out, size_t count) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out && count > 0) return null_argument(fn, "out");
    if (!result->result.solution) return no_plan(fn, result);
    if (count != result->buffers)
      return fail(MEMPLAN_ERROR_OUT_OF_RANGE, std::string(fn) + ": count is " + std::to_string(count) +
                                                  ", the problem has " + std::to_string(result->buffers) +
                                                  " buffers");
    const std::vector<int64_t>& offsets = result->result.solution->offsets;
    for (size_t i = 0; i < count; ++i) out[i] = offsets[i];
    return MEMPLAN_OK;
  });
}

memplan_error memplan_result_offset(const memplan_result* result, size_t index, int64_t* out_offset) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!result) return null_argument(fn, "result");
    if (!out_offset) return null_argument(fn, "out_offset");
    if (!result->result.solution) return no_plan(fn, result);
    if (index >= result->buffers)
      return fail(MEMPLAN_ERROR_OUT_OF_RANGE, std::string(fn) + ": buffer index " +
                                                  std::to_string(index) + " out of range (the problem has " +
                                                  std::to_string(result->buffers) + " buffers)");
    *out_offset = result->result.solution->offsets[index];
    return MEMPLAN_OK;
  });
}

// ---- checking ----

memplan_error memplan_validate(const memplan_problem* problem, const int64_t* offsets, size_t count,
                               int64_t* out_peak) {
  const char* const fn = __func__;
  return guarded(fn, [&] {
    if (!problem) return null_argument(fn, "problem");
    if (!offsets && count > 0) return null_argument(fn, "offsets");
    const memplan::Problem& p = problem->problem;
    if (count != p.buffers.size())
      return fail(MEMPLAN_ERROR_OUT_OF_RANGE, std::string(fn) + ": count is " + std::to_string(count) +
                                                  ", the problem has " + std::to_string(p.buffers.size()) +
                                                  " buffers");
    const memplan::Validation v = memplan::validate(p, std::vector<int64_t>(offsets, offsets + count));
    if (!v.ok) {
      std::string message = std::string(fn) + ": invalid plan";
      for (const std::string& e : v.errors) message += "; " + e;
      return fail(MEMPLAN_ERROR_INVALID_PLAN, message);
    }
    if (out_peak) *out_peak = v.peak;
    return MEMPLAN_OK;
  });
}

}  // extern "C"
