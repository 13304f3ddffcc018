/* The C API from C (compiled as C99 with -pedantic -Werror): a plan that succeeds, a capacity
 * below LOAD, bad input (error code and a message naming the buffer and field), NULL handles.
 * Plans are checked here by a pairwise overlap test written for this file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memplan/memplan.h"

static int passed = 0, failed = 0;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (cond) {                                                              \
      ++passed;                                                              \
    } else {                                                                 \
      ++failed;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                        \
  } while (0)

/* The call returns `code` and the last error message contains every one of the words. */
#define CHECK_ERROR(call, code, words)                                                     \
  do {                                                                                     \
    const memplan_error got_ = (call);                                                     \
    CHECK(got_ == (code));                                                                 \
    if (got_ != (code))                                                                    \
      fprintf(stderr, "  got %d (%s): %s\n", (int)got_, memplan_error_string(got_),        \
              memplan_last_error());                                                       \
    check_words(memplan_last_error(), words, __LINE__);                                    \
  } while (0)

#define WORDS(...) ((const char* const[]){__VA_ARGS__, NULL})

static void check_words(const char* message, const char* const* words, int line) {
  for (; *words; ++words) {
    if (strstr(message, *words)) {
      ++passed;
    } else {
      ++failed;
      fprintf(stderr, "%s:%d: message lacks '%s': %s\n", __FILE__, line, *words, message);
    }
  }
}

typedef struct {
  const char* id;
  int64_t start, end, size, alignment;
} spec;

/* Four buffers; LOAD = 5120 (at t = 1 and t = 2: 1024 + 4096 and 4096 + 1024). */
static const spec kBuffers[] = {
    {"input", 0, 2, 1024, 1}, {"hidden", 1, 3, 4096, 256}, {"output", 2, 4, 1024, 1}, {"tail", 3, 5, 2048, 1}};
enum { kCount = 4 };
static const int64_t kLoad = 5120;

static memplan_problem* make_problem(void) {
  memplan_problem* p = NULL;
  size_t i, index = 99;
  CHECK(memplan_problem_create(&p) == MEMPLAN_OK && p != NULL);
  for (i = 0; i < kCount; ++i) {
    const spec* s = &kBuffers[i];
    CHECK(memplan_problem_add_buffer(p, s->id, s->start, s->end, s->size, s->alignment, &index) == MEMPLAN_OK);
    CHECK(index == i);
  }
  return p;
}

/* 1 iff no two buffers live at the same time share a byte, alignments hold and every
 * offset is >= 0. */
static int plan_ok(const int64_t* offsets) {
  size_t i, j;
  for (i = 0; i < kCount; ++i) {
    if (offsets[i] < 0 || offsets[i] % kBuffers[i].alignment != 0) return 0;
    for (j = i + 1; j < kCount; ++j) {
      const spec *a = &kBuffers[i], *b = &kBuffers[j];
      const int in_time = a->start < b->end && b->start < a->end;
      const int in_space = offsets[i] < offsets[j] + b->size && offsets[j] < offsets[i] + a->size;
      if (in_time && in_space) return 0;
    }
  }
  return 1;
}

static void test_version(void) {
  char expected[64];
  sprintf(expected, "%d.%d.%d", MEMPLAN_VERSION_MAJOR, MEMPLAN_VERSION_MINOR, MEMPLAN_VERSION_PATCH);
  CHECK(strcmp(memplan_version(), MEMPLAN_VERSION) == 0);
  CHECK(strcmp(memplan_version(), expected) == 0);
}

static void test_success(void) {
  memplan_problem* p = make_problem();
  memplan_options* o = NULL;
  memplan_result* r = NULL;
  memplan_status status = MEMPLAN_STATUS_NO_PLAN;
  int64_t offsets[kCount], load = 0, peak = 0, bound = 0, one = -1, checked_peak = 0, top = 0;
  int has_plan = 0;
  size_t i, count = 0;

  CHECK(memplan_problem_buffer_count(p, &count) == MEMPLAN_OK && count == kCount);
  CHECK(memplan_problem_load(p, &load) == MEMPLAN_OK && load == kLoad);
  CHECK(memplan_options_create(&o) == MEMPLAN_OK);
  CHECK(memplan_options_set_algorithm(o, "exact") == MEMPLAN_OK);
  CHECK(memplan_options_set_time_limit(o, 5.0) == MEMPLAN_OK);
  CHECK(memplan_options_set_seed(o, 7) == MEMPLAN_OK);
  CHECK(memplan_options_set_threads(o, 2) == MEMPLAN_OK);
  CHECK(memplan_solve(p, o, &r) == MEMPLAN_OK && r != NULL);
  CHECK(memplan_result_has_plan(r, &has_plan) == MEMPLAN_OK && has_plan == 1);
  CHECK(memplan_result_status(r, &status) == MEMPLAN_OK && status == MEMPLAN_STATUS_OPTIMAL);
  CHECK(memplan_result_offsets(r, offsets, kCount) == MEMPLAN_OK);
  CHECK(plan_ok(offsets));
  for (i = 0; i < kCount; ++i)
    if (offsets[i] + kBuffers[i].size > top) top = offsets[i] + kBuffers[i].size;
  CHECK(memplan_result_peak(r, &peak) == MEMPLAN_OK && peak == top);
  CHECK(peak == kLoad); /* optimal: the instance fits in LOAD (input and output at 0 under hidden) */
  CHECK(memplan_result_lower_bound(r, &bound) == MEMPLAN_OK && bound == kLoad);
  CHECK(memplan_result_load(r, &load) == MEMPLAN_OK && load == kLoad);
  CHECK(memplan_result_offset(r, 1, &one) == MEMPLAN_OK && one == offsets[1]);
  CHECK(memplan_validate(p, offsets, kCount, &checked_peak) == MEMPLAN_OK && checked_peak == peak);

  /* The checker rejects a plan that puts output on top of hidden while both are live. */
  offsets[2] = offsets[1];
  CHECK(!plan_ok(offsets));
  {
    const char* words[] = {"invalid plan", "hidden", "output", NULL};
    CHECK_ERROR(memplan_validate(p, offsets, kCount, NULL), MEMPLAN_ERROR_INVALID_PLAN, words);
  }
  memplan_result_destroy(r);

  /* Default options (NULL), a pre-placed buffer, and the result outliving its problem. */
  {
    size_t fixed = 0;
    int64_t at = -1;
    CHECK(memplan_problem_add_buffer(p, "weights", 0, 5, 512, 1, &fixed) == MEMPLAN_OK && fixed == kCount);
    CHECK(memplan_problem_set_fixed_offset(p, fixed, 8192) == MEMPLAN_OK);
    CHECK(memplan_solve(p, NULL, &r) == MEMPLAN_OK);
    memplan_problem_destroy(p);
    CHECK(memplan_result_offset(r, fixed, &at) == MEMPLAN_OK && at == 8192);
    CHECK(memplan_result_peak(r, &peak) == MEMPLAN_OK && peak == 8192 + 512);
    memplan_result_destroy(r);
  }
  memplan_options_destroy(o);
}

static void test_infeasible_capacity(void) {
  memplan_problem* p = make_problem();
  memplan_options* o = NULL;
  memplan_result* r = NULL;
  memplan_status status = MEMPLAN_STATUS_FEASIBLE;
  int64_t offsets[kCount], bound = 0, peak = 0;
  int has_plan = 1;

  CHECK(memplan_problem_set_capacity(p, kLoad - 1) == MEMPLAN_OK);
  CHECK(memplan_options_create(&o) == MEMPLAN_OK);
  CHECK(memplan_options_set_algorithm(o, "greedy") == MEMPLAN_OK);
  CHECK(memplan_solve(p, o, &r) == MEMPLAN_OK);
  CHECK(memplan_result_status(r, &status) == MEMPLAN_OK && status == MEMPLAN_STATUS_INFEASIBLE);
  CHECK(memplan_result_has_plan(r, &has_plan) == MEMPLAN_OK && has_plan == 0);
  CHECK(memplan_result_lower_bound(r, &bound) == MEMPLAN_OK && bound >= kLoad);
  {
    const char* words[] = {"no plan", "infeasible", NULL};
    const char* why[] = {"explain=t=", ":load=", NULL};  /* solve() explained it */
    CHECK_ERROR(memplan_result_peak(r, &peak), MEMPLAN_ERROR_NO_PLAN, why);
    CHECK_ERROR(memplan_result_peak(r, &peak), MEMPLAN_ERROR_NO_PLAN, words);
    CHECK_ERROR(memplan_result_offsets(r, offsets, kCount), MEMPLAN_ERROR_NO_PLAN, words);
  }
  memplan_result_destroy(r);

  /* The options' capacity overrides the problem's: exactly LOAD fits. */
  CHECK(memplan_options_set_algorithm(o, "exact") == MEMPLAN_OK);
  CHECK(memplan_options_set_capacity(o, kLoad) == MEMPLAN_OK);
  CHECK(memplan_solve(p, o, &r) == MEMPLAN_OK);
  CHECK(memplan_result_status(r, &status) == MEMPLAN_OK && status == MEMPLAN_STATUS_OPTIMAL);
  CHECK(memplan_result_offsets(r, offsets, kCount) == MEMPLAN_OK && plan_ok(offsets));
  memplan_result_destroy(r);

  /* A plan checked against the problem's capacity. */
  {
    const char* words[] = {"invalid plan", "capacity", NULL};
    CHECK_ERROR(memplan_validate(p, offsets, kCount, NULL), MEMPLAN_ERROR_INVALID_PLAN, words);
  }
  CHECK(memplan_problem_set_capacity(p, MEMPLAN_NO_CAPACITY) == MEMPLAN_OK);
  CHECK(memplan_validate(p, offsets, kCount, NULL) == MEMPLAN_OK);
  memplan_options_destroy(o);
  memplan_problem_destroy(p);
}

static void test_bad_input(void) {
  memplan_problem* p = make_problem();
  memplan_options* o = NULL;
  size_t count = 0, index = 77;
  int64_t offsets[kCount] = {0, 1024, 0, 1024};
  {
    const char* words[] = {"'conv1'", "size", "positive", "got 0", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "conv1", 0, 1, 0, 1, &index), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  CHECK(index == 77); /* untouched on failure */
  {
    const char* words[] = {"'relu'", "): end: ", "end must be greater than start", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "relu", 5, 5, 8, 1, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"'neg'", "): start: ", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "neg", -1, 5, 8, 1, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"'odd'", "alignment", "power of two", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "odd", 0, 1, 8, 3, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"'hidden'", "id", "duplicate", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "hidden", 0, 1, 8, 1, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"id", "empty", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "", 0, 1, 8, 1, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"'huge'", "size", "2^61", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, "huge", 0, 1, INT64_MAX - 10, 1, NULL), MEMPLAN_ERROR_INVALID_ARGUMENT,
                words);
  }
  CHECK(memplan_problem_buffer_count(p, &count) == MEMPLAN_OK && count == kCount); /* none was added */
  {
    const char* words[] = {"'hidden'", "offset", "multiple of alignment 256", NULL};
    CHECK_ERROR(memplan_problem_set_fixed_offset(p, 1, 100), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"index 9", "4 buffers", NULL};
    CHECK_ERROR(memplan_problem_set_fixed_offset(p, 9, 0), MEMPLAN_ERROR_OUT_OF_RANGE, words);
  }
  {
    const char* words[] = {"capacity", "-5", NULL};
    CHECK_ERROR(memplan_problem_set_capacity(p, -5), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"count is 3", "4 buffers", NULL};
    CHECK_ERROR(memplan_validate(p, offsets, 3, NULL), MEMPLAN_ERROR_OUT_OF_RANGE, words);
  }
  CHECK(memplan_options_create(&o) == MEMPLAN_OK);
  {
    const char* words[] = {"unknown algorithm", "'no-such-solver'", NULL};
    CHECK_ERROR(memplan_options_set_algorithm(o, "no-such-solver"), MEMPLAN_ERROR_UNKNOWN_ALGORITHM, words);
  }
  {
    const char* words[] = {"time limit", NULL};
    CHECK_ERROR(memplan_options_set_time_limit(o, -1.0), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
    CHECK_ERROR(memplan_options_set_time_limit(o, NAN), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  {
    const char* words[] = {"threads", "got 0", NULL};
    CHECK_ERROR(memplan_options_set_threads(o, 0), MEMPLAN_ERROR_INVALID_ARGUMENT, words);
  }
  memplan_options_destroy(o);
  memplan_problem_destroy(p);
}

static void test_null_handles(void) {
  memplan_problem* p = make_problem();
  memplan_result* r = NULL;
  memplan_status status;
  int64_t value;
  int flag;
  size_t count;
  const char* problem_null[] = {"problem is NULL", NULL};
  const char* result_null[] = {"result is NULL", NULL};
  const char* options_null[] = {"options is NULL", NULL};

  /* destroy(NULL) is a no-op, as free(NULL) is */
  memplan_problem_destroy(NULL);
  memplan_options_destroy(NULL);
  memplan_result_destroy(NULL);

  {
    const char* words[] = {"memplan_problem_create", "out is NULL", NULL};
    CHECK_ERROR(memplan_problem_create(NULL), MEMPLAN_ERROR_NULL_ARGUMENT, words);
  }
  CHECK_ERROR(memplan_problem_add_buffer(NULL, "x", 0, 1, 8, 1, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  {
    const char* words[] = {"memplan_problem_add_buffer", "id is NULL", NULL};
    CHECK_ERROR(memplan_problem_add_buffer(p, NULL, 0, 1, 8, 1, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, words);
  }
  CHECK_ERROR(memplan_problem_set_fixed_offset(NULL, 0, 0), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  CHECK_ERROR(memplan_problem_set_capacity(NULL, 10), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  CHECK_ERROR(memplan_problem_buffer_count(NULL, &count), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  CHECK_ERROR(memplan_problem_load(NULL, &value), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  {
    const char* words[] = {"out_load is NULL", NULL};
    CHECK_ERROR(memplan_problem_load(p, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, words);
  }
  CHECK_ERROR(memplan_options_create(NULL), MEMPLAN_ERROR_NULL_ARGUMENT, WORDS("out is NULL"));
  CHECK_ERROR(memplan_options_set_algorithm(NULL, "greedy"), MEMPLAN_ERROR_NULL_ARGUMENT, options_null);
  CHECK_ERROR(memplan_options_set_time_limit(NULL, 1.0), MEMPLAN_ERROR_NULL_ARGUMENT, options_null);
  CHECK_ERROR(memplan_options_set_seed(NULL, 1), MEMPLAN_ERROR_NULL_ARGUMENT, options_null);
  CHECK_ERROR(memplan_options_set_threads(NULL, 1), MEMPLAN_ERROR_NULL_ARGUMENT, options_null);
  CHECK_ERROR(memplan_options_set_capacity(NULL, 1), MEMPLAN_ERROR_NULL_ARGUMENT, options_null);
  CHECK_ERROR(memplan_solve(NULL, NULL, &r), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  CHECK(r == NULL);
  CHECK_ERROR(memplan_solve(p, NULL, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, WORDS("out is NULL"));
  CHECK_ERROR(memplan_result_status(NULL, &status), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_has_plan(NULL, &flag), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_peak(NULL, &value), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_lower_bound(NULL, &value), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_load(NULL, &value), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_offsets(NULL, &value, 1), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_result_offset(NULL, 0, &value), MEMPLAN_ERROR_NULL_ARGUMENT, result_null);
  CHECK_ERROR(memplan_validate(NULL, &value, 1, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, problem_null);
  CHECK_ERROR(memplan_validate(p, NULL, kCount, NULL), MEMPLAN_ERROR_NULL_ARGUMENT,
              WORDS("offsets is NULL"));

  /* Output pointers on a live result. */
  CHECK(memplan_solve(p, NULL, &r) == MEMPLAN_OK);
  CHECK_ERROR(memplan_result_peak(r, NULL), MEMPLAN_ERROR_NULL_ARGUMENT, WORDS("out_peak is NULL"));
  CHECK_ERROR(memplan_result_offsets(r, NULL, kCount), MEMPLAN_ERROR_NULL_ARGUMENT, WORDS("out is NULL"));
  CHECK(strcmp(memplan_error_string(MEMPLAN_ERROR_NULL_ARGUMENT), "null argument") == 0);
  memplan_result_destroy(r);
  memplan_problem_destroy(p);
}

int main(void) {
  test_version();
  test_success();
  test_infeasible_capacity();
  test_bad_input();
  test_null_handles();
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
