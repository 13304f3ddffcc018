// Internal to the CLI: reading a problem file by its extension.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "memplan/graph.h"
#include "memplan/io.h"
#include "memplan/schedule.h"
#ifdef MEMPLAN_HAVE_ONNX
#include "memplan/onnx.h"
#endif

namespace memplan {

struct Loaded {
  Problem problem;
  // CSV input: header and unknown columns, to write back in kind (write_csv(out, *table,
  // problem, offsets)); its problem is empty: its rows are `problem`'s buffers.
  std::optional<CsvTable> table;
  // A model (.onnx, or a .jsonl graph file): its graph, the order --schedule chose (`problem` is lowered in it) and
  // the lowering's options, so that a solve can also plan the graph order and keep the better.
  std::optional<Graph> graph;
  bool model = false;  // from a model (.onnx, .jsonl graph), also on several streams (no `graph` then)
  ScheduleResult scheduled;
  LowerOptions lower;
  // JSON input: the document may have memories, swap, durations or a buffer's space fields
  // (JsonReadOptions::space_fields); when not, they are not read again.
  bool json_space_fields = true;
};

// True iff `path` ends with `suffix` (e.g. ".json").
bool has_extension(const std::string& path, const std::string& suffix);

// How model files (.onnx) are read: symbolic dims and input shapes bound before shape
// inference, and whether a tensor of unknown size is an error.
struct ModelOptions {
  std::vector<std::string> dims;    // NAME=VALUE
  std::vector<std::string> inputs;  // NAME=1x3x640x640
  bool strict = false;
  bool no_alias = false;            // every tensor its own buffer (no views, no in-place)
  std::string schedule = "memory";  // execution order: graph, memory or exact (schedule.h)
  bool schedule_given = false;      // --schedule on the command line (refused with streams)
  double schedule_time_limit = 10.0;  // seconds for choosing the order (<= 0: none)
  uint64_t schedule_seed = 1;         // the local search's seed
  int32_t streams = 0;  // > 0: run on this many streams (graph_streams.h), branches round-robin
};

// The model as a partial order when it runs on several streams: --streams N, or node stream
// annotations (then at least max + 1 streams); nullopt otherwise. Graph order, no in-place.
std::optional<Problem> streams_problem(Graph& g, const ModelOptions& model, const LowerOptions& lower);
// Adds --dim, --input, --strict, --no-alias and --schedule to a subcommand.
void add_model_options(CLI::App* cmd, ModelOptions& m);

// .onnx (when built with ONNX, read per `model`), .jsonl (a memplan graph file, graph_io.h;
// scheduled per `model` like a model), .json, .plc (idealloc binary trace), anything else CSV with
// `lifetimes` "half-open" or "inclusive". Throws InputError on bad input. `lenient`: unknown
// JSON fields are warnings, not errors. Warnings (also a CSV column one edit away from a
// known one) go to stderr. `stop` is polled while a partial order's conflicts are derived,
// after parsing (CSV and JSON; read_csv); when it says so, DerivationStopped is thrown.
Loaded load_problem_as_given(const std::string& path, const std::string& lifetimes,
                             const ModelOptions& model = {}, bool lenient = false,
                             const std::function<bool()>& stop = {});

// A model's import warnings to stderr (the first 10 and a count of the rest), then, when
// some tensors have unknown sizes (`graph` from onnx_graph, before onnx_sized), one line
// saying how many of the tensors it would plan (weights only with `include_weights`) are
// left out and which graph inputs have unknown dims: the per-tensor warnings name each one,
// but a model exported with dynamic axes gets hundreds, and a plan of what is left (often
// nothing: peak 0) would otherwise pass for the model's plan. (Defined in every build: it
// reads only the graph.)
void print_model_warnings(const std::vector<std::string>& warnings, const Graph& graph, const std::string& path,
                          bool include_weights);

#ifdef MEMPLAN_HAVE_ONNX
// The import options `model` asks for; throws InputError on a malformed --dim or --input.
OnnxImportOptions onnx_options(const ModelOptions& model);
#endif

}  // namespace memplan
