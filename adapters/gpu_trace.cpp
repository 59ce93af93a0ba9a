#include "adapters/gpu_trace.hpp"

#include <charconv>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace unisched::adapters {
namespace {

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream stream(line);
  while (std::getline(stream, field, separator)) {
    fields.push_back(field);
  }
  if (!line.empty() && line.back() == separator) {
    fields.emplace_back();  // getline drops a trailing empty field
  }
  return fields;
}

/// The rows of a CSV text as named fields, with the problems of its shape.
class CsvTable {
 public:
  CsvTable(const std::string& text, std::string file) : file_(std::move(file)) {
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
      ++number;
      if (!line.empty() && line.back() == '\r') {
        line.pop_back();
      }
      if (line.empty()) {
        continue;
      }
      if (header_.empty()) {
        header_ = split(line, ',');
        continue;
      }
      rows_.push_back({number, split(line, ',')});
    }
  }

  /// The problem when a required column is missing (reported once, for the header).
  std::optional<std::string> require(const std::vector<std::string>& columns) const {
    for (const std::string& column : columns) {
      if (index(column) < 0) {
        return file_ + ":1: column " + column + ": missing from the header";
      }
    }
    return std::nullopt;
  }

  int index(const std::string& column) const {
    for (size_t i = 0; i < header_.size(); ++i) {
      if (header_[i] == column) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  struct Row {
    int line = 0;
    std::vector<std::string> fields;
  };
  const std::vector<Row>& rows() const { return rows_; }
  const std::string& file() const { return file_; }
  size_t columns() const { return header_.size(); }

 private:
  std::string file_;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

/// Reads the fields of one row by column name, keeping the first problem.
class RowReader {
 public:
  RowReader(const CsvTable& table, const CsvTable::Row& row) : table_(table), row_(row) {
    if (row.fields.size() != table.columns()) {
      problem_ = where("row") + "has " + std::to_string(row.fields.size()) +
                 " fields, the header " + std::to_string(table.columns());
    }
  }

  std::string text(const std::string& column) const {
    const int i = table_.index(column);
    return i < 0 || static_cast<size_t>(i) >= row_.fields.size()
               ? std::string()
               : row_.fields[static_cast<size_t>(i)];
  }

  /// A whole number within [min, max].
  int64_t number(const std::string& column, int64_t min, int64_t max) {
    const std::string value = text(column);
    int64_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (problem_.empty() && (error != std::errc() || end != value.data() + value.size() ||
                             value.empty() || parsed < min || parsed > max)) {
      problem_ = where(column) + "\"" + value + "\" is not a whole number from " +
                 std::to_string(min) + " to " + std::to_string(max);
    }
    return parsed;
  }

  void fail(const std::string& column, const std::string& reason) {
    if (problem_.empty()) {
      problem_ = where(column) + reason;
    }
  }

  const std::string& problem() const { return problem_; }

 private:
  std::string where(const std::string& column) const {
    return table_.file() + ":" + std::to_string(row_.line) + ": " + column + ": ";
  }

  const CsvTable& table_;
  const CsvTable::Row& row_;
  std::string problem_;
};

constexpr int64_t kMaxAmount = int64_t{1} << 40;

/// The name (from `name_column`), cpu_milli and memory_mib every row has.
void read_name_and_size(RowReader& row, const std::string& name_column, std::string& name,
                        int64_t& cpu_milli, int64_t& memory_mib) {
  name = row.text(name_column);
  if (name.empty()) {
    row.fail(name_column, "a row needs a name");
  }
  cpu_milli = row.number("cpu_milli", 0, kMaxAmount);
  memory_mib = row.number("memory_mib", 0, kMaxAmount);
}

template <class Row, class Parse>
TraceRead<Row> parse(const std::string& text, const std::string& file,
                     const std::vector<std::string>& required, Parse parse_row) {
  TraceRead<Row> read;
  const CsvTable table(text, file);
  if (auto missing = table.require(required)) {
    read.problems.push_back(*missing);
    return read;
  }
  for (const auto& row : table.rows()) {
    RowReader reader(table, row);
    Row parsed = parse_row(reader);
    if (reader.problem().empty()) {
      read.rows.push_back(std::move(parsed));
    } else {
      read.problems.push_back(reader.problem());
    }
  }
  return read;
}

std::optional<std::string> read_file(const std::string& path, std::string& problem) {
  std::ifstream in(path);
  if (!in) {
    problem = path + ": cannot be read";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

template <class Row, class Parse>
TraceRead<Row> read_with(const std::string& path, Parse parse_text) {
  std::string problem;
  const auto text = read_file(path, problem);
  if (!text) {
    TraceRead<Row> read;
    read.problems.push_back(problem);
    return read;
  }
  return parse_text(*text, path);
}

}  // namespace

TraceRead<TraceNode> parse_trace_nodes(const std::string& text, const std::string& file) {
  return parse<TraceNode>(
      text, file, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, [](RowReader& row) {
        TraceNode node;
        read_name_and_size(row, "sn", node.name, node.cpu_milli, node.memory_mib);
        node.gpus = static_cast<int32_t>(row.number("gpu", 0, 1024));
        node.model = row.text("model");
        if (node.gpus > 0 && (node.model.empty() || node.model == "nan")) {
          row.fail("model", "a node with GPUs needs their model");
        }
        if (node.gpus == 0) {
          node.model.clear();  // the trace writes "nan" there
        }
        return node;
      });
}

TraceRead<TracePod> parse_trace_pods(const std::string& text, const std::string& file) {
  return parse<TracePod>(text, file, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
                         [](RowReader& row) {
                           TracePod pod;
                           read_name_and_size(row, "name", pod.name, pod.cpu_milli, pod.memory_mib);
                           pod.gpus = static_cast<int32_t>(row.number("num_gpu", 0, 1024));
                           pod.gpu_milli = static_cast<int32_t>(row.number("gpu_milli", 0, 1000));
                           if (pod.gpus > 1 && pod.gpu_milli != 1000) {
                             row.fail("gpu_milli", "a pod of " + std::to_string(pod.gpus) +
                                                       " GPUs takes them whole (1000), not " +
                                                       std::to_string(pod.gpu_milli));
                           }
                           if (pod.gpus > 0 && pod.gpu_milli == 0) {
                             row.fail("gpu_milli", "a pod with GPUs needs a share of them above 0");
                           }
                           if (pod.gpus == 0 && pod.gpu_milli != 0) {
                             row.fail("gpu_milli", "a pod without GPUs takes no share of one");
                           }
                           for (const std::string& model : split(row.text("gpu_spec"), '|')) {
                             if (!model.empty()) {
                               pod.models.push_back(model);
                             }
                           }
                           return pod;
                         });
}

TraceRead<TraceNode> read_trace_nodes(const std::string& path) {
  return read_with<TraceNode>(path, parse_trace_nodes);
}

TraceRead<TracePod> read_trace_pods(const std::string& path) {
  return read_with<TracePod>(path, parse_trace_pods);
}

}  // namespace unisched::adapters
