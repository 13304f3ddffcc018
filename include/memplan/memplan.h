/* memplan: the C API (C99), for C programs and foreign-function interfaces (Rust, Go, ...).
 *
 * Library: libmemplan_c, a shared library (CMake target memplan::memplan_c). It contains the
 * planner and exports only the memplan_* functions below; a program links it alone (plus the
 * C++ runtime it already needs, which the shared library records itself).
 *
 * Usage:
 *   memplan_problem* p;  memplan_problem_create(&p);
 *   memplan_problem_add_buffer(p, "x", 0, 2, 1024, 1, NULL);   (id, [start, end), size, alignment)
 *   memplan_options* o;  memplan_options_create(&o);  memplan_options_set_algorithm(o, "greedy");
 *   memplan_result* r;   memplan_solve(p, o, &r);
 *   memplan_result_offsets(r, offsets, count);  ...  memplan_result_destroy(r); ...
 *
 * Model: as in the C++ library (memplan/problem.h). A buffer is live during the half-open
 * interval [start, end); two buffers live at the same time never share a byte; the peak is the
 * largest offset + size; LOAD (the largest total size live at one instant) is a lower bound.
 *
 * Errors: every function that can fail returns a memplan_error. On failure the output
 * arguments are left untouched, and memplan_last_error() describes the failure in words,
 * naming the buffer and the field at fault (e.g. "buffer 'x' (#2): size: size must be
 * positive, got 0"). No C++ exception ever crosses this interface: each function catches
 * everything and turns it into an error code (MEMPLAN_ERROR_OUT_OF_MEMORY, ...).
 *
 * Ownership: a handle made by memplan_*_create or memplan_solve belongs to the caller, who
 * frees it with the matching memplan_*_destroy (which accepts NULL). Strings and arrays passed
 * in are copied; the library keeps no pointer to them after the call returns. A result is a
 * snapshot: changing or destroying its problem afterwards does not affect it.
 * memplan_version() returns a static string; memplan_last_error() returns a thread-local
 * string that stays valid until the next memplan_* call on the same thread.
 *
 * Thread safety: handles are not locked. Different handles may be used from different threads
 * at the same time. One handle may be read by several threads at once (e.g. several
 * memplan_solve calls on one problem) as long as no thread modifies it meanwhile. The error
 * message is per thread. memplan_solve may start worker threads (memplan_options_set_threads);
 * they have finished when it returns.
 */
#ifndef MEMPLAN_MEMPLAN_H
#define MEMPLAN_MEMPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "memplan/version.h" /* MEMPLAN_VERSION: the version of these headers */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define MEMPLAN_C_API
#else
#define MEMPLAN_C_API __attribute__((visibility("default")))
#endif

typedef enum memplan_error {
  MEMPLAN_OK = 0,
  MEMPLAN_ERROR_NULL_ARGUMENT = 1,     /* a required handle or pointer argument is NULL */
  MEMPLAN_ERROR_INVALID_ARGUMENT = 2,  /* a bad value: buffer field, option, capacity */
  MEMPLAN_ERROR_UNKNOWN_ALGORITHM = 3, /* no solver of that name */
  MEMPLAN_ERROR_OUT_OF_RANGE = 4,      /* a buffer index or array length that does not match */
  MEMPLAN_ERROR_NO_PLAN = 5,           /* the result holds no plan (see its status; with a
                                          capacity, memplan_last_error() says why: explain=...) */
  MEMPLAN_ERROR_INVALID_PLAN = 6,      /* memplan_validate: the plan breaks a rule */
  MEMPLAN_ERROR_OUT_OF_MEMORY = 7,
  MEMPLAN_ERROR_INTERNAL = 8 /* a bug: e.g. a solver's plan failed the independent check */
} memplan_error;

typedef enum memplan_status {
  MEMPLAN_STATUS_FEASIBLE = 0,   /* a plan; optimality unknown */
  MEMPLAN_STATUS_OPTIMAL = 1,    /* a plan whose peak equals a proven lower bound */
  MEMPLAN_STATUS_INFEASIBLE = 2, /* proven: no plan fits the capacity */
  MEMPLAN_STATUS_NO_PLAN = 3,    /* none found that fits (heuristic failure or time limit) */
  MEMPLAN_STATUS_INVALID = 4     /* the solver's plan failed the independent check (a bug);
                                    no plan is returned */
} memplan_status;

/* "No capacity": pass to memplan_problem_set_capacity / memplan_options_set_capacity. */
#define MEMPLAN_NO_CAPACITY (-1)

typedef struct memplan_problem memplan_problem; /* buffers and an optional capacity */
typedef struct memplan_options memplan_options; /* algorithm, time limit, seed, threads, ... */
typedef struct memplan_result memplan_result;   /* status, bounds and (maybe) a plan */

/* The library's version, "MAJOR.MINOR.PATCH" (equal to MEMPLAN_VERSION of the headers it was
 * built with). Static storage; never NULL. */
MEMPLAN_C_API const char* memplan_version(void);

/* The message of the last failed call on this thread ("" if none failed yet). Never NULL. */
MEMPLAN_C_API const char* memplan_last_error(void);

/* A short name of an error code, e.g. "invalid argument". Static storage; never NULL. */
MEMPLAN_C_API const char* memplan_error_string(memplan_error code);

/* ---- problem ---- */

MEMPLAN_C_API memplan_error memplan_problem_create(memplan_problem** out);
MEMPLAN_C_API void memplan_problem_destroy(memplan_problem* problem);

/* Appends a buffer live during [start, end) of `size` bytes whose offset must be a multiple of
 * `alignment` (a power of two; 1 = none). Checked at once: id non-empty, unique and free of
 * line breaks and other control characters (a ',' is fine: CSV output quotes it);
 * 0 <= start < end; size > 0; sizes summed stay below 2^61. On success
 * *out_index (if not NULL) receives the buffer's index, which is its place in offset arrays. */
MEMPLAN_C_API memplan_error memplan_problem_add_buffer(memplan_problem* problem, const char* id,
                                                       int64_t start, int64_t end, int64_t size,
                                                       int64_t alignment, size_t* out_index);

/* Pre-places buffer `index`: every plan puts it exactly at `offset` (>= 0, a multiple of its
 * alignment). */
MEMPLAN_C_API memplan_error memplan_problem_set_fixed_offset(memplan_problem* problem,
                                                             size_t index, int64_t offset);

/* The plan's peak must not exceed `capacity` (>= 0), or MEMPLAN_NO_CAPACITY for none. */
MEMPLAN_C_API memplan_error memplan_problem_set_capacity(memplan_problem* problem,
                                                         int64_t capacity);

MEMPLAN_C_API memplan_error memplan_problem_buffer_count(const memplan_problem* problem,
                                                         size_t* out_count);

/* LOAD: the largest total size live at one instant, a lower bound on every plan's peak. */
MEMPLAN_C_API memplan_error memplan_problem_load(const memplan_problem* problem, int64_t* out_load);

/* ---- options (defaults: algorithm "auto" (else "greedy"), 10 s, seed 1, 1 thread, the
 * problem's capacity) ---- */

MEMPLAN_C_API memplan_error memplan_options_create(memplan_options** out);
MEMPLAN_C_API void memplan_options_destroy(memplan_options* options);

/* A solver name as `memplan list` prints it ("auto", "greedy", "exact", ...). Unknown names
 * fail here with MEMPLAN_ERROR_UNKNOWN_ALGORITHM. */
MEMPLAN_C_API memplan_error memplan_options_set_algorithm(memplan_options* options,
                                                          const char* name);
/* Seconds (finite, >= 0); 0 = no limit. The best plan found by then is returned. */
MEMPLAN_C_API memplan_error memplan_options_set_time_limit(memplan_options* options,
                                                           double seconds);
/* Same seed and thread count, same plan. */
MEMPLAN_C_API memplan_error memplan_options_set_seed(memplan_options* options, uint64_t seed);
/* Worker threads, >= 1. */
MEMPLAN_C_API memplan_error memplan_options_set_threads(memplan_options* options, int threads);
/* Overrides the problem's capacity (>= 0); MEMPLAN_NO_CAPACITY: use the problem's. */
MEMPLAN_C_API memplan_error memplan_options_set_capacity(memplan_options* options,
                                                         int64_t capacity);

/* ---- solving ---- */

/* Plans `problem` (options may be NULL: the defaults). MEMPLAN_OK means the solver ran; whether
 * a plan was found is the result's status (an infeasible capacity is MEMPLAN_OK with status
 * MEMPLAN_STATUS_INFEASIBLE or MEMPLAN_STATUS_NO_PLAN). Every plan returned has passed the
 * independent checker (memplan_validate); one that does not is MEMPLAN_ERROR_INTERNAL. */
MEMPLAN_C_API memplan_error memplan_solve(const memplan_problem* problem,
                                          const memplan_options* options, memplan_result** out);
MEMPLAN_C_API void memplan_result_destroy(memplan_result* result);

MEMPLAN_C_API memplan_error memplan_result_status(const memplan_result* result,
                                                  memplan_status* out_status);
/* *out_has_plan = 1 if the result holds a plan, else 0. */
MEMPLAN_C_API memplan_error memplan_result_has_plan(const memplan_result* result, int* out_has_plan);
/* The plan's peak (largest offset + size). MEMPLAN_ERROR_NO_PLAN without a plan. */
MEMPLAN_C_API memplan_error memplan_result_peak(const memplan_result* result, int64_t* out_peak);
/* The best proven lower bound on the peak (>= LOAD). Also without a plan. */
MEMPLAN_C_API memplan_error memplan_result_lower_bound(const memplan_result* result,
                                                       int64_t* out_lower_bound);
MEMPLAN_C_API memplan_error memplan_result_load(const memplan_result* result, int64_t* out_load);
/* Copies the offsets into out[0..count): count must equal the problem's buffer count.
 * MEMPLAN_ERROR_NO_PLAN without a plan. */
MEMPLAN_C_API memplan_error memplan_result_offsets(const memplan_result* result, int64_t* out,
                                                   size_t count);
/* The offset of buffer `index`. */
MEMPLAN_C_API memplan_error memplan_result_offset(const memplan_result* result, size_t index,
                                                  int64_t* out_offset);

/* ---- checking ---- */

/* Checks offsets[0..count) (count = buffer count) against the problem and its capacity with
 * the independent checker: MEMPLAN_OK when valid; MEMPLAN_ERROR_INVALID_PLAN when not, with
 * the violations in memplan_last_error(). *out_peak (if not NULL) receives the plan's peak
 * when it is valid. */
MEMPLAN_C_API memplan_error memplan_validate(const memplan_problem* problem, const int64_t* offsets,
                                             size_t count, int64_t* out_peak);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MEMPLAN_MEMPLAN_H */
