// The TOML config file (/etc/petricore/petricore.toml) as CLI11 reads it for
// petricore (main.cpp): options of each kind petricore declares, under
// subcommands, with unknown keys an error. Whatever the file holds, reading
// it either fills the options or throws one of CLI11's own errors (which
// main turns into one line and exit 2), and a number option never holds
// NaN from a file that did not say "nan".
#include "fuzz_check.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(petricore::fuzz::as_text(data, size));
  CLI::App app{"fuzz"};
  app.allow_config_extras(CLI::config_extras_mode::error);
  std::string level = "info";
  app.add_option("--log-level", level);
  CLI::App* serve = app.add_subcommand("serve");
  std::string listen;
  double interval = 30;
  int workers = 4;
  bool once = false;
  std::vector<std::string> admins;
  serve->add_option("--listen", listen);
  serve->add_option("--interval", interval);
  serve->add_option("--workers", workers);
  serve->add_flag("--once", once);
  serve->add_option("--admin", admins);
  try {
    std::istringstream in(text);
    app.parse_from_stream(in);
  } catch (const CLI::Error&) {
    return 0;  // what main reports as a bad config file
  }
  if (std::isnan(interval))
    FUZZ_CHECK(text.find("nan") != std::string::npos || text.find("NAN") != std::string::npos ||
               text.find("NaN") != std::string::npos);
  return 0;
}
