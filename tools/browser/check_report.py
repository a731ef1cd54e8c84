#!/usr/bin/python3
"""Check a tauvta HTML report page in headless Chromium.

    check_report.py PAGE.html [--report REPORT.json] [--screenshot OUT.png] [--timeout 30]

Fails (exit 1, one line naming the problem) when the page
  - logs a console error or assert, throws, or asks for anything but itself (no network at view time);
  - is not ready (window.tauvtaReady) within the timeout, or reports window.tauvtaError;
  - has a <canvas> that is blank (no pixel with alpha > 0), that is not a Chart.js chart, or whose
    chart has no data points; or a chart value with a pointer (dataset.tauvtaPtrs) that differs
    from the value it points at;
  - shows no [data-ptr] element at all;
  - fails any of the above after a choice in one of its <select> controls (up to 8 per control);
  - with --report: embeds a data.report that differs from REPORT.json (floats to 1e-12 relative),
    or has a [data-ptr] element whose text is not the value at that pointer in REPORT.json
    (data-root="extra": in the page's embedded data.extra)
    (numbers: thousands separators, %, units and signs parsed; equal within half of the last
    digit shown, after dividing by data-scale; strings exactly; booleans as yes/no; a missing or
    null value as "—").
Without --report, values are checked against the report embedded in the page.

As a module: check_page(path, report=None, screenshot=None) -> dict of counts; raises
AssertionError with the one-line message on any problem.
"""

import argparse
import json
import math
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402

DASHES = ("\u2014", "\u2013", "-", "n/a", "")

# ---- reading the page's embedded data ----------------------------------------------------------

_DATA_RE = re.compile(r'<script type="application/json" id="tauvta-data">(.*?)</script>', re.S)


def embedded_data(html_text):
    m = _DATA_RE.search(html_text)
    if not m:
        raise AssertionError('no <script type="application/json" id="tauvta-data"> element in the page')
    try:
        return json.loads(m.group(1))
    except ValueError as e:
        raise AssertionError(f"embedded data is not JSON: {e}") from None


# ---- JSON pointers and comparisons -------------------------------------------------------------

_MISSING = object()


def resolve(doc, ptr):
    """RFC 6901: the value at ptr, or _MISSING."""
    if ptr == "":
        return doc
    if not ptr.startswith("/"):
        raise AssertionError(f"data-ptr {ptr!r} is not a JSON pointer (must start with '/')")
    v = doc
    for raw in ptr.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(v, dict):
            if key not in v:
                return _MISSING
            v = v[key]
        elif isinstance(v, list):
            if not re.fullmatch(r"0|[1-9]\d*", key) or int(key) >= len(v):
                return _MISSING
            v = v[int(key)]
        else:
            return _MISSING
    return v


def _ptr_join(base, key):
    return f"{base}/{str(key).replace('~', '~0').replace('/', '~1')}"


def first_difference(a, b, path="", rel=1e-12):
    """The pointer of the first place two JSON values differ (numbers within rel), or None."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if (isinstance(a, bool) and isinstance(b, bool) and a == b) else (path or "/")
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return None
        if math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b)):
            return None
        return path or "/"
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                return _ptr_join(path, k)
            d = first_difference(a[k], b[k], _ptr_join(path, k), rel)
            if d is not None:
                return d
        for k in b:
            if k not in a:
                return _ptr_join(path, k)
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, _ptr_join(path, i), rel)
            if d is not None:
                return d
        return None if len(a) == len(b) else _ptr_join(path, min(len(a), len(b)))
    return None if a == b else (path or "/")


_NUM_RE = re.compile(r"[-+]?(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([-+]?\d+))?")


def parse_display(text):
    """(number, half of the last shown digit) of a displayed number, or None if there is none.
    '1,234' -> (1234, 0.5); '21.6%' -> (21.6, 0.05); '+5.9%' -> (5.9, 0.05); '3.12e-5' -> (3.12e-5, 5e-8)."""
    t = (text.replace(",", "").replace("\u202f", "").replace("\u2009", "").replace("\u00a0", " ")
         .replace("\u2212", "-").strip())
    m = _NUM_RE.search(t)
    if not m:
        return None
    decimals = len(m.group(2) or "") if m.group(3) is None else len(m.group(3))
    exp = int(m.group(4)) if m.group(4) else 0
    return float(m.group(0)), 0.5 * 10.0 ** (exp - decimals)


def one_line(text):
    """A multi-line message (a console error with its stack) as one line: the message and the
    first stack frame."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    frame = next((ln for ln in lines[1:] if ln.startswith("at ")), None)
    return lines[0] + (f" ({frame})" if frame else "")


def _short(v, n=60):
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= n else s[:n - 3] + "..."


def check_value(ptr, text, scale, report):
    """None when the element's text shows the report's value at ptr, else the problem."""
    v = resolve(report, ptr)
    shown = text.strip()
    if v is _MISSING or v is None:
        if shown in DASHES:
            return None
        what = "no such value" if v is _MISSING else "null"
        return f"data-ptr {ptr} shows {shown!r} but the report has {what}"
    if isinstance(v, bool):
        ok = shown.lower() in (("yes", "true", "\u2713") if v else ("no", "false", "\u2717"))
        return None if ok else f"data-ptr {ptr} shows {shown!r} but the report has {json.dumps(v)}"
    if isinstance(v, str):
        return None if shown == v.strip() else f"data-ptr {ptr} shows {_short(shown)} but the report has {_short(v)}"
    if isinstance(v, (int, float)):
        parsed = parse_display(shown)
        if parsed is None:
            return f"data-ptr {ptr} shows {shown!r}, not a number, but the report has {v!r}"
        number, half_ulp = parsed
        expected = v * scale
        if abs(number - expected) <= half_ulp * (1 + 1e-9) + 1e-9 * abs(expected) + 1e-300:
            return None
        sc = f" (x{scale:g})" if scale != 1 else ""
        return f"data-ptr {ptr} shows {shown!r} but the report has {v!r}{sc}"
    return f"data-ptr {ptr} points at a {type(v).__name__}, not a displayable value"


def check_chart_value(spec, value, report, extra):
    """None when a chart data value equals the value its pointer spec names, else the problem."""
    if isinstance(spec, str):
        spec = {"ptr": spec}
    root = extra if spec.get("root") == "extra" else report
    ptr = spec.get("ptr", "")
    v = resolve(root, ptr)
    where = ("extra" if spec.get("root") == "extra" else "report") + ptr
    if v is _MISSING or v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"chart value {value!r} points at {where}, which is {'missing' if v is _MISSING else _short(v)}"
    expected = v * float(spec.get("scale", 1))
    if spec.get("fn") == "log2":
        if expected <= 0:
            return f"chart value {value!r} is log2 of {where} = {v!r} <= 0"
        expected = math.log2(expected)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return f"chart value {_short(value)} for {where} is not a number"
    if abs(value - expected) <= 1e-9 * max(abs(value), abs(expected)) + 1e-12:
        return None
    return f"chart value {value!r} differs from {where} = {expected!r}"


# ---- in the page -------------------------------------------------------------------------------

_CANVAS_JS = r"""
(() => {
  const out = [];
  document.querySelectorAll('canvas').forEach((c, index) => {
    const sec = c.closest('section');
    const h = sec ? sec.querySelector('h2') : null;
    const info = {index, title: h ? h.textContent : '', width: c.width, height: c.height,
                  chart: false, points: 0, blank: true, checks: [], misaligned: null};
    if (c.width > 0 && c.height > 0) {
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 3; i < px.length; i += 4) { if (px[i] !== 0) { info.blank = false; break; } }
    }
    const ch = window.Chart && Chart.getChart ? Chart.getChart(c) : null;
    if (ch) {
      info.chart = true;
      info.type = ch.config.type;
      (ch.data.datasets || []).forEach((ds, di) => {
        const data = ds.data || [];
        data.forEach(v => { if (v !== null && v !== undefined) info.points++; });
        const ptrs = ds.tauvtaPtrs;
        if (!ptrs) return;
        if (ptrs.length !== data.length) {
          info.misaligned = `dataset ${di} (${ds.label}) has ${data.length} values but ${ptrs.length} pointers`;
          return;
        }
        ptrs.forEach((spec, i) => {
          const val = data[i];
          if (spec === null || spec === undefined || val === null || val === undefined) return;
          if (typeof spec === 'string' || spec.ptr !== undefined) {
            info.checks.push([spec, Array.isArray(val) ? null : (typeof val === 'object' ? null : val), ds.label]);
          } else if (Array.isArray(spec)) {
            spec.forEach((s, k) => { if (s !== null) info.checks.push([s, Array.isArray(val) ? val[k] : null, ds.label]); });
          } else {
            Object.keys(spec).forEach(k => { if (spec[k] !== null) info.checks.push([spec[k], val[k], ds.label]); });
          }
        });
      });
    }
    out.push(info);
  });
  return out;
})()
"""

_PTRS_JS = r"""
Array.from(document.querySelectorAll('[data-ptr]')).map(e =>
  [e.getAttribute('data-ptr'), e.textContent, parseFloat(e.getAttribute('data-scale') || '1'),
   e.getAttribute('data-root') || ''])
"""


_SELECTS_JS = "Array.from(document.querySelectorAll('select')).map(s => s.options.length)"


def _choose_js(select, option):
    return (f"(() => {{ const s = document.querySelectorAll('select')[{select}]; s.selectedIndex = {option}; "
            "s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()")


def _sample(n, most=8):
    """Option indices to try: all of a short list, else the first, the last and some between."""
    if n <= most:
        return list(range(n))
    return sorted({round(k * (n - 1) / (most - 1)) for k in range(most)})


def _load_report(report):
    if report is None or isinstance(report, (dict, list)):
        return report, None
    with open(report, encoding="utf-8") as f:
        return json.load(f), str(report)


def check_page(path, report=None, screenshot=None, timeout=30.0, browser=None, controls=True):
    """Check one page; returns {'charts', 'points', 'values', 'chart_values', 'control_states',
    'seconds'} (counts of the page as it opens).
    report: a path or an already parsed JSON value (None: the page's embedded report).
    browser: a cdp.Browser to reuse (a new one is started and closed otherwise).
    controls: also try the choices of every <select> (up to 8 each) and check the page after each.
    Raises AssertionError with a one-line message naming the first problem."""
    started = time.monotonic()
    with open(path, encoding="utf-8") as f:
        html_text = f.read()
    data = embedded_data(html_text)
    expected, report_name = _load_report(report)
    if expected is not None:
        diff = first_difference(data.get("report"), expected)
        if diff is not None:
            got = resolve(data.get("report"), diff)
            want = resolve(expected, diff)
            raise AssertionError(f"the page's embedded report differs from {report_name or 'the report'} at "
                                 f"{diff}: {_short(None if got is _MISSING else got)} vs "
                                 f"{_short(None if want is _MISSING else want)}")
    against = expected if expected is not None else data.get("report")
    extra = data.get("extra") or {}

    own = browser is None
    b = Browser() if own else browser
    try:
        try:
            page = b.open(path, timeout=timeout)
        except CDPError as e:
            raise AssertionError(f"cannot load the page: {e}") from None
        try:
            try:
                page.wait_ready(timeout)
            except CDPError as e:
                b.pump(0.1)
                first = page.errors[0] if page.errors else str(e)
                raise AssertionError(one_line(first)) from None
            if page.errors:
                raise AssertionError(one_line(page.errors[0]))
            # The page as it opens: what a screenshot shows, counted in the summary.
            state = _look(page, timeout)
            if screenshot:
                page.screenshot(screenshot, full_page=True)
            b.pump(0.05)  # anything logged while we looked
            if page.errors:
                raise AssertionError(one_line(page.errors[0]))
            counts = _verify(state, against, extra, "")
            # Every control (a <select> choosing a layer, a resource, an axis): each choice must
            # redraw without errors and still show the report's numbers.
            states = 0
            if controls:
                for si, n in enumerate(page.evaluate(_SELECTS_JS, timeout=timeout) or []):
                    for oi in _sample(n):
                        value = page.evaluate(_choose_js(si, oi), timeout=timeout)
                        b.pump(0.02)
                        if page.errors:
                            raise AssertionError(f"after choosing {value!r} in <select> #{si}: {one_line(page.errors[0])}")
                        _verify(_look(page, timeout), against, extra, f"after choosing {value!r} in <select> #{si}: ")
                        states += 1
            counts["control_states"] = states
        finally:
            page.close()
    finally:
        if own:
            b.close()
    counts["seconds"] = round(time.monotonic() - started, 2)
    return counts


def _look(page, timeout):
    return page.evaluate(_CANVAS_JS, timeout=timeout), page.evaluate(_PTRS_JS, timeout=timeout)


def _verify(state, against, extra, context):
    """Counts of what one state of the page shows; AssertionError (prefixed by context) on a problem."""
    try:
        return _verify_state(state, against, extra)
    except AssertionError as e:
        raise AssertionError(context + str(e)) from None


def _verify_state(state, against, extra):
    canvases, elements = state
    points = charts = chart_values = 0
    for c in canvases:
        name = f"canvas #{c['index']}" + (f" ({c['title']})" if c["title"] else "")
        if c["width"] == 0 or c["height"] == 0:
            raise AssertionError(f"{name} has no size (hidden, or in a closed <details>)")
        if c["blank"]:
            raise AssertionError(f"{name} is blank")
        if not c["chart"]:
            raise AssertionError(f"{name} is not a Chart.js chart")
        if c["points"] == 0:
            raise AssertionError(f"{name} has a chart with no data points")
        if c["misaligned"]:
            raise AssertionError(f"{name}: {c['misaligned']}")
        for spec, value, label in c["checks"]:
            problem = check_chart_value(spec, value, against, extra)
            if problem:
                raise AssertionError(f"{name}, dataset {label!r}: {problem}")
            chart_values += 1
        charts += 1
        points += c["points"]
    if not elements:
        raise AssertionError("the page shows no [data-ptr] value")
    for ptr, text, scale, root in elements:
        problem = check_value(ptr, text, scale if scale and math.isfinite(scale) else 1.0,
                              extra if root == "extra" else against)
        if problem:
            raise AssertionError(problem.replace("the report", "extra") if root == "extra" else problem)
    return {"charts": charts, "points": points, "values": len(elements), "chart_values": chart_values}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page")
    ap.add_argument("--report", help="the JSON report the page was made from")
    ap.add_argument("--screenshot", help="write a full-page PNG here")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds for the page to be ready (default 30)")
    a = ap.parse_args(argv)
    try:
        r = check_page(a.page, a.report, a.screenshot, timeout=a.timeout)
    except AssertionError as e:
        print(f"FAIL {a.page}: {one_line(e)}")
        return 1
    except (CDPError, OSError) as e:
        print(f"FAIL {a.page}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        return 1
    against = f"against {a.report}" if a.report else "against the embedded report"
    print(f"OK {a.page}: {r['charts']} charts ({r['points']} points, {r['chart_values']} traced), "
          f"{r['values']} values checked {against}, {r['control_states']} control states, {r['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
