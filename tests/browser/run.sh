#!/bin/sh
# run.sh BUILD - the browser test of `make check`.
#
# Certifies ref and one mutant, renders their report (the mutant against a
# catalogue of itself only, so the report's verdict is PASS: ref passes and
# the mutant is caught) with the Speed section of the bench fixtures of
# tests/data, then opens it from disk in headless Chromium
# (check_report.py), at desktop and at phone width; then a certify report
# of one checkpoint the same way. Everything lands in BUILD/browser/, the
# screenshots included.
set -eu
build=${1:?usage: run.sh BUILD}
out="$build/browser"
mutant=pairing_swapped
rm -rf "$out"
mkdir -p "$out"
"$build/pecert" run --impl ref --quiet --json "$out/ref.json" >"$out/ref.log"
# The mutant fails checks by design: its status is not the test's.
"$build/pecert" run --impl "$build/impls/mutants/$mutant.so" --quiet --json "$out/$mutant.json" \
    >"$out/$mutant.log" || true
/usr/bin/python3 - "$mutant" "$out/catalogue.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
catalogue = json.load(open("impls/mutants/catalogue.json"))
catalogue["mutants"] = [m for m in catalogue["mutants"] if m["name"] == name]
json.dump(catalogue, open(path, "w"), indent=1)
PY
"$build/pecert" report "$out/ref.json" "$out/$mutant.json" --mutants "$out/catalogue.json" --quiet \
    --bench tests/data/bench-small.json --bench tests/data/bench-peers-small.json \
    -o "$out/report.html" --junit "$out/junit.xml" --json "$out/results.json"
/usr/bin/python3 tests/browser/check_report.py "$out/report.html" --expect-verdict pass \
    --junit "$out/junit.xml" --expect-speed --phone --screenshot "$out/report.png"
# The porter's page: certify a checkpoint's config.json (Qwen2.5 with YaRN)
# on the pairing mutant; the page must say NOT CERTIFIED for it, with the
# diagnosis, and read on a phone.
"$build/pecert" certify --config tests/data/qwen2.5-yarn-config.json --impl "$build/impls/mutants/$mutant.so" \
    --quiet --html "$out/certify.html" --junit "$out/certify.xml" >"$out/certify.log" || true
exec /usr/bin/python3 tests/browser/check_report.py "$out/certify.html" --expect-verdict fail \
    --expect-text "NOT CERTIFIED" --junit "$out/certify.xml" --phone --screenshot "$out/certify.png"
