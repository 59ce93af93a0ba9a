// Keeps one collection (Nodes or Pods) current the way client-go's reflector does: list in pages,
// then watch from the list's resourceVersion with bookmarks; when a watch ends, watch again from
// the last version seen; on 410 (an HTTP status or an ERROR event: the code counts, not the
// reason), or any other refusal of the watch by a server that answers (a restarted one saying
// "Too large resource version"), list again from scratch; while the server cannot be reached,
// keep what is held and try the watch again. Errors back off exponentially with jitter, never
// spinning. Runs on its own thread; `replace` and `apply` are called on it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kubernetes/api_client.hpp"
#include "adapters/kubernetes/kube_objects.hpp"

namespace unisched::adapters::kubernetes {

struct ReflectorSettings {
  int page_size = 500;                      ///< items per list page
  size_t max_list_items = 1'000'000;        ///< a list longer than this is an error
  size_t max_list_pages = 10'000;           ///< and so is one that goes on for more pages
  std::chrono::seconds watch_timeout{300};  ///< asked of the server; a watch then ends cleanly
  /// Beyond watch_timeout, how long the client waits before it gives a silent watch up.
  std::chrono::seconds watch_grace{30};
  std::chrono::seconds page_timeout{60};  ///< one list page's call (kube-apiserver's own limit)
  std::chrono::milliseconds first_backoff{200};
  std::chrono::milliseconds max_backoff{10000};
  /// Failing this long (no list completed, no watch answered), the collection is in trouble:
  /// its agent reports the cluster unhealthy rather than a view that has stopped moving.
  std::chrono::milliseconds unhealthy_after{10000};
};

struct ReflectorCounters {
  std::atomic<uint64_t> lists{0};  ///< complete (re)lists
  std::atomic<uint64_t> pages{0};
  std::atomic<uint64_t> watches{0};  ///< watch requests started
  std::atomic<uint64_t> events{0};   ///< ADDED, MODIFIED, DELETED applied
  std::atomic<uint64_t> bookmarks{0};
  std::atomic<uint64_t> expired{0};  ///< 410s that forced a relist
  std::atomic<uint64_t> errors{0};   ///< failed requests (each followed by a backoff)
  std::atomic<uint64_t> skipped{0};  ///< objects that could not be read (logged)
};

template <class Object>
class Reflector {
 public:
  struct Sink {
    std::function<void(std::vector<Object>)> replace;   ///< the whole collection, after a list
    std::function<void(WatchEventType, Object)> apply;  ///< one change, in order
  };

  /// Starts at once. `path` is the collection ("/api/v1/nodes"); `what` names it in logs.
  Reflector(ClusterAccess access, std::string path, std::string what, Sink sink,
            ReflectorSettings settings = {});
  ~Reflector();  ///< stops and joins the thread
  Reflector(const Reflector&) = delete;
  Reflector& operator=(const Reflector&) = delete;

  /// Whether the first list has been handed to the sink.
  bool synced() const { return counters_.lists.load() > 0; }
  const ReflectorCounters& counters() const { return counters_; }
  /// Why the collection is not kept current, when its requests have failed for at least
  /// settings.unhealthy_after (with the last failure); empty otherwise.
  std::string trouble() const;

 private:
  void run();
  bool list();  ///< false after an error (backed off already)
  void watch();
  void back_off();
  void note_failure(std::string failure);
  void note_success();
  void sleep_for(std::chrono::milliseconds pause);

  ApiClient client_;
  KubeReader reader_;
  std::string path_;
  std::string what_;
  Sink sink_;
  ReflectorSettings settings_;
  ReflectorCounters counters_;
  std::string resource_version_;  ///< opaque: only ever handed back to the server
  bool listed_ = false;
  std::chrono::milliseconds backoff_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  mutable std::mutex trouble_mutex_;  // guards the two below, read by the agent's thread
  std::optional<std::chrono::steady_clock::time_point> failing_since_;
  std::string last_failure_;
  std::thread thread_;
};

}  // namespace unisched::adapters::kubernetes
