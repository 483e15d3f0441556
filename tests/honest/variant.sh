#!/bin/sh
# One honest variant through the gate of tests/honest/run.sh: `pecert run`
# on the family vectors must pass, and every profile must be CERTIFIED or
# declined (exit 1 with no check failed, crashed or timed out), never
# failed. Writes its line(s)
# to BUILD/honest/NAME.verdict and its count of certified profiles to
# BUILD/honest/NAME.certified; run.sh prints them in variant order.
#
# usage: tests/honest/variant.sh BUILD PLUGIN.so
set -u
BUILD=$1
so=$2
PECERT="$BUILD/pecert"
OUT="$BUILD/honest"
name=$(basename "$so" .so)
verdict="$OUT/$name.verdict"

# fail=N, crash=N, timeout=N of a results file's summary, summed.
bad_count() {
    sed -n 's/.*"summary": *{\([^}]*\)}.*/\1/p' "$1" | tr ',' '\n' |
        sed -n 's/ *"\(fail\|crash\|timeout\)": *\([0-9]*\)/\2/p' | awk '{s += $1} END {print s + 0}'
}

# The family vectors (BUILD/family-vectors, `make`'s copy without profiles/
# and mappings/): the vectors the mutants of the separation table run on;
# each profile's own vectors are certified below.
if ! "$PECERT" run --impl "$so" --vectors "$BUILD/family-vectors" --quiet --json "$OUT/runs/$name.json" \
    >"$OUT/$name.txt" 2>&1; then
    {
        echo "honest: FALSE ALARM: $name fails pecert run (details: $PECERT run --impl $so)"
        sed -n 's/^  \(FAIL\|CRASH\|TIMEOUT\) /    &/p' "$OUT/$name.txt"
    } >"$verdict"
    exit 0
fi
ok=""
declined=""
alarms=""
certified=0
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
        alarms="${alarms}honest: FALSE ALARM: $name is NOT CERTIFIED for $p (exit $rc; details: $PECERT certify --profile $p --impl $so)
"
    fi
done
{
    printf '%s' "$alarms"
    echo "honest $name: pecert run passes; CERTIFIED for$ok${declined:+; declines$declined}"
} >"$verdict"
echo "$certified" >"$OUT/$name.certified"
