#include "adapters/kubernetes/reflector.hpp"

#include <spdlog/spdlog.h>

#include <random>
#include <type_traits>
#include <utility>

#include "model/printable.hpp"

namespace unisched::adapters::kubernetes {
namespace {

template <class Object>
model::Expected<ObjectList<Object>, std::string> read_page(KubeReader& reader,
                                                           std::string_view json) {
  if constexpr (std::is_same_v<Object, NodeReading>) {
    return reader.node_list(json);
  } else {
    return reader.pod_list(json);
  }
}

template <class Object>
model::Expected<WatchEvent<Object>, std::string> read_event(KubeReader& reader,
                                                            std::string_view json) {
  if constexpr (std::is_same_v<Object, NodeReading>) {
    return reader.node_event(json);
  } else {
    return reader.pod_event(json);
  }
}

std::string query_separator(const std::string& path) {
  return path.find('?') == std::string::npos ? "?" : "&";
}

}  // namespace

template <class Object>
Reflector<Object>::Reflector(ClusterAccess access, std::string path, std::string what, Sink sink,
                             ReflectorSettings settings)
    : client_(std::move(access)),
      path_(std::move(path)),
      what_(std::move(what)),
      sink_(std::move(sink)),
      settings_(settings),
      backoff_(settings.first_backoff),
      thread_([this] { run(); }) {}

template <class Object>
Reflector<Object>::~Reflector() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

template <class Object>
void Reflector<Object>::run() {
  while (!stop_) {
    if (!listed_ && !list()) {
      continue;
    }
    watch();
  }
}

template <class Object>
bool Reflector<Object>::list() {
  std::vector<Object> items;
  std::string continue_token;
  size_t pages = 0;
  do {
    std::string path =
        path_ + query_separator(path_) + "limit=" + std::to_string(settings_.page_size);
    if (!continue_token.empty()) {
      path += "&continue=" + query_escape(continue_token);
    }
    const HttpResponse response = client_.call("GET", path, {}, settings_.page_timeout);
    auto page = response.error.empty()
                    ? read_page<Object>(reader_, response.body)
                    : model::Expected<ObjectList<Object>, std::string>(response.error);
    if (!response.ok() || !page) {
      ++counters_.errors;
      note_failure("listing " + what_ + " failed (" + std::to_string(response.status) +
                   "): " + model::quoted_brief(page ? response.body : page.error()));
      spdlog::warn("kubernetes: listing {} failed ({}): {}", what_, response.status,
                   model::quoted_brief(page ? response.body : page.error()));
      back_off();  // a 410 on a continue token starts the list over, as any other failure
      return false;
    }
    ++counters_.pages;
    for (const std::string& skipped : page->skipped) {
      ++counters_.skipped;
      spdlog::warn("kubernetes: {} {} skipped: {}", what_, "list item", model::printable(skipped));
    }
    std::move(page->items.begin(), page->items.end(), std::back_inserter(items));
    if (items.size() > settings_.max_list_items || ++pages > settings_.max_list_pages) {
      // A continue token that never ends (a broken or hostile server) would grow the list
      // without bound while the old view still looked current.
      ++counters_.errors;
      note_failure("listing " + what_ + " gave up after " + std::to_string(items.size()) +
                   " items in " + std::to_string(pages) + " pages");
      spdlog::error(
          "kubernetes: listing {} gave up after {} items in {} pages: more than a list "
          "may hold ({} items, {} pages); trying again later",
          what_, items.size(), pages, settings_.max_list_items, settings_.max_list_pages);
      back_off();
      return false;
    }
    continue_token = page->continue_token;
    resource_version_ = page->resource_version;
  } while (!continue_token.empty() && !stop_);
  spdlog::info("kubernetes: listed {} {} at resourceVersion {}", items.size(), what_,
               model::quoted_brief(resource_version_));
  sink_.replace(std::move(items));
  note_success();
  ++counters_.lists;
  listed_ = true;
  backoff_ = settings_.first_backoff;
  return true;
}

template <class Object>
void Reflector<Object>::watch() {
  const std::string path = path_ + query_separator(path_) + "watch=true&allowWatchBookmarks=true" +
                           "&resourceVersion=" + query_escape(resource_version_) +
                           "&timeoutSeconds=" + std::to_string(settings_.watch_timeout.count());
  ++counters_.watches;
  bool expired = false;
  bool answered = false;
  const auto on_line = [&](std::string_view line) {
    if (!std::exchange(answered, true)) {
      note_success();  // the watch is streaming: whatever failed before has passed
    }
    auto event = read_event<Object>(reader_, line);
    if (!event) {
      ++counters_.skipped;
      spdlog::warn("kubernetes: {} watch event skipped: {}", what_,
                   model::quoted_brief(event.error()));
      return true;
    }
    if (event->type == WatchEventType::Error) {
      expired = event->status && event->status->code == 410;
      spdlog::info("kubernetes: {} watch ended by the server: {} {}", what_,
                   event->status ? event->status->code : 0,
                   event->status ? model::quoted_brief(event->status->message) : "");
      return false;
    }
    if (!event->resource_version.empty()) {
      resource_version_ = event->resource_version;
    }
    if (event->type == WatchEventType::Bookmark) {
      ++counters_.bookmarks;
    } else if (event->object) {
      ++counters_.events;
      sink_.apply(event->type, std::move(*event->object));
    } else {
      ++counters_.skipped;
      spdlog::warn("kubernetes: {} object skipped: {}", what_, model::printable(event->skipped));
    }
    return true;
  };
  const HttpResponse response =
      client_.stream(path, on_line, stop_, settings_.watch_timeout + settings_.watch_grace);
  if (expired || response.status == 410) {
    ++counters_.expired;
    listed_ = false;  // the version is gone: the whole collection again
    return;
  }
  if (response.error.empty() && response.status >= 300) {
    // The server answered but will not watch from this version (e.g. "Too large resource
    // version" after it restarted from older state): what we hold cannot be trusted.
    ++counters_.errors;
    const auto status = reader_.status(response.body);
    note_failure("watching " + what_ + " refused (" + std::to_string(response.status) +
                 "): " + model::quoted_brief(status ? status->message : response.body));
    spdlog::warn("kubernetes: watching {} refused ({}): {}; listing again", what_, response.status,
                 model::quoted_brief(status ? status->message : response.body));
    listed_ = false;
    back_off();
    return;
  }
  if (!response.error.empty() || response.status >= 300) {
    if (!stop_) {
      ++counters_.errors;
      note_failure("watching " + what_ + " failed (" + std::to_string(response.status) + "): " +
                   model::quoted_brief(response.error.empty() ? response.body : response.error));
      spdlog::warn("kubernetes: watching {} failed ({}): {}", what_, response.status,
                   model::quoted_brief(response.error.empty() ? response.body : response.error));
      back_off();
    }
    return;
  }
  note_success();
  backoff_ = settings_.first_backoff;  // a watch that ran and ended: watch again at once
}

template <class Object>
void Reflector<Object>::note_failure(std::string failure) {
  std::lock_guard<std::mutex> guard(trouble_mutex_);
  if (!failing_since_) {
    failing_since_ = std::chrono::steady_clock::now();
  }
  last_failure_ = std::move(failure);
}

template <class Object>
void Reflector<Object>::note_success() {
  std::lock_guard<std::mutex> guard(trouble_mutex_);
  failing_since_.reset();
  last_failure_.clear();
}

template <class Object>
std::string Reflector<Object>::trouble() const {
  std::lock_guard<std::mutex> guard(trouble_mutex_);
  if (!failing_since_) {
    return {};
  }
  const auto failing = std::chrono::steady_clock::now() - *failing_since_;
  if (failing < settings_.unhealthy_after) {
    return {};
  }
  return last_failure_ + " (failing for " +
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(failing).count()) + " s)";
}

template <class Object>
void Reflector<Object>::back_off() {
  static thread_local std::mt19937 random{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0.5, 1.5);
  sleep_for(std::chrono::milliseconds(
      static_cast<int64_t>(static_cast<double>(backoff_.count()) * jitter(random))));
  backoff_ = std::min(backoff_ * 2, settings_.max_backoff);
}

template <class Object>
void Reflector<Object>::sleep_for(std::chrono::milliseconds pause) {
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait_for(lock, pause, [&] { return stop_.load(); });
}

template class Reflector<NodeReading>;
template class Reflector<PodReading>;

}  // namespace unisched::adapters::kubernetes
