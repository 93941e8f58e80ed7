#!/usr/bin/env bash
# Runs the fuzz targets (see README.md).
#
#   fuzz/run.sh <target> <seconds>   one target for that long
#   fuzz/run.sh all <seconds>        every target, one after the other, that long each
#   fuzz/run.sh --smoke              every target for SMOKE_SECONDS (default 4) each
#   fuzz/run.sh --list               the targets
#
# Builds with cargo-fuzz on the stable toolchain (`--sanitizer none`: no -Z flag), with
# debug assertions and overflow checks, into fuzz/target. New corpus entries go to
# fuzz/target/corpus/<target> (not committed); the committed seeds in fuzz/corpus/<target>
# are read only. A crash is written to fuzz/artifacts/<target>/ and fails the script.
# Extra libFuzzer flags: FUZZ_ARGS="-jobs=2 -workers=2" fuzz/run.sh ...
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_INCREMENTAL=0

TARGETS=(
  sse
  answer_openai_chat answer_openai_responses answer_anthropic answer_gemini
  stream_openai_chat stream_openai_responses stream_anthropic stream_gemini
  partial_json react pause checkpoint schema mcp_content
)
FLAGS=(--sanitizer none --debug-assertions)

usage() {
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
}

ensure_cargo_fuzz() {
  if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz"
    cargo install cargo-fuzz --locked --version '^0.13'
  fi
}

run_one() {
  local target=$1 seconds=$2
  local work="target/corpus/$target"
  mkdir -p "$work" "artifacts/$target"
  echo "== $target: ${seconds}s"
  # shellcheck disable=SC2086
  cargo fuzz run "${FLAGS[@]}" "$target" "$work" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -print_final_stats=1 ${FUZZ_ARGS:-} 2>&1 \
    | grep -v -e '^#[0-9]*	\(NEW\|REDUCE\|pulse\)' \
    || { echo "fuzz target $target failed (see fuzz/artifacts/$target/)"; return 1; }
}

[ $# -ge 1 ] || usage
case "$1" in
  --list)
    printf '%s\n' "${TARGETS[@]}"
    ;;
  --smoke)
    ensure_cargo_fuzz
    cargo fuzz build "${FLAGS[@]}"
    for t in "${TARGETS[@]}"; do run_one "$t" "${SMOKE_SECONDS:-4}"; done
    ;;
  all)
    [ $# -eq 2 ] || usage
    ensure_cargo_fuzz
    cargo fuzz build "${FLAGS[@]}"
    for t in "${TARGETS[@]}"; do run_one "$t" "$2"; done
    ;;
  *)
    [ $# -eq 2 ] || usage
    printf '%s\n' "${TARGETS[@]}" | grep -qx "$1" || { echo "no target $1 (fuzz/run.sh --list)"; exit 2; }
    ensure_cargo_fuzz
    run_one "$1" "$2"
    ;;
esac
