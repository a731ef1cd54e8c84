#include "report/html_page.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "report/assets.h"

#ifndef TAUVTA_VERSION
#define TAUVTA_VERSION "unknown"
#endif

namespace tauvta::report {

const char* page_kind_name(PageKind k) {
  switch (k) {
    case PageKind::kRun: return "run";
    case PageKind::kTune: return "tune";
    case PageKind::kPrecision: return "precision";
    case PageKind::kOpLog: return "oplog";
    case PageKind::kDse: return "dse";
  }
  return "run";
}

const char* version() { return TAUVTA_VERSION; }

namespace {

// JSON inside <script type="application/json">: "</" could close the element and "<!--" open an
// HTML comment. '<' only occurs inside JSON strings, where \u003c is the same character, so every
// one is written so (the text stays valid JSON for any parser).
std::string script_safe(const std::string& json) {
  std::string s;
  s.reserve(json.size() + 16);
  for (char c : json) {
    if (c == '<') {
      s += "\\u003c";
    } else {
      s += c;
    }
  }
  return s;
}

std::string html_escape(const std::string& t) {
  std::string s;
  for (char c : t) {
    switch (c) {
      case '&': s += "&amp;"; break;
      case '<': s += "&lt;"; break;
      case '>': s += "&gt;"; break;
      case '"': s += "&quot;"; break;
      default: s += c;
    }
  }
  return s;
}

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::string render_html(const Page& p) {
  const std::string kind = page_kind_name(p.kind);
  const nlohmann::json data = {{"kind", kind},           {"title", p.title},   {"command", p.command},
                               {"generated", utc_now()}, {"version", std::string("tauvta ") + version()},
                               {"config", p.config},     {"report", p.report}, {"extra", p.extra}};
  // dump with replacement: a model's names are the user's bytes and need not be valid UTF-8.
  const std::string json = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string html;
  html.reserve(json.size() + 300000);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  html += fmt::format("<title>{}</title>\n<style>\n{}</style>\n</head><body>\n<div id=\"app\"></div>\n",
                      html_escape(p.title), asset("page.css"));
  html += "<script type=\"application/json\" id=\"tauvta-data\">" + script_safe(json) + "</script>\n";
  html += "<script>\n" + asset("chart.min.js") + "\n</script>\n";
  html += "<script>\n" + asset("common.js") + "\n</script>\n";
  html += "<script>\n" + asset(kind + ".js") + "\ntauvta.main();\n</script>\n</body></html>\n";
  return html;
}

}  // namespace tauvta::report
