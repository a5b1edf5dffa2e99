// The zlib preset dictionary the job archive compresses each record's JSON
// with: a job JSON's keys, layout and finding texts, which a record then
// refers back to instead of spelling out. A 5 kB job JSON shrinks from about
// 1.7 kB to 0.6 kB this way (zlib alone cannot, for want of repetition
// within one small record). Records compressed without one stay readable.
#pragma once

#include <string_view>
#include <vector>

namespace petricore::sources {

// The dictionary new records are compressed with.
std::string_view archive_json_dictionary();
// Every dictionary a record may name, the current one among them.
std::vector<std::string_view> archive_json_dictionaries();

}  // namespace petricore::sources
