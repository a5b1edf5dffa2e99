#include "serve/rendered_cache.hpp"

#include <utility>

namespace petricore::serve {

RenderedCache::RenderedCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

RenderedFile RenderedCache::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  ++hits_;
  return it->second->file;
}

void RenderedCache::put(const std::string& key, RenderedFile file) {
  if (!file || file->size() > max_bytes_ / 4) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    bytes_ -= it->second->file->size();
    lru_.erase(it->second);
    index_.erase(it);
  }
  bytes_ += file->size();
  lru_.push_front({key, std::move(file)});
  index_[key] = lru_.begin();
  while (bytes_ > max_bytes_) {
    bytes_ -= lru_.back().file->size();
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

std::size_t RenderedCache::bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_;
}

std::uint64_t RenderedCache::hits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return hits_;
}

}  // namespace petricore::serve
