// One self-contained HTML page per report: the command's JSON report inlined as data, Chart.js and
// the page's scripts inlined (src/report/assets/), so the file opens offline in any browser. The
// page draws its tables and charts from the data; every number it shows names the JSON pointer
// it came from (data-ptr), which is how tests/python/test_html_reports.py checks it in Chromium.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace tauvta::report {

enum class PageKind { kRun, kTune, kPrecision, kOpLog, kDse };
const char* page_kind_name(PageKind k);  // run, tune, precision, oplog, dse

struct Page {
  PageKind kind = PageKind::kRun;
  std::string title;
  std::string command;         // the command line (or Python call) that made the report
  nlohmann::json config;       // the fully resolved hardware config; null when the report holds several
  nlohmann::json report;       // exactly the JSON the command writes with --report
  nlohmann::json extra = nlohmann::json::object();  // what the page needs besides (roofs, evaluations)
};

// The whole page. Deterministic apart from the "generated" time stamp.
std::string render_html(const Page& p);

// The version every page and `tauvta --version` show.
const char* version();

}  // namespace tauvta::report
