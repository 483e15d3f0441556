#!/bin/sh
# The parts of `make check`, one `make PART` after another, and where the
# time went: each part's wall time, printed at the end (and kept in
# $BUILD/check-times.txt), also when a part fails, so a slow or red gate
# shows which part it was.
#
# usage: tools/check_parts.sh BUILD PART...
# exit status: 0 every part passed, 1 a part failed (named on the last line).
set -u
BUILD=$1
shift
TIMES="$BUILD/check-times.txt"
mkdir -p "$BUILD"
: >"$TIMES.tmp"
started=$(date +%s.%N)
failed=""

# Seconds from $1 to now, to 0.1 s.
since() {
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

for part in "$@"; do
    t0=$(date +%s.%N)
    if ! make --no-print-directory BUILD="$BUILD" "$part"; then
        failed=$part
    fi
    printf '  %-12s %8s s%s\n' "$part" "$(since "$t0")" "${failed:+  FAILED}" >>"$TIMES.tmp"
    [ -n "$failed" ] && break
done
printf '  %-12s %8s s\n' "total" "$(since "$started")" >>"$TIMES.tmp"
{
    echo "make check: wall time per part ($(nproc 2>/dev/null || echo '?') CPUs)"
    cat "$TIMES.tmp"
} >"$TIMES"
rm -f "$TIMES.tmp"
cat "$TIMES"
if [ -n "$failed" ]; then
    echo "make check: FAILED in part '$failed' (make $failed reruns it)"
    exit 1
fi
exit 0
