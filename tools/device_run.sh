#!/usr/bin/env bash
# One call on the GPU machine: configure, build, GPU tests, GPU renders and
# verification, the benchmark and the in-build reduction profile, then the
# sanitizers. Logs go to $OUT (the device tool brings that folder back).
# Prepare here first: ../shared/tools/device-prep <scenes...>; carry .devcarry.
set -uo pipefail
OUT=${OUT:-$PWD/out/device}
mkdir -p "$OUT"
S=$PWD/.devcarry/scenes
gunzip -kf "$S"/*.gz 2>/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
step() { echo; echo "== $*"; }

step configure and build
cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=Release -DSTB_INCLUDE_DIR="$PWD/.devcarry/stb" \
  -DKD_SHARED_SCENES_DIR="$S" >"$OUT/build.log" 2>&1 &&
  cmake --build build-dev -j"$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
X=build-dev/scankd

step ctest -L gpu
(cd build-dev && ctest -L gpu -j3 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1; tail -25 "$OUT/ctest_gpu.log")

step GPU demo, render and verify
$X demo --device gpu -o "$OUT" 2>&1 | tail -12
$X render "$S/stanford_dragon_vrip.obj" --device gpu --size 1920 1080 -o "$OUT/dragon.png" 2>&1 | tail -6
for s in stanford_bunny crytek_sponza conference stanford_dragon_vrip; do
  echo "-- verify $s"; $X verify "$S/$s.obj" --device gpu 2>&1 | grep -E "^(tree|invariants|rays|gpu hits|verify)" | cut -c1-200
done

step bench
$X bench "$S"/cornell_box_original.obj "$S"/utah_teapot.obj "$S"/armadillo_30k_bikker.obj \
  "$S"/stanford_bunny.obj "$S"/sponza_dabrovic.obj "$S"/sibenik_mcguire.obj "$S"/sibenik_blender.obj \
  "$S"/crytek_sponza.obj "$S"/conference.obj "$S"/stanford_dragon_vrip.obj \
  --device both --builds 10 --csv "$OUT/bench.csv" 2>/dev/null | tee "$OUT/bench.txt"

step in-build reduction profile, bunny, 20 builds per rung
build-dev/tests/gpu_build_bench --reduce-profile --profile-builds 20 --no-cpu --no-render "$S/stanford_bunny.obj" 2>&1 | tee "$OUT/reduce_profile.txt" | tail -15

step sanitizers on the GPU builder test
KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 build-dev/tests/gpu_build_device quick >"$OUT/memcheck.log" 2>&1; echo "memcheck exit $?"; tail -3 "$OUT/memcheck.log"
KD_TEST_QUICK=1 timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 build-dev/tests/gpu_build_device race >"$OUT/racecheck.log" 2>&1; echo "racecheck exit $?"; tail -3 "$OUT/racecheck.log"
for tool in memcheck racecheck; do # the team clips' shared scratch
  KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 build-dev/tests/gpu_build_clip_device >"$OUT/${tool}_clip.log" 2>&1; echo "$tool (clips) exit $?"; tail -2 "$OUT/${tool}_clip.log"
done

step scan and segmented scan at 2^30 + 3 elements
KD_TEST_HUGE=1 timeout 150 build-dev/tests/prim_scan_gpu 2>&1 | tail -3
KD_TEST_HUGE=1 timeout 150 build-dev/tests/prim_segscan_gpu 2>&1 | tail -3
