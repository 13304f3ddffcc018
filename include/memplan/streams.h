// memplan: lifetimes as a partial order (parallel streams). A buffer of a stream program is
// produced by op `lower` of its stream and last used there by op `upper - 1`; `reads` adds
// its last readers on other streams (stream, op); `after` lists buffers whose every use
// happens before this buffer's producer (a cross-stream event, e.g. a wait on another
// stream's op; a reader on another stream must also be ordered after the producer by such
// events, as a real program's data dependence is). Happens-before is program order on each stream plus these
// events, closed transitively. Buffer a is dead before b (a < b) iff a's last use happens
// strictly before b's producer; two buffers conflict iff neither is dead before the other
// (../shared/research/parallel-streams.md §2). The relation is computed exactly with vector
// clocks (S integers per buffer for S streams), never with an n x n matrix.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "memplan/problem.h"

namespace memplan {

// Receives conflicting pairs one at a time; returns false to stop the enumeration.
using PairSink = std::function<bool(int32_t, int32_t)>;

// Thrown by the derivations below when their `stop` callback says so (a time limit passed
// before every conflict was enumerated): no Problem is returned then.
class DerivationStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StreamBuffer {
  int32_t stream = 0;          // 0 .. streams-1
  int64_t lower = 0;           // producer: op index on its stream
  int64_t upper = 0;           // one past the last use on its stream (> lower)
  std::vector<int32_t> after;  // indices of buffers dead before this one's producer
  std::vector<std::pair<int32_t, int64_t>> reads;  // last readers on other streams: (stream, op)
};

// Per buffer, the death clock (n x streams): component t is one past its last use on
// stream t (0: not used there). a is dead before b iff death(a) <= birth(b) componentwise.
std::vector<int64_t> death_clocks(const std::vector<StreamBuffer>& bufs, int32_t streams);

// Per buffer, the birth clock (row-major, n x streams): component t is how many ops of
// stream t happen before the producer (its own component is `lower`). Throws
// std::invalid_argument when the events form a cycle (a deadlock) or a field is out of range.
std::vector<int64_t> birth_clocks(const std::vector<StreamBuffer>& bufs, int32_t streams);

// Calls emit(a, b) (a < b) once for every conflicting pair under the clocks, nothing stored.
// Returns false as soon as `emit` returns false or `stop` (polled every 256 buffers) says so.
// Output-sensitive: per buffer, only the buffers of each stream still live at its birth
// clock are scanned.
bool stream_conflicts(const std::vector<StreamBuffer>& bufs, int32_t streams, const std::vector<int64_t>& birth,
                      const std::vector<int64_t>& death, const PairSink& emit,
                      const std::function<bool()>& stop = {});

}  // namespace memplan

namespace memplan {

// The stream program as a Problem whose conflict relation (timeline.h: interval overlap +
// explicit conflicts) is exactly the program's: [start, end) come from one linear extension
// of the ops (each stream in order, a waiting op after the uses it waits for; overlap there
// implies a conflict), and every conflicting pair that does not overlap there becomes an
// explicit conflict. ids are "b<index>" unless `ids` is given. Throws std::invalid_argument
// on a cycle or bad fields, std::length_error beyond `max_pairs` conflicting pairs,
// DerivationStopped when `stop` says so.
Problem problem_from_streams(const std::vector<StreamBuffer>& bufs, const std::vector<int64_t>& sizes,
                             int32_t streams, int64_t max_pairs = 50'000'000,
                             const std::vector<std::string>* ids = nullptr, const std::function<bool()>& stop = {});

}  // namespace memplan

namespace memplan {

// Calls emit(min, max) once for every clock-conflicting pair of n buffers with vector clocks (row-major,
// n x dim; a is dead before b iff upper(a) <= lower(b) componentwise). `start` is any scalar
// time with upper(a) <= lower(b) => start(a) < start(b) (e.g. a linear extension); then of a
// pair only the earlier-starting one can be dead first, and per buffer only the earlier ones
// whose upper exceeds its lower in some component are reported, by max trees over each
// component: O((hits + 1) dim log n) per buffer. Returns false as soon as `emit` returns
// false or `stop` (polled every 256 buffers) says so.
bool clock_conflicts(int32_t dim, const std::vector<int64_t>& lower, const std::vector<int64_t>& upper,
                     const std::vector<int64_t>& start, const PairSink& emit, const std::function<bool()>& stop = {});

// Appends to p.conflicts the pairs `enumerate` passes to its sink whose lifetimes do not
// overlap in p (the others conflict anyway), in the order given. `enumerate` runs twice
// (count, then fill an exactly sized list: no more memory than the list itself) and must
// give the same pairs both times. Throws std::length_error beyond `max_pairs` pairs seen,
// DerivationStopped when `enumerate` returns false for any other reason (its stop).
void add_hidden_conflicts(Problem& p, int64_t max_pairs, const std::function<bool(const PairSink&)>& enumerate);

// Buffers given directly by vector clocks (OmniMalloc's `a:b:c` lifetimes) as a Problem:
// [start, end) = [sum of lower, sum of upper) (a linear extension: upper(a) <= lower(b)
// gives end(a) <= start(b)), plus every clock conflict that does not overlap there as an
// explicit conflict, and the clocks themselves. Throws std::invalid_argument naming the buffer
// when a row has the wrong length, a negative component, lower > upper in some component or
// lower == upper; std::length_error beyond `max_pairs` conflicting pairs; DerivationStopped
// when `stop` says so.
Problem problem_from_clocks(int32_t dim, const std::vector<int64_t>& lower, const std::vector<int64_t>& upper,
                            const std::vector<int64_t>& sizes, const std::vector<std::string>& ids,
                            int64_t max_pairs = 50'000'000, const std::function<bool()>& stop = {});

}  // namespace memplan

namespace memplan {

// The explicit conflicts of `p` that its vector clocks do not imply (all of them when it
// has no clocks): what a writer must keep besides the clocks. O(#pairs x clock_dim).
std::vector<std::pair<int32_t, int32_t>> conflicts_beyond_clocks(const Problem& p);

}  // namespace memplan
