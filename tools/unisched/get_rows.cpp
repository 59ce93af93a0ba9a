#include "tools/unisched/get_rows.hpp"

#include <absl/strings/str_format.h>
#include <yaml-cpp/yaml.h>

#include "model/printable.hpp"
#include "tools/unisched/table.hpp"

namespace unisched::cli {
namespace {

using absl::StrFormat;

std::string text(const std::string& value) {
  return model::printable(value);
}

unsigned long long count(uint64_t value) {
  return static_cast<unsigned long long>(value);
}

std::string free_devices(const v1::ClusterSummary& cluster) {
  return std::to_string(cluster.free_devices()) + "/" + std::to_string(cluster.devices());
}

std::string detail_of(const v1::RequestStatus& request) {
  if (request.detail().empty() && request.decision().reasons_size() > 0) {
    return request.decision().reasons(0);
  }
  return request.detail();
}

void emit(YAML::Emitter& out, const runtime::Json& value) {
  if (value.is_object()) {
    out << YAML::BeginMap;
    for (const auto& [key, item] : value.items()) {
      out << YAML::Key << key << YAML::Value;
      emit(out, item);
    }
    out << YAML::EndMap;
  } else if (value.is_array()) {
    out << YAML::BeginSeq;
    for (const auto& item : value) {
      emit(out, item);
    }
    out << YAML::EndSeq;
  } else if (value.is_string()) {
    out << value.get<std::string>();
  } else if (value.is_null()) {
    out << YAML::Null;
  } else {
    out << value.dump();  // numbers and booleans as JSON writes them, which YAML reads alike
  }
}

}  // namespace

GetTable cluster_table(const v1::ClusterList& list, bool wide) {
  const int width = name_column_width(
      list.clusters(), [](const auto& c) { return text(c.cluster_id()); }, "CLUSTER");
  GetTable table;
  table.heading = StrFormat("%-*s %8s %7s %8s %8s %9s", width, "CLUSTER", "VERSION", "NODES",
                            "HEALTHY", "RESYNCS", "STALE(ms)");
  if (wide) {
    table.heading += StrFormat(" %8s %5s %9s %12s %9s", "UPDATES", "GAPS", "THROTTLED",
                               "RESERVATIONS", "GPUS-FREE");
  }
  table.heading += " PLACEMENTS";
  for (const auto& c : list.clusters()) {
    GetRow row;
    row.key = c.cluster_id();
    row.line = StrFormat("%-*s %8llu %7llu %8s %8llu %9lld", width, text(c.cluster_id()).c_str(),
                         count(c.version()), count(c.nodes()), c.healthy() ? "yes" : "no",
                         count(c.resyncs()), static_cast<long long>(c.staleness_ms()));
    if (wide) {
      row.line +=
          StrFormat(" %8llu %5llu %9llu %12llu %9s", count(c.updates_applied()), count(c.gaps()),
                    count(c.throttled()), count(c.reservations()), free_devices(c).c_str());
    }
    // A view-only cluster joined through the seed's service, which carries no orders.
    row.line += c.view_only() ? " none (view only)" : " yes";
    row.changes = StrFormat("%llu %llu %d %llu %llu %llu", count(c.version()), count(c.nodes()),
                            c.healthy() ? 1 : 0, count(c.resyncs()), count(c.gaps()),
                            count(c.free_devices()));
    row.object = {{"id", c.cluster_id()},
                  {"version", c.version()},
                  {"nodes", c.nodes()},
                  {"nodes_left_out", c.nodes_left_out()},
                  {"healthy", c.healthy()},
                  {"view_only", c.view_only()},
                  {"updates_applied", c.updates_applied()},
                  {"resyncs", c.resyncs()},
                  {"gaps", c.gaps()},
                  {"throttled", c.throttled()},
                  {"staleness_ms", c.staleness_ms()}};
    table.rows.push_back(std::move(row));
  }
  return table;
}

GetTable request_table(const v1::RequestList& list, bool wide) {
  GetTable table;
  table.heading = StrFormat("%-28s %-17s %9s %10s", "REQUEST", "PHASE", "REPLICAS", "RECOVERED");
  table.heading +=
      wide ? StrFormat(" %8s %11s %-12s %s", "ATTEMPTS", "LATENCY(ms)", "QUEUE", "DETAIL")
           : " DETAIL";
  for (const auto& request : list.requests()) {
    const auto& decision = request.decision();
    const std::string phase = v1::RequestStatus::Phase_Name(request.phase());
    GetRow row;
    row.key = request.request_id();
    row.line = StrFormat("%-28s %-17s %9d %10s", text(request.request_id()).c_str(), phase.c_str(),
                         decision.replicas_size(), request.recovered() ? "yes" : "no");
    row.line += wide ? StrFormat(" %8u %11.2f %-12s %s", decision.attempts(),
                                 static_cast<double>(decision.latency_us()) / 1000.0,
                                 text(decision.queue()).c_str(), text(detail_of(request)).c_str())
                     : " " + text(detail_of(request));
    row.changes = phase + " " + std::to_string(decision.replicas_size()) + " " +
                  detail_of(request) + " " + std::to_string(request.finished_size());
    row.object = runtime::proto_json(request);
    table.rows.push_back(std::move(row));
  }
  return table;
}

GetTable decision_table(const v1::RequestList& list, bool wide) {
  GetTable table;
  table.heading = StrFormat("%-28s %-24s %-22s %-24s %8s %11s", "REQUEST", "PLACEMENT", "CLUSTER",
                            "NODE", "ATTEMPTS", "LATENCY(ms)");
  if (wide) {
    table.heading += " DEVICES";
  }
  for (const auto& request : list.requests()) {
    const auto& decision = request.decision();
    for (const auto& replica : decision.replicas()) {
      GetRow row;
      row.key = replica.placement_id();
      row.line = StrFormat("%-28s %-24s %-22s %-24s %8u %11.2f", text(request.request_id()).c_str(),
                           text(replica.placement_id()).c_str(), text(replica.cluster()).c_str(),
                           text(replica.node()).c_str(), decision.attempts(),
                           static_cast<double>(decision.latency_us()) / 1000.0);
      if (wide) {
        std::string devices;
        for (int i = 0; i < replica.devices_size(); ++i) {
          devices += (i == 0 ? "" : ",") + std::to_string(replica.devices(i));
        }
        row.line += " " + (devices.empty() ? std::string("-") : devices);
      }
      row.changes = replica.cluster() + "/" + replica.node();
      row.object = runtime::proto_json(replica);
      row.object["request_id"] = request.request_id();
      table.rows.push_back(std::move(row));
    }
  }
  return table;
}

std::string json_as_yaml(const runtime::Json& value) {
  YAML::Emitter out;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace unisched::cli
