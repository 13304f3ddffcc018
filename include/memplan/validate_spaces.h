// memplan: independent checks of plans with several memories and with swaps, written from
// the specifications in memories.h and swap.h. Shares no code with the planners (only the
// plain structs and the offset checker validate.h).
#pragma once

#include <string>
#include <vector>

#include "memplan/problem.h"
#include "memplan/swap.h"
#include "memplan/validate.h"

namespace memplan {

// space[i] names buffer i's memory. Valid iff: every name is a declared memory allowed for
// the buffer (its `spaces`, or the first declared memory when empty); members of a group sit
// in one memory; every offset is a multiple of its memory's alignment; and the buffers of
// each memory form a valid plan (validate.h) under that memory's capacity, in-place sharing
// counting only inside one memory. peak = the largest per-memory peak; `peaks` gets each.
Validation validate_spaces(const Problem& p, const std::vector<std::string>& space,
                           const std::vector<int64_t>& offsets, std::vector<int64_t>* peaks = nullptr);

// Valid iff: every eviction is of an evictable buffer, lies strictly between two
// consecutive uses (none inside [lo, hi), lo after one use, hi at or before the next), and
// does not overlap another eviction or gap of that buffer; the transfers are exactly one out
// ending at lo and one in starting at hi per eviction, the out starting after the previous
// use, the in ending at or before the next use, each long enough (durations x bandwidth >=
// size, unless bandwidth is 0); at most `channels` transfers run in any step; and the offsets
// form a valid plan of the problem with every eviction added as a gap, within `capacity`.
// With swap.allow_stall the last two copy rules are waived (copies may be short and queue;
// the stall pays for it). Split mode: an eviction with back >= 0 moves its buffer to offset
// `back` from hi on; the buffer is then checked as pieces [start, lo_1), [hi_1, lo_2), ...
// each at its own offset (offsets[i] for the first), and may not be a buffer with in-place
// links, a group, a fixed offset or side=high.
Validation validate_swaps(const Problem& p, const std::vector<int64_t>& offsets, int64_t capacity,
                          const std::vector<Eviction>& evictions, const std::vector<Transfer>& transfers,
                          const SwapOptions& swap);

// The plan's footprint with absences, for a plan whose transfer schedule is not at hand (a
// plan file): validate_swaps without its copy rules. Every eviction is of an evictable
// buffer, between two uses, apart from its other gaps; the offsets with the absences as gaps
// form a valid plan within `capacity` (split evictions as in validate_swaps).
Validation validate_absences(const Problem& p, const std::vector<int64_t>& offsets, int64_t capacity,
                             const std::vector<Eviction>& evictions);

// Several memories with swapping (memories.h plan_spaces_swap, pinned mode). Valid iff every
// evicted buffer sits in the first memory, the evictions and transfers form a valid swap plan
// (validate_swaps) of the first memory's buffers under its capacity, and validate_spaces
// holds for the problem with each eviction added as a gap and each copy added as a buffer of
// memory `to` (the evicted buffer's size, from its copy out's start to its copy in's end) at
// copy_offsets[k].
Validation validate_spaces_swaps(const Problem& p, const std::vector<std::string>& space,
                                 const std::vector<int64_t>& offsets, const std::vector<Eviction>& evictions,
                                 const std::vector<Transfer>& transfers, const std::vector<int64_t>& copy_offsets,
                                 const std::string& to, const SwapOptions& swap,
                                 std::vector<int64_t>* peaks = nullptr);

// validate_spaces_swaps without the transfers and the copies (a plan file): the evicted
// buffers in the first memory, validate_absences there, validate_spaces with the absences as
// gaps.
Validation validate_spaces_absences(const Problem& p, const std::vector<std::string>& space,
                                    const std::vector<int64_t>& offsets, const std::vector<Eviction>& evictions,
                                    std::vector<int64_t>* peaks = nullptr);

}  // namespace memplan
