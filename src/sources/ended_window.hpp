// How an accounting source that has no LIMIT of its own (sacct, the
// jobs_info series) answers jobs_ended over a long window: piece by piece
// from the window's start, stopping once it has `limit` jobs, so that a
// backfill over months that pages with a small limit does not make the
// source print every job of those months on every call. A piece that found
// fewer than a quarter of the limit doubles the next one (a month in about a
// dozen calls where jobs are few); one that was too big to fetch (its output
// overflowed) is fetched again in halves, down to a minute.
#pragma once

#include "core/result.hpp"
#include "model/job_record.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

namespace petricore::sources {

// The jobs of one piece, ended in [from, to), in jobs_ended's order; nullopt
// when the piece was too big to fetch and is longer than the smallest piece
// (else the fetch's error).
using EndedPiece = Result<std::optional<std::vector<model::JobRecord>>>;
constexpr std::int64_t kSmallestEndedPiece = 60;

// `fetch(from, to)` gives an EndedPiece; the first piece spans `first_span`
// seconds. Pieces follow each other, so their jobs joined stay in order.
template <typename Fetch>
Result<std::vector<model::JobRecord>> jobs_ended_in_pieces(std::int64_t since, std::int64_t until, std::size_t limit,
                                                           std::int64_t first_span, Fetch fetch) {
  std::vector<model::JobRecord> jobs;
  std::int64_t span = std::max(first_span, kSmallestEndedPiece);
  for (std::int64_t from = since; from < until && jobs.size() < limit;) {
    const std::int64_t to = until - from > span ? from + span : until;
    EndedPiece piece = fetch(from, to);
    if (!piece) return piece.error();
    if (!*piece) {
      span = std::max(kSmallestEndedPiece, (to - from) / 2);
      continue;
    }
    std::vector<model::JobRecord>& found = **piece;
    if (found.size() * 4 < limit) span = std::min(span * 2, until - since);
    jobs.insert(jobs.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    from = to;
  }
  if (jobs.size() > limit) jobs.resize(limit);
  return jobs;
}

}  // namespace petricore::sources
