#!/usr/bin/python3
"""check_report.py - open a pecert HTML report from disk in headless
Chromium and check what a reader (and CI) relies on:

  * the verdict is there (#verdict, PASS or FAIL, and the expected one);
  * the plugins x checks matrix is there, with cells;
  * at least one inline SVG plot is there and was laid out;
  * with --expect-speed: the Speed section (`pecert report --bench`) is
    there, with its tables and its plot laid out;
  * the page made no network request but the one for its own file
    (chromedriver's performance log: every Network.requestWillBeSent);
  * the page raised no script error (the browser log holds no SEVERE entry);
  * with --phone: at a 400 px wide viewport (a phone) no element is wider
    than the viewport (a wide table may scroll inside its own box, never
    the page), and the verdict is in view without scrolling;
  * with --expect-text: the banner says it (e.g. "NOT CERTIFIED for").

It saves a screenshot of the top of the page and one of the whole page.
Exit status 0 when every check holds, 1 otherwise, 2 on bad usage.

Uses Debian's chromium, chromium-driver and python3-selenium (`make deps`).
"""
import argparse
import json
import pathlib
import shutil
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

# Known to work as root in a container: no sandbox, no GPU, and nothing
# that would reach out on its own (QUIC, sync, component updates...), so
# any request in the log came from the page.
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--hide-scrollbars", "--force-device-scale-factor=1",
]


def open_browser(profile_dir, chromium, chromedriver):
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in CHROMIUM_FLAGS + ["--user-data-dir=" + profile_dir]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(service=Service(chromedriver), options=opts)


# Pages of the browser itself (the new-tab page Chromium opens before the
# report) make requests of their own; they are not the report's.
BROWSER_PAGES = ("chrome://", "chrome-untrusted://", "devtools://")


def requested_urls(driver):
    """Every URL a page other than the browser's own asked the network
    stack for (the report, and anything it embeds, frames included)."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        params = message["params"]
        if not params.get("documentURL", "").startswith(BROWSER_PAGES):
            urls.append(params["request"]["url"])
    return urls


def script_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def check_page(driver, expect_verdict):
    """Returns (failures, facts) about the loaded page."""
    failures = []
    verdicts = driver.find_elements(By.ID, "verdict")
    verdict = verdicts[0].get_attribute("data-verdict") if verdicts else None
    if verdict not in ("pass", "fail") or verdict.upper() not in verdicts[0].text:
        failures.append("no verdict (#verdict with PASS or FAIL)")
    elif expect_verdict and verdict != expect_verdict:
        failures.append("verdict is %s, expected %s" % (verdict, expect_verdict))
    rows = driver.find_elements(By.CSS_SELECTOR, "table.matrix tbody tr")
    cells = driver.find_elements(By.CSS_SELECTOR, "table.matrix td.c")
    if not rows or not cells:
        failures.append("no plugins x checks matrix (table.matrix with cells)")
    plots = driver.find_elements(By.CSS_SELECTOR, "svg.plot")
    drawn = [p for p in plots if p.size["width"] > 0 and p.find_elements(By.CSS_SELECTOR, "path, rect")]
    if not drawn:
        failures.append("no SVG plot laid out")
    facts = {"verdict": verdict, "matrix_rows": len(rows), "matrix_cells": len(cells), "plots": len(plots)}
    return failures, facts


# Every element laid out past the viewport's right edge, unless it sits in
# a box that scrolls (or clips) sideways: that box is checked instead.
OVERFLOW_JS = """
const width = document.documentElement.clientWidth;
const wide = [];
if (document.documentElement.scrollWidth > width) {
  wide.push('the page is ' + document.documentElement.scrollWidth + ' px wide');
}
function boxed(el) {
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const o = getComputedStyle(p).overflowX;
    if (o === 'auto' || o === 'scroll' || o === 'hidden') return true;
  }
  return false;
}
for (const el of document.body.querySelectorAll('*')) {
  const r = el.getBoundingClientRect();
  if (r.width === 0 || boxed(el)) continue;
  if (r.right > width + 1 || r.left < -1) {
    wide.push(el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined ? '.' + el.className : '') +
              ' ' + Math.round(r.left) + '..' + Math.round(r.right));
  }
}
const big = document.querySelector('#verdict .big');
const v = big ? big.getBoundingClientRect() : null;
return {width: width, wide: wide.slice(0, 8), n_wide: wide.length,
        verdict_in_view: !!v && v.top >= 0 && v.bottom <= window.innerHeight && v.right <= width + 1 && v.width > 0};
"""

PHONE = {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": True}


def check_phone(driver, url, screenshot):
    """The page at a phone's width; (failures, facts)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    driver.get(url)
    got = driver.execute_script(OVERFLOW_JS)
    driver.save_screenshot(str(screenshot))
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    failures = []
    if got["n_wide"] > 0:
        failures.append("at %d px, %d elements are wider than the viewport: %s" % (
            got["width"], got["n_wide"], "; ".join(got["wide"])))
    if not got["verdict_in_view"]:
        failures.append("at %d px, the verdict (#verdict .big) is not in view without scrolling" % got["width"])
    return failures, got


def check_speed(driver):
    """The Speed section: tables with rows and a drawn plot; (failures, rows)."""
    rows = driver.find_elements(By.CSS_SELECTOR, "section#speed table.speed tbody tr")
    plots = driver.find_elements(By.CSS_SELECTOR, "section#speed svg.plot")
    drawn = [p for p in plots if p.size["width"] > 0 and p.find_elements(By.CSS_SELECTOR, "path.line")]
    failures = []
    if not rows:
        failures.append("no Speed section with tables (section#speed table.speed rows)")
    if not drawn:
        failures.append("no plot laid out in the Speed section")
    return failures, len(rows)


def check_junit(path):
    """The JUnit file parses as XML and its counts add up; failures."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as e:
        return ["%s: not well-formed XML: %s" % (path, e)]
    failures = []
    cases = root.findall("./testsuite/testcase")
    if root.tag != "testsuites" or not cases:
        failures.append("%s: no <testsuites> with testcases" % path)
    if int(root.get("tests", "-1")) != len(cases):
        failures.append("%s: tests=%s but %d testcases" % (path, root.get("tests"), len(cases)))
    for case in cases:
        if not case.get("classname") or not case.get("name"):
            failures.append("%s: a testcase without classname or name" % path)
            break
    return failures


def screenshots(driver, out):
    out.parent.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(out))
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1400, min(int(height) + 40, 16000))
    full = out.with_name(out.stem + "-full" + out.suffix)
    driver.save_screenshot(str(full))
    return full


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", help="the HTML report to open (from disk)")
    ap.add_argument("--screenshot", required=True, help="PNG to write (plus NAME-full.png)")
    ap.add_argument("--expect-verdict", choices=("pass", "fail"))
    ap.add_argument("--junit", help="also check this JUnit XML file parses and adds up")
    ap.add_argument("--expect-speed", action="store_true", help="the report was rendered with --bench")
    ap.add_argument("--phone", action="store_true", help="also check the page at a 400 px viewport")
    ap.add_argument("--expect-text", help="text the verdict banner must show")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    report = pathlib.Path(args.report).resolve()
    if not report.is_file():
        print("browser: %s: no such file" % args.report, file=sys.stderr)
        return 2
    url = report.as_uri()
    profile = tempfile.mkdtemp(prefix="pecert-chromium-")
    driver = None
    try:
        driver = open_browser(profile, args.chromium, args.chromedriver)
        driver.set_window_size(1400, 1100)
        driver.get_log("performance")  # drop what happened before the report
        driver.get(url)
        failures, facts = check_page(driver, args.expect_verdict)
        speed_rows = 0
        if args.expect_speed:
            more, speed_rows = check_speed(driver)
            failures += more
        if args.expect_text:
            banner = driver.find_elements(By.ID, "verdict")
            if not banner or args.expect_text not in banner[0].text:
                failures.append("the verdict banner does not say %r" % args.expect_text)
        full = screenshots(driver, pathlib.Path(args.screenshot))
        urls = requested_urls(driver)
        others = [u for u in urls if u != url]
        if url not in urls:
            failures.append("the performance log did not record the report's own request")
        if others:
            failures.append("network requests besides the file itself: %s" % ", ".join(others[:5]))
        errors = script_errors(driver)
        if errors:
            failures.append("script errors: %s" % "; ".join(errors[:5]))
        phone = ""
        if args.phone:
            shot = pathlib.Path(args.screenshot)
            more, got = check_phone(driver, url, shot.with_name(shot.stem + "-phone" + shot.suffix))
            failures += more
            phone = ", at %d px nothing wider and the verdict in view" % got["width"] if not more else ""
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    if args.junit:
        failures += check_junit(args.junit)
    for f in failures:
        print("browser: %s: %s" % (args.report, f), file=sys.stderr)
    speed = ", speed tables %d rows" % speed_rows if args.expect_speed else ""
    print("browser: %s: %s; verdict %s, matrix %d rows / %d cells, %d SVG plots%s, no other request, "
          "no script error%s; screenshots %s, %s" % (
              args.report, "FAILED" if failures else "OK", facts["verdict"], facts["matrix_rows"],
              facts["matrix_cells"], facts["plots"], speed, phone, args.screenshot, full))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
