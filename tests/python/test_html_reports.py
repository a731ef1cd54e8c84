"""The HTML reports (--html) of every command that writes one, opened in headless Chromium.

Each command runs on small inputs with both --report (or --out) and --html; the page must load
without console errors or requests, draw every chart, show exactly the report's numbers where it
says it does (data-ptr), and embed the report the command wrote (tools/browser/check_report.py).
Negative tests edit a generated page to prove the checker rejects what it should.

    /usr/bin/python3 -m pytest tests/python
    TAUVTA_BIN=path/to/tauvta               the binary (default: $TAUVTA_BUILD_DIR/tauvta, build/tauvta)
    TAUVTA_SCREENSHOT_DIR=DIR               also write a full-page PNG of each page there

Skipped only when Chromium is not installed.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "browser"))

from cdp import Browser, find_chromium  # noqa: E402
from check_report import check_page, embedded_data, parse_display, check_value  # noqa: E402

BUILD = pathlib.Path(os.environ.get("TAUVTA_BUILD_DIR") or ROOT / "build")
BIN = pathlib.Path(os.environ.get("TAUVTA_BIN") or BUILD / "tauvta")
FMNIST = pathlib.Path("/usr/share/datasets/fashion-mnist")
MODEL = ROOT / "models" / "vgg7_fmnist.onnx"
INPUT = ROOT / "models" / "vgg7_fmnist_input.npy"
TRAIN_IMAGES = FMNIST / "train-images-idx3-ubyte.gz"
TEST_IMAGES = FMNIST / "t10k-images-idx3-ubyte.gz"
TEST_LABELS = FMNIST / "t10k-labels-idx1-ubyte.gz"
TOPHUB = ROOT / "tests" / "data" / "calibration" / "tophub_vta_v0.10_calibration.jsonl"
WORKLOAD = "conv2d,ci=32,h=14,w=14,co=32,k=3,s=1,p=1"

pytestmark = pytest.mark.skipif(find_chromium() is None, reason="chromium is not installed (Debian package chromium)")


def tauvta(*args, timeout=120):
    """Run the CLI from the repository root; fail the test with its output if it fails."""
    cmd = [str(BIN), *map(str, args)]
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(cmd)} exited {r.returncode}\n{r.stderr[-3000:]}\n{r.stdout[-1500:]}"
    return r


# ---- the commands, each writing its report and its page ------------------------------------------
# Each returns (page, report, the page kind).

def make_run(d):
    tauvta("run", MODEL, "--input", INPUT, "--calibrate", TRAIN_IMAGES, "--calib-samples", 64,
           "--report", d / "r.json", "--html", d / "p.html", "-q")
    return d / "p.html", d / "r.json", "run"


def make_run_timing(d):
    tauvta("run", MODEL, "--timing-only", "--calibrate", TRAIN_IMAGES, "--calib-samples", 16,
           "--report", d / "r.json", "--html", d / "p.html", "-q")
    return d / "p.html", d / "r.json", "run"


def make_tune(d):
    tauvta("tune", MODEL, "--calibrate", TRAIN_IMAGES, "--calib-samples", 64, "--log", d / "t.log", "--trials", 16,
           "--report", d / "r.json", "--html", d / "p.html", "-q")
    return d / "p.html", d / "r.json", "tune"


def make_tune_workload(d):  # one workload: the report has no end_to_end
    tauvta("tune", "--workload", WORKLOAD, "--log", d / "t.log", "--trials", 16,
           "--report", d / "r.json", "--html", d / "p.html", "-q")
    return d / "p.html", d / "r.json", "tune"


def make_precision(d):
    tauvta("precision", "tune", MODEL, "--images", TEST_IMAGES, "--labels", TEST_LABELS, "--out", d / "out",
           "--start", "q0", "--limit", 2, "--tune-images", 100, "--holdout", 100, "--html", d / "p.html", "-q")
    return d / "p.html", d / "out" / "result.json", "precision"


def make_oplog(d):
    tauvta("op", "--log", TOPHUB, "--timing-only", "--report", d / "r.json", "--html", d / "p.html")
    return d / "p.html", d / "r.json", "oplog"


def make_dse(d):
    tauvta("dse", "--workload", WORKLOAD, "--device", "pynq-z1", "--precisions", "8,4", "--strategy", "tau",
           "--overlays", 4, "--sprint", 2, "--initial", 6, "--budget", 8, "--out", d / "out", "--html", d / "p.html")
    return d / "p.html", d / "out" / "summary.json", "dse"


def make_dse_accuracy(d):  # under an accuracy bound: the accuracy section and its two charts
    tauvta("dse", MODEL, "--calibrate", TRAIN_IMAGES, "--calib-samples", 128, "--device", "pynq-z1", "--precisions", "8,2",
           "--strategy", "tau", "--overlays", 2, "--sprint", 2, "--initial", 6, "--budget", 0, "--images", TEST_IMAGES,
           "--labels", TEST_LABELS, "--max-accuracy-drop", 1, "--accuracy-tune-images", 100, "--accuracy-holdout", 100,
           "--accuracy-limit", 2, "--out", d / "out", "--html", d / "p.html")
    return d / "p.html", d / "out" / "summary.json", "dse"


MAKERS = {"run": make_run, "run_timing": make_run_timing, "tune": make_tune, "tune_workload": make_tune_workload,
          "precision": make_precision, "oplog": make_oplog, "dse": make_dse, "dse_accuracy": make_dse_accuracy}

# Charts each page draws at least (sections without data show a note instead of a chart).
MIN_CHARTS = {"run": 4, "run_timing": 4, "tune": 2, "tune_workload": 2, "precision": 2, "oplog": 2, "dse": 3,
              "dse_accuracy": 4}


@pytest.fixture(scope="module")
def browser():
    with Browser(timeout=60) as b:
        yield b


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """made(case) -> (page, report, kind), each command run once per module."""
    cache = {}

    def get(case):
        if case not in cache:
            cache[case] = MAKERS[case](tmp_path_factory.mktemp(case))
        return cache[case]

    return get


@pytest.mark.parametrize("case", list(MAKERS))
def test_page(case, made, browser):
    page, report, kind = made(case)
    assert page.is_file(), f"no page written at {page}"
    assert report.is_file(), f"no report written at {report}"
    data = embedded_data(page.read_text(encoding="utf-8"))
    assert data["kind"] == kind
    assert data.get("command"), "the page does not name the command that made it"
    shots = os.environ.get("TAUVTA_SCREENSHOT_DIR")
    result = check_page(page, report, browser=browser,
                        screenshot=str(pathlib.Path(shots) / f"report_{case}.png") if shots else None)
    assert result["charts"] >= MIN_CHARTS[case], result
    assert result["values"] >= 10, result


# ---- the checker fails what it should ------------------------------------------------------------

def variant(made, tmp_path, name, edit):
    """A copy of the run page with its text edited; the edit must change something."""
    page, report, _ = made("run")
    text = page.read_text(encoding="utf-8")
    new = edit(text)
    assert new != text, f"{name}: the edit did not apply to the page"
    out = tmp_path / f"{name}.html"
    out.write_text(new, encoding="utf-8")
    return out, report


def after_main(text, js):
    """Insert a script right after the page's tauvta.main() call (the last one in the page)."""
    head, sep, tail = text.rpartition("tauvta.main();")
    assert sep, "no tauvta.main(); call in the page"
    return head + sep + "\n" + js + "\n" + tail


def test_rejects_console_error(made, browser, tmp_path):
    p, r = variant(made, tmp_path, "console", lambda t: t.replace(
        "</body>", "<script>console.error('injected failure')</script>\n</body>"))
    with pytest.raises(AssertionError, match="injected failure"):
        check_page(p, r, browser=browser)


def test_rejects_exception(made, browser, tmp_path):
    p, r = variant(made, tmp_path, "throw", lambda t: after_main(t, "setTimeout(function () { null.x; }, 0);"))
    with pytest.raises(AssertionError, match="exception|TypeError"):
        check_page(p, r, browser=browser)


def test_rejects_blank_canvas(made, browser, tmp_path):
    p, r = variant(made, tmp_path, "blank", lambda t: t.replace(
        '<div id="app"></div>', '<div id="app"></div><canvas width="300" height="150"></canvas>', 1))
    with pytest.raises(AssertionError, match="blank"):
        check_page(p, r, browser=browser)


def test_rejects_chart_without_data(made, browser, tmp_path):
    p, r = variant(made, tmp_path, "nodata", lambda t: after_main(
        t, "Chart.getChart(document.querySelector('canvas')).data.datasets.forEach(function (d) { d.data = []; });"))
    with pytest.raises(AssertionError, match="no data points"):
        check_page(p, r, browser=browser)


# Change the last digit of the first number the page shows from the report by 5: off by far more
# than the display's rounding.
ALTER_JS = r"""
(function () {
  var els = document.querySelectorAll('[data-ptr]');
  for (var i = 0; i < els.length; i++) {
    var e = els[i];
    if (e.getAttribute('data-root') || typeof tauvta.get(e.getAttribute('data-ptr')) !== 'number') continue;
    if (!/\d/.test(e.textContent)) continue;
    e.textContent = e.textContent.replace(/(\d)(?!.*\d)/, function (d) { return String((Number(d) + 5) % 10); });
    return;
  }
})();
"""


def test_rejects_altered_number(made, browser, tmp_path):
    p, r = variant(made, tmp_path, "altered", lambda t: after_main(t, ALTER_JS))
    with pytest.raises(AssertionError, match="data-ptr /.* shows"):
        check_page(p, r, browser=browser)


def test_rejects_altered_chart_value(made, browser, tmp_path):
    js = ("var ch = Chart.getChart(document.querySelector('canvas'));"
          "var d = ch.data.datasets[0].data; d[0] = typeof d[0] === 'object' ? {x: d[0].x * 2, y: d[0].y * 2} : d[0] * 2;")
    p, r = variant(made, tmp_path, "chartvalue", lambda t: after_main(t, js))
    with pytest.raises(AssertionError, match="chart value"):
        check_page(p, r, browser=browser)


def test_rejects_embedded_report_that_differs(made, browser, tmp_path):
    def edit(text):
        start = text.index('<script type="application/json" id="tauvta-data">')
        start = text.index(">", start) + 1
        end = text.index("</script>", start)
        data = embedded_data(text)
        data["report"]["total"]["cycles"] += 1
        js = json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!", "\\u003c!")
        return text[:start] + js + text[end:]

    p, r = variant(made, tmp_path, "embedded", edit)
    with pytest.raises(AssertionError, match="embedded report differs.*/total/cycles"):
        check_page(p, r, browser=browser)


def test_rejects_network_request(made, browser, tmp_path):
    # a loopback address: the page runs offline anyway, so nothing leaves the machine
    p, r = variant(made, tmp_path, "network", lambda t: t.replace("</body>", '<img src="http://127.0.0.1:9/x.png">\n</body>'))
    with pytest.raises(AssertionError, match="request to http://127.0.0.1:9/x.png"):
        check_page(p, r, browser=browser)


def test_rejects_page_never_ready(made, browser, tmp_path):
    def drop_main(text):
        head, sep, tail = text.rpartition("tauvta.main();")
        return head + tail

    p, r = variant(made, tmp_path, "notready", drop_main)
    with pytest.raises(AssertionError, match="not ready"):
        check_page(p, r, browser=browser, timeout=3)


def test_cli_exit_codes(made, tmp_path):
    page, report, _ = made("run")
    tool = ROOT / "tools" / "browser" / "check_report.py"
    ok = subprocess.run([sys.executable, str(tool), str(page), "--report", str(report)],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("OK ") and len(ok.stdout.strip().splitlines()) == 1, ok.stdout
    bad, _ = variant(made, tmp_path, "cli", lambda t: t.replace("</body>", "<script>console.error('boom')</script></body>"))
    fail = subprocess.run([sys.executable, str(tool), str(bad), "--report", str(report)],
                          capture_output=True, text=True, timeout=120)
    assert fail.returncode == 1, fail.stdout + fail.stderr
    assert fail.stdout.startswith("FAIL ") and "boom" in fail.stdout and len(fail.stdout.strip().splitlines()) == 1


def test_display_parsing():
    assert parse_display("1,234") == (1234.0, 0.5)
    assert parse_display("21.6%")[0] == 21.6
    assert parse_display("+58.9%")[0] == 58.9
    assert parse_display("\u22121.5")[0] == -1.5
    num, half = parse_display("3.12e-5")
    assert num == 3.12e-5 and abs(half - 5e-8) < 1e-20
    report = {"a": 0.216365, "b": 14494, "c": "conv2d", "d": True, "e": None}
    assert check_value("/a", "21.64%", 100, report) is None
    assert check_value("/a", "21.6%", 100, report) is None
    assert check_value("/a", "21.7%", 100, report) is not None
    assert check_value("/b", "14,494", 1, report) is None
    assert check_value("/b", "14,495", 1, report) is not None
    assert check_value("/c", "conv2d", 1, report) is None
    assert check_value("/c", "conv2", 1, report) is not None
    assert check_value("/d", "yes", 1, report) is None
    assert check_value("/e", "\u2014", 1, report) is None
    assert check_value("/missing", "\u2014", 1, report) is None
    assert check_value("/missing", "0", 1, report) is not None


def test_oplog_shows_error_by_kind_session_and_bitstream(made, browser):
    """op --log's page: the error by kind and by session, the bitstreams applied and each
    record's bitstream, bound to the report (check_page checks every bound value)."""
    page_path, report_path, _ = made("oplog")
    report = json.loads(report_path.read_text(encoding="utf-8"))
    page = browser.open(str(page_path))
    try:
        page.wait_ready(60)
        headings = page.evaluate("Array.from(document.querySelectorAll('h2')).map(function (h) { return h.textContent; })")
        bound = set(page.evaluate(
            "Array.from(document.querySelectorAll('[data-ptr]')).map(function (e) { return e.getAttribute('data-ptr'); })"))
    finally:
        page.close()
    for title in ("Error by kind of record", "Error by session", "Bitstreams"):
        assert any(title in h for h in headings), (title, headings)
    sessions = report["board_comparison"]["by_session"]
    assert sessions, "the calibration log has sessions"
    for i in range(len(sessions)):
        assert f"/board_comparison/by_session/{i}/median_abs_error" in bound
    assert "/bitstreams/0/evidence" in bound
    assert "/records/0/bitstream" in bound
