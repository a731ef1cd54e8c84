#!/usr/bin/python3
"""Full-page PNG screenshots of tauvta HTML report pages, for the docs.

    screenshots.py PAGE.html [PAGE.html ...] [--out-dir docs/img] [--width 1280] [--no-check]

Each page is checked first (tools/browser/check_report.py, against its embedded report: a page
with a console error, a blank chart or an unready state gets no screenshot and the exit code is
1), then written as OUT_DIR/report_KIND.png, KIND being the page's kind (run, tune, precision,
oplog, dse). A second page of the same kind is written as report_KIND_STEM.png (STEM: the page's
file name without .html). NAME=PAGE.html names the PNG explicitly (OUT_DIR/NAME.png).
"""

import argparse
import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser, CDPError  # noqa: E402
from check_report import check_page, embedded_data, one_line  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="+", help="PAGE.html or NAME=PAGE.html")
    ap.add_argument("--out-dir", default=str(REPO / "docs" / "img"), help="where the PNGs go (default: docs/img)")
    ap.add_argument("--width", type=int, default=1280, help="viewport width in CSS pixels (default 1280)")
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--no-check", action="store_true", help="screenshot even a page that fails the checks")
    a = ap.parse_args(argv)

    out_dir = pathlib.Path(a.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    used = set()
    failed = 0
    with Browser(width=a.width) as browser:
        for arg in a.pages:
            name, _, path = arg.rpartition("=") if "=" in arg and not os.path.exists(arg) else ("", "", arg)
            try:
                if not name:
                    kind = embedded_data(pathlib.Path(path).read_text(encoding="utf-8")).get("kind", "page")
                    name = f"report_{kind}"
                    if name in used:
                        name = f"{name}_{pathlib.Path(path).stem}"
                used.add(name)
                png = out_dir / f"{name}.png"
                if a.no_check:
                    page = browser.open(path, timeout=a.timeout)
                    try:
                        page.wait_ready(a.timeout)
                        page.screenshot(str(png), full_page=True)
                    finally:
                        page.close()
                    print(f"wrote {png}")
                else:
                    r = check_page(path, screenshot=str(png), timeout=a.timeout, browser=browser)
                    print(f"wrote {png} ({r['charts']} charts, {r['values']} values checked)")
            except (AssertionError, CDPError, OSError) as e:
                failed += 1
                print(f"FAIL {path}: {one_line(e)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
