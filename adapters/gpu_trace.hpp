// Readers for the node and pod lists of Alibaba's GPU cluster trace (openb_*.csv, released with
// the FGD paper): the input of trace replay. Columns are found by name, so the five-column pod
// lists (e.g. multigpu20) read like the full ones. Every bad row is reported with its file,
// line, column and reason, and the rows that are good are kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace unisched::adapters {

/// One GPU node: `gpus` devices of `model`, each 1,000 milli-GPU.
struct TraceNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t gpus = 0;
  std::string model;  ///< empty for a node without GPUs
};

/// One pod. With gpus = 1 and gpu_milli < 1000 it shares one GPU; with gpu_milli = 1000 it takes
/// `gpus` whole GPUs; with gpus = 0 it needs no GPU.
struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t gpus = 0;
  int32_t gpu_milli = 0;            ///< per GPU, 0..1000
  std::vector<std::string> models;  ///< allowed GPU models (gpu_spec "A|B"); empty: any
};

template <class Row>
struct TraceRead {
  std::vector<Row> rows;              ///< every good row, in file order
  std::vector<std::string> problems;  ///< "FILE:LINE: column: reason", one per bad row
};

/// Parses CSV text; `file` names it in problems.
TraceRead<TraceNode> parse_trace_nodes(const std::string& text, const std::string& file);
TraceRead<TracePod> parse_trace_pods(const std::string& text, const std::string& file);

/// Reads and parses a file; a file that cannot be read is one problem.
TraceRead<TraceNode> read_trace_nodes(const std::string& path);
TraceRead<TracePod> read_trace_pods(const std::string& path);

}  // namespace unisched::adapters
