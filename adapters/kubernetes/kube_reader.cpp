#include <algorithm>
#include <iterator>

#include "adapters/kubernetes/readers.hpp"

namespace unisched::adapters::kubernetes {

struct KubeReader::Parser {
  simdjson::dom::parser parser;
};

namespace {

std::optional<ApiStatus> status_of(Element object) {
  if (text(object, "kind") != "Status") {
    return std::nullopt;
  }
  ApiStatus status;
  int64_t code = 0;
  if (field(object, "code").get(code) == simdjson::SUCCESS) {
    status.code = static_cast<int>(code);
  }
  status.reason = std::string(text(object, "reason"));
  status.message = std::string(text(object, "message"));
  return status;
}

std::string describe(const ApiStatus& status) {
  return "the API answered " + std::to_string(status.code) + " " + status.reason + ": " +
         status.message;
}

template <class Object, class Read>
model::Expected<ObjectList<Object>, std::string> read_list(Element document, const char* kind,
                                                           Read read) {
  if (const auto status = status_of(document)) {
    return describe(*status);
  }
  // kubectl writes what it lists as a List.
  if (text(document, "kind") != kind && text(document, "kind") != "List") {
    return "kind: expected " + std::string(kind) + ", got \"" +
           std::string(text(document, "kind")) + "\"";
  }
  ObjectList<Object> list;
  Element metadata;
  if (child(document, "metadata", metadata)) {
    list.resource_version = std::string(text(metadata, "resourceVersion"));
    list.continue_token = std::string(text(metadata, "continue"));
  }
  size_t index = 0;
  each_item(document, "items", [&](Element item) {
    auto object = read(item);
    if (object) {
      list.items.push_back(std::move(object.value()));
    } else {
      Element item_metadata;
      const std::string name = child(item, "metadata", item_metadata)
                                   ? std::string(text(item_metadata, "name"))
                                   : std::string();
      list.skipped.push_back("items[" + std::to_string(index) + "] (\"" + name +
                             "\"): " + object.error());
    }
    ++index;
  });
  return list;
}

template <class Object, class Read>
model::Expected<WatchEvent<Object>, std::string> read_event(Element document, Read read) {
  static const std::pair<std::string_view, WatchEventType> kTypes[] = {
      {"ADDED", WatchEventType::Added},
      {"MODIFIED", WatchEventType::Modified},
      {"DELETED", WatchEventType::Deleted},
      {"BOOKMARK", WatchEventType::Bookmark},
      {"ERROR", WatchEventType::Error}};
  const std::string_view type = text(document, "type");
  WatchEvent<Object> event;
  const auto known = std::find_if(std::begin(kTypes), std::end(kTypes),
                                  [&](const auto& entry) { return entry.first == type; });
  if (known == std::end(kTypes)) {
    return "type: Unsupported value: \"" + std::string(type) + "\"";
  }
  event.type = known->second;
  Element object;
  if (!child(document, "object", object)) {
    return std::string("object: Required value");
  }
  Element metadata;
  if (child(object, "metadata", metadata)) {
    event.resource_version = std::string(text(metadata, "resourceVersion"));
  }
  if (event.type == WatchEventType::Error) {
    event.status = status_of(object).value_or(ApiStatus{});
    return event;
  }
  if (event.type == WatchEventType::Bookmark) {
    return event;
  }
  auto read_object = read(object);
  if (read_object) {
    event.object = std::move(read_object.value());
  } else {
    event.skipped = read_object.error();
  }
  return event;
}

/// The document `json` holds, or why it is not JSON. It lives until `parser` parses again.
model::Expected<Element, std::string> parse(simdjson::dom::parser& parser, std::string_view json) {
  Element document;
  if (const auto failure = parser.parse(json.data(), json.size()).get(document);
      failure != simdjson::SUCCESS) {
    return std::string("not JSON: ") + simdjson::error_message(failure);
  }
  return document;
}

}  // namespace

KubeReader::KubeReader() : parser_(std::make_unique<Parser>()) {}
KubeReader::~KubeReader() = default;

model::Expected<ObjectList<NodeReading>, std::string> KubeReader::node_list(std::string_view json) {
  const auto document = parse(parser_->parser, json);
  return document ? read_list<NodeReading>(*document, "NodeList", read_node)
                  : model::Expected<ObjectList<NodeReading>, std::string>(document.error());
}

model::Expected<ObjectList<PodReading>, std::string> KubeReader::pod_list(std::string_view json) {
  const auto document = parse(parser_->parser, json);
  return document ? read_list<PodReading>(*document, "PodList", read_pod)
                  : model::Expected<ObjectList<PodReading>, std::string>(document.error());
}

model::Expected<WatchEvent<NodeReading>, std::string> KubeReader::node_event(
    std::string_view json) {
  const auto document = parse(parser_->parser, json);
  return document ? read_event<NodeReading>(*document, read_node)
                  : model::Expected<WatchEvent<NodeReading>, std::string>(document.error());
}

model::Expected<WatchEvent<PodReading>, std::string> KubeReader::pod_event(std::string_view json) {
  const auto document = parse(parser_->parser, json);
  return document ? read_event<PodReading>(*document, read_pod)
                  : model::Expected<WatchEvent<PodReading>, std::string>(document.error());
}

std::optional<ApiStatus> KubeReader::status(std::string_view json) {
  const auto document = parse(parser_->parser, json);
  return document ? status_of(*document) : std::nullopt;
}

}  // namespace unisched::adapters::kubernetes
