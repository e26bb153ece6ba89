#!/usr/bin/env bash
# Long fuzzing runs (libFuzzer through cargo-fuzz, on the stable toolchain):
#
#   bash scripts/fuzz.sh [seconds-per-target] [targets…]     # default: 60 s, every target
#   nice -n 19 bash scripts/fuzz.sh 1800 shard sections      # half an hour each, politely
#   RUNS=2000000 bash scripts/fuzz.sh 14400                  # 2 million executions each (or 4 h)
#
# Targets (crates/fuzz-targets, where their bodies live): router, advanced,
# affiliation, shard, sections, import, pieces, search. Each runs for the given time
# over its working corpus fuzz/work/<target>/ (kept between runs, not
# checked in), seeded from fuzz/corpus/<target>/; with RUNS=n it stops
# earlier, after n executions. At the end a table gives executions, time
# and the rate per target, so a longer run can be planned, with the load
# average when each stopped (on a shared machine the rate follows the load).
#
# A crash stops that target and leaves its input in fuzz/artifacts/<target>/.
# Copy it into fuzz/regressions/<target>/ (the stable `cargo test` replays
# every file there), fix the bug, and run again. `cargo fuzz tmin` shrinks it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

seconds=${1:-60}
shift || true
all=(router advanced affiliation shard sections import pieces search)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "unknown target '$t' (targets: ${all[*]})" >&2; exit 2; }
done

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
# No sanitizer: cargo-fuzz then needs no nightly flag (the coverage
# instrumentation it adds is stable rustc's). Debug assertions and overflow
# checks stay on, so an overflow is a crash here as in a debug build.
cd fuzz
cargo fuzz build --sanitizer none

results=()
failed=0
for t in "${targets[@]}"; do
  mkdir -p "work/$t" "artifacts/$t"
  log="work/$t.log"
  echo "== $t: ${seconds} s${RUNS:+ or $RUNS executions}"
  status=ok
  # An input may use at most 1 GB (an allocation claimed from a few bytes
  # is a crash) and 10 s; inputs are as long as libFuzzer's default
  # (4 KB, or the largest seed).
  cargo fuzz run --sanitizer none "$t" "work/$t" "corpus/$t" -- \
    -max_total_time="$seconds" ${RUNS:+-runs="$RUNS"} -print_final_stats=1 -rss_limit_mb=1024 -timeout=10 \
    >"$log" 2>&1 || status="CRASH (see fuzz/artifacts/$t/, log fuzz/$log)"
  # libFuzzer's last words: "Done <n> runs in <s> second(s)", then its stats.
  execs=$(awk '/stat::number_of_executed_units:/ { print $2 }' "$log" | tail -1)
  took=$(awk '/^Done [0-9]+ runs in [0-9]+ second/ { print $5 }' "$log" | tail -1)
  execs=${execs:-0}
  took=${took:-$seconds}
  [ "$status" = ok ] || failed=1
  # The machine is shared: the load average when the target stops says how
  # much of a core the run could have had.
  load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '? ? ?')
  results+=("$(printf '%-12s %12d %8d s %10d/s  %-16s %s' "$t" "$execs" "$took" $((execs / (took > 0 ? took : 1))) "$load" "$status")")
done

echo
echo "$(date -u +%Y-%m-%d) $(nproc) cores: target, executions, time, rate, load average (1, 5, 15 min) at its end, result"
printf '%s\n' "${results[@]}"
exit $failed
