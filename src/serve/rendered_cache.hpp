// Finished jobs' rendered files (PNG, SVG, PDF, HTML) kept in memory, so
// that a dashboard or a class of students opening the same job's charts
// costs one drawing, not one per request. Thread-safe, bounded in bytes,
// least recently used first out. Only a finished job's files may go in: a
// running job's charts change at every sample.
//
// Keys carry everything the bytes depend on ("plot/123/jobs_rss/png/900x450").
// A hit is served only after the request was authorised against the job
// (serve's handlers look the job up first), so one entry serves every user
// allowed to read that job.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace petricore::serve {

using RenderedFile = std::shared_ptr<const std::string>;

class RenderedCache {
 public:
  // `max_bytes` 0 disables the cache.
  explicit RenderedCache(std::size_t max_bytes);

  RenderedFile find(const std::string& key);
  // A file larger than a quarter of the bound is not kept (it would evict
  // too much for one request).
  void put(const std::string& key, RenderedFile file);

  std::size_t bytes() const;
  std::uint64_t hits() const;

 private:
  struct Entry {
    std::string key;
    RenderedFile file;
  };
  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // front = most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::size_t bytes_ = 0;
  std::uint64_t hits_ = 0;
};

}  // namespace petricore::serve
