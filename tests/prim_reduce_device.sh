#!/bin/bash
# One device-machine session for the reduction ladder and the profiler:
# build, GPU tests, sanitizers (quick sizes), profile. Logs go to $OUT.
#   tests/prim_reduce_device.sh [steps...]   steps: build test sanitize race_seg profile profile_all
set -u
OUT=${OUT:-/tmp/prim_reduce_out}
mkdir -p "$OUT"
B=build-dev
steps=${*:-build test profile}
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
for step in $steps; do
  case $step in
  build)
    nvidia-smi -L >>"$OUT/summary.txt" 2>&1
    cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DSTB_INCLUDE_DIR=$PWD/.devcarry/stb >"$OUT/build.log" 2>&1 &&
      cmake --build $B -j16 --target scankd prim_reduce_gpu prim_reduce_bounds_gpu \
        prim_reduce_segmented_gpu prim_reduce_ref prim_reduce_cli >>"$OUT/build.log" 2>&1
    rc=$?; log "build rc=$rc"; [ $rc = 0 ] && rm -f "$OUT/build.log" || tail -30 "$OUT/build.log" ;;
  test)
    (cd $B && timeout ${TEST_TIMEOUT:-240} ctest -L gpu -R reduce --output-on-failure) >"$OUT/ctest.log" 2>&1
    log "ctest rc=$?"; cat "$OUT/ctest.log" >>"$OUT/summary.txt"; rm -f "$OUT/ctest.log" ;;
  sanitize)
    # The three tests side by side under each tool (one GPU, separate processes).
    for tool in memcheck racecheck; do
      for t in prim_reduce_gpu prim_reduce_bounds_gpu prim_reduce_segmented_gpu; do
        ( KD_TEST_QUICK=1 timeout ${SAN_TIMEOUT:-130} compute-sanitizer --tool $tool --error-exitcode 1 \
            $B/tests/$t >"$OUT/san_${tool}_$t.log" 2>&1; echo "== $tool $t rc=$?" >>"$OUT/summary.txt" ) &
      done
      wait
    done
    for f in "$OUT"/san_*.log; do
      echo "-- $(basename $f): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|checks,' $f | tr '\n' ' ')"
    done >>"$OUT/sanitizer.log"
    rm -f "$OUT"/san_*.log
    cat "$OUT/sanitizer.log" >>"$OUT/summary.txt"; rm -f "$OUT/sanitizer.log" ;;
  race_seg)
    KD_TEST_QUICK=1 timeout ${SAN_TIMEOUT:-130} compute-sanitizer --tool racecheck --error-exitcode 1 \
      $B/tests/prim_reduce_segmented_gpu >"$OUT/race_seg.log" 2>&1
    log "racecheck prim_reduce_segmented_gpu rc=$?"
    grep -E "RACECHECK SUMMARY|checks," "$OUT/race_seg.log" >>"$OUT/summary.txt"; rm -f "$OUT/race_seg.log" ;;
  profile)
    timeout 200 $B/scankd profile reduce --block-sizes 128,256,512,1024 --sweep-sizes 16:28 \
      --csv "$OUT/profile_reduce.csv" --json "$OUT/profile_reduce.json" \
      --chart "$OUT/profile_reduce.png" >"$OUT/profile_reduce.txt" 2>&1
    log "profile reduce rc=$?" ;;
  profile_all)
    timeout ${PROFILE_TIMEOUT:-280} $B/scankd profile ${PROFILE_WHAT:-all} ${PROFILE_ARGS:-} \
      --csv "$OUT/profile.csv" --json "$OUT/profile.json" \
      --chart "$OUT/profile_<what>.png" >"$OUT/profile.txt" 2>&1
    log "profile ${PROFILE_WHAT:-all} rc=$?" ;;
  esac
done
