#include "collect/exposition.hpp"

#include <prometheus/text_serializer.h>

namespace petricore::collect {

std::string serialize_text(const Snapshot& snapshot) {
  return prometheus::TextSerializer{}.Serialize(snapshot);
}

}  // namespace petricore::collect
