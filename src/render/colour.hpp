// Colours as cairo takes them, shared by the charts (whose palette callers
// may ask for) and the PDF report.
#pragma once

namespace petricore::render {

struct Rgb {
  double r = 0, g = 0, b = 0;  // 0..1
};

// Relative luminance (Rec. 709 weights on the stored values): whether dark
// or white text reads on a fill of this colour.
inline double luminance(Rgb c) {
  return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

}  // namespace petricore::render
