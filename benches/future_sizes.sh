#!/usr/bin/env bash
# The sizes of agentry's futures as a release build lays them out, against glibc's per-thread
# cache (1,032 bytes: a larger allocation takes `malloc`'s slow path on every run).
#
# `agent/future_size.rs` and `providers/future_size.rs` bound futures in the test build, which
# has debug info; a release build (a user's, and the benches') keeps room for moved-out locals
# differently and can lay a future out larger. This script builds one bench with rustc's
# `-Zprint-type-sizes` (through RUSTC_BOOTSTRAP, in its own target directory so the normal
# build is not invalidated) and lists every future of agentry (an `async fn` body or `async`
# block) that bench monomorphizes, largest first. It exits with 1 when one is over the limit.
#
#     bash benches/future_sizes.sh                       # the middleware_overhead bench
#     BENCH=overhead LIMIT=1032 TOP=15 bash benches/future_sizes.sh
#
# A full build of the bench and its dependencies: several minutes on two cores.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BENCH="${BENCH:-middleware_overhead}"
LIMIT="${LIMIT:-1032}"
TOP="${TOP:-12}"
OUT="$ROOT/target/type-sizes"
mkdir -p "$OUT"
REPORT="$OUT/$BENCH.txt"

echo "building bench \`$BENCH\` with -Zprint-type-sizes (target dir $OUT)..." >&2
# rustc prints the sizes only when it compiles the bench: make sure it does.
touch "$ROOT/benches/$BENCH.rs"
(cd "$ROOT" && RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$OUT" \
    cargo rustc --quiet --profile bench --bench "$BENCH" -- -Zprint-type-sizes) >"$REPORT"

# Lines look like:
# print-type-size type: `{async fn body of agentry::agent::...}`: 984 bytes, alignment: 8 bytes
SIZES="$(grep -E '^print-type-size type: `\{async (fn body of |block@)agentry::' "$REPORT" |
    sed -E 's/^print-type-size type: `(.*)`: ([0-9]+) bytes.*/\2\t\1/' |
    sort -t$'\t' -k1,1nr | uniq)"

if [ -z "$SIZES" ]; then
    echo "no agentry future found in the type sizes of \`$BENCH\` (see $REPORT)" >&2
    exit 2
fi

echo "agentry's futures in \`$BENCH\`, largest first (limit $LIMIT bytes):"
echo "$SIZES" | head -n "$TOP" | awk -F'\t' -v limit="$LIMIT" '{
    mark = ($1 > limit) ? "  OVER" : ""
    printf "%7d  %s%s\n", $1, substr($2, 1, 150), mark
}'
OVER="$(echo "$SIZES" | awk -F'\t' -v limit="$LIMIT" '$1 > limit' | wc -l)"
if [ "$OVER" -gt 0 ]; then
    echo "$OVER future(s) over $LIMIT bytes: each run allocates them through malloc's slow path" >&2
    exit 1
fi
echo "every future is within $LIMIT bytes"
