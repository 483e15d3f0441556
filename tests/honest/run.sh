#!/bin/sh
# The honest-variant gate (part of `make check`): every honest variant
# (impls/honest/, a correct float32 engine) must pass every check it
# implements, with no false failure, and be CERTIFIED for every profile it
# supports; a profile it does not support must be declined (checks "not
# supported"), never failed. Prints one line per variant and exits 1 on
# the first false alarm, naming the variant, the check or profile, and the
# pecert command that shows the details.
set -u
BUILD=${1:-build}
PECERT="$BUILD/pecert"
OUT="$BUILD/honest"
# Each variant's run results land in $OUT/runs/ (the honest side of the
# separation table `make mutation` writes); certify results beside them.
rm -rf "$OUT/runs"
mkdir -p "$OUT/runs"
status=0
variants=0
certified=0

# fail=N, crash=N, timeout=N of a results file's summary, summed.
bad_count() {
    sed -n 's/.*"summary": *{\([^}]*\)}.*/\1/p' "$1" | tr ',' '\n' |
        sed -n 's/ *"\(fail\|crash\|timeout\)": *\([0-9]*\)/\2/p' | awk '{s += $1} END {print s + 0}'
}

for so in "$BUILD"/impls/honest/*.so; do
    name=$(basename "$so" .so)
    variants=$((variants + 1))
    if ! "$PECERT" run --impl "$so" --vectors vectors --quiet --json "$OUT/runs/$name.json" >"$OUT/$name.txt" 2>&1; then
        echo "honest: FALSE ALARM: $name fails pecert run (details: $PECERT run --impl $so)"
        sed -n 's/^  \(FAIL\|CRASH\|TIMEOUT\) /    &/p' "$OUT/$name.txt"
        status=1
        continue
    fi
    ok=""
    declined=""
    for profile in conformance/profiles/*.json; do
        p=$(basename "$profile" .json)
        json="$OUT/$name.certify.$p.json"
        "$PECERT" certify --profile "$p" --impl "$so" --quiet --json "$json" >"$OUT/$name.certify.$p.txt" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
            ok="$ok $p"
            certified=$((certified + 1))
        elif [ $rc -eq 1 ] && [ -f "$json" ] && [ "$(bad_count "$json")" -eq 0 ]; then
            declined="$declined $p"
        else
            echo "honest: FALSE ALARM: $name is NOT CERTIFIED for $p (exit $rc; details: $PECERT certify --profile $p --impl $so)"
            status=1
        fi
    done
    echo "honest $name: pecert run passes; CERTIFIED for$ok${declined:+; declines$declined}"
done
if [ "$variants" -lt 8 ]; then
    echo "honest: only $variants variants built (at least 8 expected)"
    status=1
fi
[ $status -eq 0 ] && echo "honest: $variants variants, no false alarm; $certified variant x profile certifications"
exit $status
