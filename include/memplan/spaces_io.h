// memplan: input of memories, allowed spaces, uses and evictable flags (memories.h, swap.h).
//
// CSV columns (read from the columns read_csv keeps verbatim): `space` (or `spaces`): allowed
// memories, preferred first, separated by '|' (empty: the first declared memory); `uses`:
// space-separated use instants inside [lower, upper) (empty: lower and upper - 1);
// `evictable`: 0/1 (empty: 0); `accesses`: non-negative density weight (empty: the number
// of uses). Memories come from `--memories NAME[=CAPACITY[:ALIGNMENT]],...` or the JSON
// "memories" array ({"name", "capacity", "alignment"}); JSON buffers take "spaces" (array of
// names), "uses" (array), "evictable" (bool) and "accesses".
#pragma once

#include <string>
#include <vector>

#include <functional>
#include <map>

#include "memplan/io.h"
#include "memplan/swap.h"

namespace memplan {

// Fills buffers[r]'s spaces/uses/evictable/accesses from row r of the table's columns
// (`buffers` read from that table). Throws InputError naming file, line and column.
void read_space_columns(const CsvTable& table, std::vector<Buffer>& buffers, const std::string& name);
// Where row r of the CSV file `name` is, for messages: "f.csv:5" (the header is line 1).
std::string csv_row_location(const std::string& name, size_t row);

// True for the columns read_csv itself reads (the others it keeps verbatim in unknown_fields).
bool known_column(const std::string& column);

// Parses "sram=262144:64,dram" (sizes may carry units, parse_byte_size: "sram=4MiB:64").
// Throws InputError naming `where` and the field.
std::vector<Memory> parse_memories(const std::string& spec, const std::string& where);

// The rules: memory names unique, capacity > 0, alignment a power of two; every allowed
// space a declared memory and at least one per buffer that lists any; uses inside the
// lifetime; an evictable buffer has at least two distinct uses; accesses >= 0. `where(i)`
// locates buffer i (none, or empty: "NAME: buffer 'ID'"). Throws InputError ("f.csv:5: field 'space':
// unknown memory 'x'").
void check_spaces(const Problem& p, const std::string& name, const std::function<std::string(size_t)>& where = {});

// What a plan file says beyond offsets: each buffer's chosen memory (CSV column `space`,
// JSON field "space") and its absences (CSV column `evictions`, "lo-hi" pairs separated by
// spaces; JSON field "evictions", an array of [lo, hi]), as solve writes them. `space` is
// empty when the plan has no such column or field; evictions are in buffer order.
struct PlanColumns {
  std::vector<std::string> space;
  std::vector<Eviction> evictions;
  bool has_evictions = false;  // the plan has the column or field (even if none is evicted)
};
// A plan CSV read as read_solution_csv reads it (io.h: the offsets, returned), and with
// `columns` also its `space` and `evictions` columns into *columns. Throws InputError naming
// the file, line and column.
std::vector<int64_t> read_plan_csv(std::istream& in, const std::string& name, const Problem& problem,
                                   PlanColumns* columns);
std::vector<int64_t> read_plan_csv_file(const std::string& path, const Problem& problem, PlanColumns* columns);

// A transfer schedule as solve --transfers writes it (CSV buffer,direction,start,end;
// direction out or in), buffers mapped onto `problem` by id. Throws InputError naming the
// file, line and column.
std::vector<Transfer> read_transfers_csv_file(const std::string& path, const Problem& problem);

}  // namespace memplan

namespace memplan {
// JSON: reads "memories" and the buffers' "spaces", "uses", "evictable", "accesses" from the
// file `path` into `p` (already read by read_json_file, same buffer order); returns each
// buffer's location. Also "durations" (positive integers, time units per step) into
// swap->durations and "swap": {"to": memory, "mode": "pinned"|"split", "channels",
// "bandwidth", "allow_stall"} into *swap, setting *swap_on (either pointer may be null).
// In library memplan_json. Throws InputError naming the file and field.
std::vector<std::string> read_json_spaces(const std::string& path, Problem& p, SwapOptions* swap = nullptr,
                                          bool* swap_on = nullptr);
// A plan as JSON: problem_to_json with offsets, each buffer with its "space" (when
// columns.space is given) and "evictions" ([[lo, hi], ...], when columns.has_evictions;
// columns.evictions index p's buffers).
std::string plan_to_json(const Problem& p, const std::vector<int64_t>& offsets, const PlanColumns& columns,
                         const std::map<std::string, std::string>& extra = {});
// The columns read_plan_csv reads, from a JSON plan (plan_to_json's "space" and "evictions").
PlanColumns read_plan_columns_json_file(const std::string& path, const Problem& problem);
// problem_to_json (io_json.h) plus the "swap" object and "durations" that read_json_spaces reads.
std::string problem_to_json(const Problem& p, const std::vector<int64_t>* offsets, const SwapOptions& swap,
                            const std::map<std::string, std::string>& extra = {});
}  // namespace memplan
