#include "model/series_codec.hpp"

#include "core/deflate.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace petricore::model {
namespace {

constexpr std::string_view kMagic = "PCS1";
constexpr std::size_t kMaxDecoded = 64u << 20;

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
void put_signed(std::string& out, std::int64_t v) {
  put_varint(out, (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));  // zigzag
}
void put_text(std::string& out, const std::string& text) {
  put_varint(out, text.size());
  out += text;
}

std::uint32_t float_bits(double value) {
  float f = static_cast<float>(value);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

std::int64_t milliseconds(double seconds) {
  double ms = std::round(seconds * 1000);
  if (!(ms > -9e15 && ms < 9e15)) return 0;  // out of range or NaN: no time a series has
  return static_cast<std::int64_t>(ms);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= bytes_.size()) return false;
      auto byte = static_cast<unsigned char>(bytes_[at_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return false;
  }
  bool signed_varint(std::int64_t& v) {
    std::uint64_t u;
    if (!varint(u)) return false;
    v = static_cast<std::int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  bool text(std::string& out) {
    std::uint64_t n;
    if (!varint(n) || n > bytes_.size() - at_) return false;
    out.assign(bytes_.substr(at_, n));
    at_ += n;
    return true;
  }
  bool u32(std::uint32_t& v) {
    if (bytes_.size() - at_ < 4) return false;
    v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes_[at_ + i])) << (8 * i);
    at_ += 4;
    return true;
  }
  // A count of things each at least `min_bytes` long: never more than the bytes left can hold.
  bool count(std::uint64_t& n, std::size_t min_bytes) { return varint(n) && n <= (bytes_.size() - at_) / min_bytes; }
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode_series(const std::map<std::string, std::vector<Series>>& by_metric) {
  std::string raw(kMagic);
  put_varint(raw, by_metric.size());
  for (const auto& [name, series] : by_metric) {
    put_text(raw, name);
    put_varint(raw, series.size());
    for (const Series& s : series) {
      put_varint(raw, s.labels.size());
      for (const auto& [key, value] : s.labels) {
        put_text(raw, key);
        put_text(raw, value);
      }
      put_varint(raw, s.samples.size());
      std::int64_t previous = 0, step = 0;
      for (const Sample& sample : s.samples) {
        std::int64_t t = milliseconds(sample.time);
        put_signed(raw, (t - previous) - step);
        step = t - previous;
        previous = t;
      }
      std::uint32_t last = 0;
      for (const Sample& sample : s.samples) {
        std::uint32_t bits = float_bits(sample.value);
        std::uint32_t x = bits ^ last;
        last = bits;
        for (int i = 0; i < 4; ++i) raw += static_cast<char>((x >> (8 * i)) & 0xff);
      }
    }
  }
  return deflate_bytes(raw, 9, DeflateWrapper::Zlib);
}

std::optional<std::map<std::string, std::vector<Series>>> decode_series(std::string_view bytes) {
  std::optional<std::string> raw = inflate_bytes(bytes, kMaxDecoded);
  if (!raw || raw->compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
  Reader in(std::string_view(*raw).substr(kMagic.size()));
  std::map<std::string, std::vector<Series>> out;
  std::uint64_t metrics;
  if (!in.count(metrics, 2)) return std::nullopt;
  for (std::uint64_t m = 0; m < metrics; ++m) {
    std::string name;
    std::uint64_t count;
    if (!in.text(name) || !in.count(count, 2)) return std::nullopt;
    std::vector<Series>& series = out[name];
    for (std::uint64_t k = 0; k < count; ++k) {
      Series s;
      std::uint64_t labels, points;
      if (!in.count(labels, 2)) return std::nullopt;
      for (std::uint64_t l = 0; l < labels; ++l) {
        std::string key, value;
        if (!in.text(key) || !in.text(value)) return std::nullopt;
        s.labels[key] = value;
      }
      if (!in.count(points, 5)) return std::nullopt;
      s.samples.resize(points);
      std::int64_t previous = 0, step = 0;
      for (Sample& sample : s.samples) {
        std::int64_t delta;
        if (!in.signed_varint(delta)) return std::nullopt;
        // In unsigned arithmetic: bytes that are no encoding must not overflow.
        step = static_cast<std::int64_t>(static_cast<std::uint64_t>(step) + static_cast<std::uint64_t>(delta));
        previous = static_cast<std::int64_t>(static_cast<std::uint64_t>(previous) + static_cast<std::uint64_t>(step));
        sample.time = static_cast<double>(previous) / 1000;
      }
      std::uint32_t last = 0;
      for (Sample& sample : s.samples) {
        std::uint32_t x;
        if (!in.u32(x)) return std::nullopt;
        last ^= x;
        float f;
        std::memcpy(&f, &last, sizeof f);
        sample.value = f;
      }
      series.push_back(std::move(s));
    }
  }
  if (!in.done()) return std::nullopt;
  return out;
}

}  // namespace petricore::model
