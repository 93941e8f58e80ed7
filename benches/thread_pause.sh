#!/usr/bin/env bash
# Instructions per run of each side of the thread_pause bench (issue 37, row 4): a run in a
# SQLite thread that pauses for review and is approved from a second agent on its own
# connection, against the same run in the thread without a review (see
# benches/thread_pause.rs). Callgrind counts only the measured runs
# (`--toggle-collect=thread_pause::measured`); the model server is a child process it does not
# trace. Per run = (I(N2) - I(N1)) / (N2 - N1).
#
#   bash benches/thread_pause.sh            # N1=10 N2=60, every side
#   SIDES="thread pause" bash benches/thread_pause.sh
#
# Needs valgrind (`apt-get install valgrind`).
set -euo pipefail
cd "$(dirname "$0")/.."
N1=${N1:-10}
N2=${N2:-60}
SIDES=${SIDES:-plain thread pause thread_exit pause_exit}
command -v valgrind >/dev/null || { echo "valgrind is not installed: apt-get install valgrind" >&2; exit 2; }

echo "building the bench (cargo bench --bench thread_pause --no-run)" >&2
BIN=$(cargo bench --bench thread_pause --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p' | tail -1)
[ -x "$BIN" ] || { echo "the bench binary was not found" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

count() { # side runs -> instructions inside the measured runs
    PAUSE_ONLY=$1 PAUSE_RUNS=$2 valgrind --tool=callgrind -q \
        --toggle-collect='thread_pause::measured' \
        --callgrind-out-file="$WORK/cg" "$BIN" >/dev/null
    sed -n 's/^summary: //p' "$WORK/cg"
}
declare -A per
for side in $SIDES; do
    a=$(count "$side" "$N1"); b=$(count "$side" "$N2")
    per[$side]=$(( (b - a) / (N2 - N1) ))
done
for side in $SIDES; do
    base=thread
    [[ $side == *_exit ]] && base=thread_exit
    if [[ -n ${per[$base]:-} ]]; then
        ratio=$(awk -v a="${per[$side]}" -v b="${per[$base]}" 'BEGIN { printf "%.3fx", a / b }')
        printf '%-12s %9d instructions per run (%s %s)\n' "$side" "${per[$side]}" "$ratio" "$base"
    else
        printf '%-12s %9d instructions per run\n' "$side" "${per[$side]}"
    fi
done
