#!/bin/sh
# The honest-variant gate (part of `make check`): every honest variant
# (impls/honest/, a correct float32 engine) must pass every check it
# implements, with no false failure, and be CERTIFIED for every profile it
# supports; a profile it does not support must be declined (checks "not
# supported"), never failed. Prints one line per variant and exits 1 on
# any false alarm, naming the variant, the check or profile, and the
# pecert command that shows the details.
#
# The variants run JOBS at a time (default: the CPUs), each in
# tests/honest/variant.sh; their lines print in variant order. On success
# it writes BUILD/honest/passed (the stamp `make mutation` reads).
set -u
BUILD=${1:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
OUT="$BUILD/honest"
# Each variant's run results land in $OUT/runs/ (the honest side of the
# separation table `make mutation` writes); certify results beside them.
rm -rf "$OUT/runs" "$OUT/passed" "$OUT"/*.verdict "$OUT"/*.certified
mkdir -p "$OUT/runs"

set -- "$BUILD"/impls/honest/*.so
variants=$#
printf '%s\n' "$@" | xargs -P "$JOBS" -I{} sh tests/honest/variant.sh "$BUILD" {}

status=0
certified=0
for so in "$@"; do
    name=$(basename "$so" .so)
    if [ ! -f "$OUT/$name.verdict" ]; then
        echo "honest: $name: the variant's gate left no verdict ($OUT/$name.verdict)"
        status=1
        continue
    fi
    cat "$OUT/$name.verdict"
    grep -q "FALSE ALARM" "$OUT/$name.verdict" && status=1
    certified=$((certified + $(cat "$OUT/$name.certified" 2>/dev/null || echo 0)))
done
if [ "$variants" -lt 8 ]; then
    echo "honest: only $variants variants built (at least 8 expected)"
    status=1
fi
if [ $status -eq 0 ]; then
    echo "honest: $variants variants, no false alarm; $certified variant x profile certifications"
    : >"$OUT/passed"
fi
exit $status
