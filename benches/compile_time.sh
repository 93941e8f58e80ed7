#!/usr/bin/env bash
# Compile time of a crate with 50 tools and one agent: agentry's `#[tool]` + `#[agent]` against
# rig's `#[rig_tool]` + `AgentBuilder::tool`, the same tools (two documented arguments each).
#
# What is timed: editing one tool's body and rebuilding (`cargo build`, dev profile), the edit
# users make most. Both crates are built once first; then ROUNDS paired rounds alternate the two
# (which one goes first alternates too), and the script prints each side's median and the median
# of the per-round ratios. Run it on a quiet machine:
#
#     bash benches/compile_time.sh            # ROUNDS=7 TOOLS=50 by default
#
# It needs crates.io (rig is fetched into the bench's own directory, never committed).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Outside the repository: cargo would apply this repository's .cargo/config.toml (its dev
# profile drops the dependencies' debug info) to both crates, and a user's crate has none of it.
WORK="${WORK:-${TMPDIR:-/tmp}/agentry-compile-bench}"
TOOLS="${TOOLS:-50}"
ROUNDS="${ROUNDS:-7}"
RIG_VERSION="${RIG_VERSION:-=0.44.0}"
mkdir -p "$WORK/ours/src" "$WORK/rig/src"

# --- agentry ---------------------------------------------------------------------------------
cat > "$WORK/ours/Cargo.toml" <<EOF
[package]
name = "compile-bench-ours"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
agentry = { path = "$ROOT/agentry" }
serde = { version = "1", features = ["derive"] }
schemars = "1"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
EOF
{
  echo 'use agentry::prelude::*;'
  echo
  for i in $(seq 0 $((TOOLS - 1))); do
    cat <<EOF
/// Tool number $i: combines a city and a count.
///
/// # Arguments
/// * \`city\` - The city to look at.
/// * \`count\` - How many results to return.
#[tool]
fn tool_$i(city: String, count: u32) -> String {
    let base = 0;
    format!("{city}: {} results from tool $i", count + base)
}

EOF
  done
  printf '#[agent(tools('
  for i in $(seq 0 $((TOOLS - 1))); do printf 'tool_%s, ' "$i"; done
  echo '))]'
  echo 'struct Bench;'
  echo
  echo 'fn main() -> Result<(), Box<dyn std::error::Error>> {'
  echo '    // Building only: the key is read when the program runs, which this bench never does.'
  echo '    // A real provider client, as on the rig side (a test double would link the test'
  echo '    // doubles, which a program does not).'
  echo '    let model = agentry::providers::openai::OpenAiModel::builder("gpt-4o").build()?;'
  echo '    let agent = Bench::builder(model).build();'
  echo '    println!("{} tools", agent.tool_definitions().len());'
  echo '    Ok(())'
  echo '}'
} > "$WORK/ours/src/main.rs"

# --- rig ---------------------------------------------------------------------------------------
cat > "$WORK/rig/Cargo.toml" <<EOF
[package]
name = "compile-bench-rig"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
rig-core = { version = "$RIG_VERSION", features = ["reqwest"] }
rig-agent = "$RIG_VERSION"
rig-derive = "$RIG_VERSION"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = "1"
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
EOF
{
  echo 'use rig_agent::prelude::*;'
  echo 'use rig_core::providers::openai::OpenAI;'
  echo 'use rig_derive::rig_tool;'
  echo
  for i in $(seq 0 $((TOOLS - 1))); do
    cat <<EOF
/// Tool number $i: combines a city and a count.
#[rig_tool]
fn tool_$i(
    /// The city to look at.
    city: String,
    /// How many results to return.
    count: u32,
) -> Result<String, rig_core::tool::ToolExecutionError> {
    let base = 0;
    Ok(format!("{city}: {} results from tool $i", count + base))
}

EOF
  done
  echo 'fn main() -> Result<(), Box<dyn std::error::Error>> {'
  echo '    // Building only: the key is read when the program runs, which this bench never does.
    let model = OpenAI::from_env()?.completion(rig_core::providers::openai::GPT_4O);'
  echo '    let agent = AgentBuilder::new(model)'
  for i in $(seq 0 $((TOOLS - 1))); do
    camel="Tool$i"
    echo "        .tool($camel)"
  done
  echo '        .build();'
  echo '    let _ = &agent;'
  echo '    Ok(())'
  echo '}'
} > "$WORK/rig/src/main.rs"

[[ "${GENERATE_ONLY:-}" == 1 ]] && { echo "generated $WORK/ours and $WORK/rig"; exit 0; }

build() { (cd "$WORK/$1" && CARGO_TARGET_DIR="$WORK/target-$1" cargo build -q); }
# One edit of one tool's body: a new constant in tool 17 (or the last tool of a smaller crate).
edit() {
  local n=$(( TOOLS > 17 ? 17 : TOOLS - 1 ))
  sed -i "/tool number $n:/I,/^}/ s/let base = [0-9]*;/let base = $2;/" "$WORK/$1/src/main.rs"
}
timed() { local s e; s=$(date +%s.%N); edit "$1" "$2"; build "$1"; e=$(date +%s.%N); echo "$e - $s" | bc; }

echo "building both crates once ($TOOLS tools each)"
build ours
build rig

ours_times=(); rig_times=(); ratios=()
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then o=$(timed ours "$r"); g=$(timed rig "$r"); else g=$(timed rig "$r"); o=$(timed ours "$r"); fi
  ours_times+=("$o"); rig_times+=("$g"); ratios+=("$(echo "scale=3; $o / $g" | bc)")
  printf 'round %d: agentry %.2f s, rig %.2f s, ratio %s\n' "$r" "$o" "$g" "${ratios[-1]}"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "rebuild after editing one tool body, $TOOLS tools, $ROUNDS paired rounds:"
echo "  agentry median $(median "${ours_times[@]}") s, rig median $(median "${rig_times[@]}") s"
echo "  median of per-round ratios (agentry / rig): $(median "${ratios[@]}")x"
