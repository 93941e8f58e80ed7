#!/usr/bin/env bash
# A ReAct run against a native-tools run over HTTP (issue 37, row 5): instructions per run of
# each client under callgrind, against the SDK's OpenAI-compatible mock server in another
# process (see benches/react_turn/http.rs). Per run = (I(N2) - I(N1)) / (N2 - N1), a median
# over ROUNDS rounds whose side order alternates.
#
#   bash benches/react_http.sh              # ROUNDS=3 N1=1 N2=41
#
# Needs valgrind (`apt-get install valgrind`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
N1=${N1:-1}
N2=${N2:-41}
command -v valgrind >/dev/null || { echo "valgrind is not installed: apt-get install valgrind" >&2; exit 2; }

echo "building the bench (cargo bench --bench react_turn --no-run)" >&2
BIN=$(cargo bench --bench react_turn --no-run 2>&1 | sed -n 's/.*Executable .*(\(.*\))$/\1/p' | tail -1)
[ -x "$BIN" ] || { echo "the bench binary was not found" >&2; exit 1; }

WORK=$(mktemp -d)
mkfifo "$WORK/hold"
# The server serves until its stdin closes: the writer held open here ends with this script.
REACT_SERVE=1 "$BIN" < "$WORK/hold" > "$WORK/url" &
SERVER=$!
exec 3> "$WORK/hold"
trap 'exec 3>&-; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do grep -q '^URL ' "$WORK/url" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^URL //p' "$WORK/url")
[ -n "$URL" ] || { echo "the bench server printed no URL" >&2; exit 1; }

count() { # side runs -> instructions of the whole process
    REACT_URL=$URL REACT_ONLY=$1 REACT_RUNS=$2 valgrind --tool=callgrind -q \
        --callgrind-out-file="$WORK/cg" "$BIN" >/dev/null
    sed -n 's/^summary: //p' "$WORK/cg"
}
per_run() { # side -> instructions per run
    local a b
    a=$(count "$1" "$N1"); b=$(count "$1" "$N2")
    echo $(( (b - a) / (N2 - N1) ))
}

native=(); react=()
for round in $(seq "$ROUNDS"); do
    if (( round % 2 )); then n=$(per_run native); r=$(per_run react); else r=$(per_run react); n=$(per_run native); fi
    native+=("$n"); react+=("$r")
    printf 'round %d: native %d, react %d instructions per run (%s)\n' "$round" "$n" "$r" \
        "$(awk -v r="$r" -v n="$n" 'BEGIN { printf "%.3fx", r / n }')"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
n=$(median "${native[@]}"); r=$(median "${react[@]}")
awk -v r="$r" -v n="$n" 'BEGIN { printf "median: native %d, react %d instructions per run: react / native %.3fx (goal <= 1.2x)\n", n, r, r / n }'
