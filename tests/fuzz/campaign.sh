#!/usr/bin/env bash
# A long fuzzing campaign: each target in turn for RUNS executions (default 10
# million) under ASan and UBSan, from its seed corpus, one process per target at a
# time unless JOBS says more. New inputs go to BUILD/tests/fuzz/libfuzzer/campaign/<target>,
# findings to .../campaign/findings, libFuzzer's log and final statistics to
# .../campaign/<target>.log. Needs the libFuzzer targets (clang and libclang-rt-dev
# present when cmake ran). SPLIT=N splits each target's RUNS over N parallel
# libFuzzer jobs (-jobs/-workers, sharing the corpus; logs in .../campaign/<target>/jobs),
# for a machine with many cores.
#
#   tests/fuzz/campaign.sh BUILD [RUNS] [TARGET...]      targets: obj ply gzip tree
set -euo pipefail
build=${1:?usage: campaign.sh BUILD [RUNS] [TARGET...]}
runs=${2:-10000000}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(obj ply gzip tree)
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz/libfuzzer
out=$bin/campaign
mkdir -p "$out/findings"
jobs=${JOBS:-1}
run_target() {
    local t=$1
    [ -x "$bin/fuzz_$t" ] || { echo "campaign: $bin/fuzz_$t missing (no clang fuzzer runtime?)" >&2; return 1; }
    mkdir -p "$out/$t"
    local start=$(date +%s)
    local split=${SPLIT:-1} each=$runs par=()
    if [ "$split" -gt 1 ]; then
        each=$(( (runs + split - 1) / split ))
        par=(-jobs="$split" -workers="$split")
        mkdir -p "$out/$t/jobs"
    fi
    (cd "$out/$t/${par:+jobs}" && "$bin/fuzz_$t" "${par[@]}" -runs="$each" -dict="$here/$t.dict" -max_len=8192 \
        -timeout=10 -rss_limit_mb=2048 -use_value_profile=1 -print_final_stats=1 \
        -artifact_prefix="$out/findings/$t-" "$out/$t" "$here/corpus/$t" > "$out/$t.log" 2>&1) || true
    local logs=("$out/$t.log"); [ "$split" -gt 1 ] && logs=("$out/$t"/jobs/fuzz-*.log)
    local total; total=$(grep -h '^stat::number_of_executed_units' "${logs[@]}" | awk '{s += $2} END {print s + 0}')
    local reports; reports=$( (grep -lE '^==[0-9]+==ERROR|runtime error|^SUMMARY' "${logs[@]}" || true) | wc -l)
    echo "campaign: $t: $(( $(date +%s) - start )) s, $total executions over $split job(s), $reports log(s) with a report"
}
running=0
for t in "${targets[@]}"; do
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
ls "$out/findings"
