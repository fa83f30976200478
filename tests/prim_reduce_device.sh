#!/bin/bash
# One device-machine session for the reduction ladder and the profiler:
# build, GPU tests, sanitizers (quick sizes), profile. Logs go to $OUT.
#   tests/prim_reduce_device.sh [steps...]   steps: build test sanitize profile profile_all
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
    log "build rc=$?"; tail -5 "$OUT/build.log" ;;
  test)
    (cd $B && timeout 240 ctest -L gpu -R reduce --output-on-failure) >"$OUT/ctest.log" 2>&1
    log "ctest rc=$?"; tail -12 "$OUT/ctest.log" ;;
  sanitize)
    for tool in memcheck racecheck; do
      for t in prim_reduce_gpu prim_reduce_bounds_gpu prim_reduce_segmented_gpu; do
        KD_TEST_QUICK=1 timeout 170 compute-sanitizer --tool $tool --error-exitcode 1 $B/tests/$t \
          >>"$OUT/sanitizer.log" 2>&1
        log "$tool $t rc=$?"
      done
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|checks," "$OUT/sanitizer.log" | tee -a "$OUT/summary.txt" ;;
  profile)
    timeout 200 $B/scankd profile reduce --block-sizes 128,256,512,1024 --sweep-sizes 16:28 \
      --csv "$OUT/profile_reduce.csv" --json "$OUT/profile_reduce.json" \
      --chart "$OUT/profile_reduce.png" >"$OUT/profile_reduce.txt" 2>&1
    log "profile reduce rc=$?" ;;
  profile_all)
    timeout 280 $B/scankd profile all --csv "$OUT/profile.csv" --json "$OUT/profile.json" \
      --chart "$OUT/profile_<what>.png" >"$OUT/profile.txt" 2>&1
    log "profile all rc=$?" ;;
  esac
done
