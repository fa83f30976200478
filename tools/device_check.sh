#!/usr/bin/env bash
# One call on the GPU machine: build, then the steps named (default: all but
# bench). Logs go to $OUT (the device tool brings that folder back).
#   tools/device_check.sh [gpu] [all] [sanitize] [verify] [trees] [bench] [render] [views] [scale] [compact]
#                         [quality] [base=DIR]
# gpu: ctest -L gpu; sanitize: memcheck and racecheck on the GPU builder and
# clip tests; verify: `scankd verify --device gpu` on four scenes; trees
# (with base=DIR): each scene's device tree from both builds, byte for byte; bench:
# the ten scenes' builds (gpu_build_bench), and with base=DIR the same from a
# second source tree built beside (an earlier commit), side by side; views: bench's
# primary and diffuse rays/s at the default and inside views; scale: the dragon
# x12 grid (10.5 M triangles) built by both trees, time and peak memory.
# Prepare here first: ../shared/tools/device-prep <scenes...>; carry .devcarry.
set -uo pipefail
OUT=${OUT:-$PWD/out/device}
mkdir -p "$OUT"
S=$PWD/.devcarry/scenes
gunzip -kf "$S"/*.gz 2>/dev/null
steps="$*"
[ -n "$steps" ] || steps="gpu sanitize verify"
base=$(printf '%s\n' $steps | sed -n 's/^base=//p')
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
step() { echo; echo "== $* ($(date +%T))"; }
has() { case " $steps " in *" $1 "*) return 0;; esac; return 1; }

build() { # source dir, build dir, log, [targets...]
  local src=$1 dir=$2 log=$3; shift 3
  local targets=""; for t in "$@"; do targets="$targets --target $t"; done
  cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSTB_INCLUDE_DIR="$PWD/.devcarry/stb" \
    -DKD_SHARED_SCENES_DIR="$S" >"$log" 2>&1 && cmake --build "$dir" -j"$(nproc)" $targets >>"$log" 2>&1 ||
    { tail -40 "$log"; return 1; }
}
step build
build . build-dev "$OUT/build.log" || exit 1
if [ -n "$base" ]; then # the programs the comparison runs
  build "$base" build-base "$OUT/build_base.log" scankd gpu_build_bench || exit 1
fi

if has gpu; then
  step ctest -L gpu
  (cd build-dev && ctest -L gpu -j3 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1; tail -20 "$OUT/ctest_gpu.log")
fi

if has all; then # every test, the CPU ones' GPU branches too (the CLI tests see the device)
  step ctest, every label
  (cd build-dev && ctest -j8 --output-on-failure >"$OUT/ctest_all.log" 2>&1;
   grep -E "tests passed|Failed|\*\*\*" "$OUT/ctest_all.log" | tail -12)
fi

if has compact; then
  step profile compact
  build-dev/scankd profile compact --sizes 16:28,16:28-3 --csv "$OUT/compact.csv" --chart "$OUT/profile_compact.png" \
    2>&1 | tee "$OUT/compact.txt" | tail -40
  KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 build-dev/tests/primitives/prim_compact_gpu \
    >"$OUT/memcheck_compact.log" 2>&1; echo "memcheck prim_compact_gpu exit $?"
  KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 1 build-dev/tests/primitives/prim_compact_gpu \
    >"$OUT/racecheck_compact.log" 2>&1; echo "racecheck prim_compact_gpu exit $?"
fi

if has render && [ -n "$base" ]; then
  step render, primary rays at 1920x1080, both builds
  for s in stanford_bunny crytek_sponza conference stanford_dragon_vrip; do
    for side in base dev; do
      b=build-$side/scankd
      echo "$side $s: $($b render "$S/$s.obj" --device gpu --size 1920 1080 -o /tmp/r_$side.png 2>&1 | grep -iE "rays/s|Mrays" | head -1)"
    done
  done | tee "$OUT/render.txt"
fi

if has views; then
  step views: bench primary and diffuse rays, default and inside views
  for view in default inside; do
    build-dev/scankd bench "$S"/stanford_bunny.obj "$S"/crytek_sponza.obj "$S"/conference.obj \
      "$S"/stanford_dragon_vrip.obj "$S"/sibenik_mcguire.obj --device gpu --repeats 5 --view $view \
      --csv "$OUT/views_$view.csv" >"$OUT/views_$view.txt" 2>&1
    echo "-- $view"; cat "$OUT/views_$view.txt" | tail -8
  done
fi

if has scale; then
  step scale: the dragon x12 grid
  build-dev/bench/scene_variants "$S/stanford_dragon_vrip.obj" --grid 3 2 2 -q -o /tmp/grid12.obj
  for side in base dev; do
    [ -d build-$side ] || continue
    echo "-- $side"
    build-$side/scankd build /tmp/grid12.obj --device gpu --profile --repeats 5 2>&1 |
      grep -E "^ +(build|first build|peak device memory) " | head -3
  done | tee "$OUT/scale.txt"
fi

if has quality; then
  step quality suite
  bash bench/quality_suite.sh --scenes "$S" --build build-dev --out /tmp/quality --device both --builds 3 \
    >"$OUT/quality.txt" 2>&1; tail -30 "$OUT/quality.txt"
fi

if has sanitize; then
  step sanitizers
  T=build-dev/tests/gpu_build
  KD_TEST_QUICK=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 1 $T/gpu_build_device quick \
    >"$OUT/memcheck.log" 2>&1; echo "memcheck gpu_build_device exit $?"; tail -2 "$OUT/memcheck.log"
  KD_TEST_QUICK=1 timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 $T/gpu_build_device race \
    >"$OUT/racecheck.log" 2>&1; echo "racecheck gpu_build_device exit $?"; tail -2 "$OUT/racecheck.log"
  for tool in memcheck racecheck; do
    KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $T/gpu_build_clip_device \
      >"$OUT/${tool}_clip.log" 2>&1; echo "$tool gpu_build_clip_device exit $?"
  done
  for tool in memcheck racecheck; do
    KD_TEST_QUICK=1 timeout 180 compute-sanitizer --tool $tool --error-exitcode 1 build-dev/tests/render/render_gpu_diffuse \
      >"$OUT/${tool}_diffuse.log" 2>&1; echo "$tool render_gpu_diffuse exit $?"
  done
  for t in build-dev/tests/primitives/prim_*_gpu build-dev/tests/primitives/layer_*_gpu build-dev/tests/api/api_gpu; do
    KD_TEST_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 1 $t \
      >"$OUT/memcheck_$(basename $t).log" 2>&1; echo "memcheck $(basename $t) exit $?"
  done
fi

if has verify; then
  step verify --device gpu
  for s in stanford_bunny crytek_sponza conference stanford_dragon_vrip; do
    echo "-- $s"; build-dev/scankd verify "$S/$s.obj" --device gpu 2>&1 | grep -E "^(invariants|rays|bounces|gpu hits|verify)" | cut -c1-160
  done
  for s in crytek_sponza conference sibenik_mcguire; do
    echo "-- $s --view inside"; build-dev/scankd verify "$S/$s.obj" --device gpu --view inside 2>&1 | grep -E "^(rays|bounces|gpu hits|verify)" | cut -c1-160
  done
fi

# A program of a build tree, wherever that tree's layout puts it.
prog() { find "$1" -type f -name "$2" -perm -u+x | head -n 1; }

if has trees && [ -n "$base" ]; then
  step trees: the device builds of both trees
  for s in cornell_box_original utah_teapot armadillo_30k_bikker stanford_bunny sponza_dabrovic sibenik_mcguire \
           sibenik_blender crytek_sponza conference stanford_dragon_vrip; do
    build-base/scankd build "$S/$s.obj" --device gpu --save /tmp/base_$s.kd >/dev/null 2>&1
    build-dev/scankd build "$S/$s.obj" --device gpu --save /tmp/new_$s.kd >/dev/null 2>&1
    # The nodes and leaf lists: after the header (64 bytes in version 1, 96 in
    # version 2, by the first word after the magic), before the 8-byte checksum.
    body() { local h; h=$(od -An -tu4 -j12 -N4 "$1" | tr -d ' '); tail -c +$((h + 1)) "$1" | head -c -8; }
    if cmp -s <(body /tmp/base_$s.kd) <(body /tmp/new_$s.kd); then
      echo "$s: same nodes and leaf lists ($(body /tmp/new_$s.kd | wc -c) bytes)"
    else echo "$s: TREES DIFFER"; fi
  done | tee "$OUT/trees.txt"
fi

if has bench; then
  step bench, 10 builds a scene, rounds alternating
  scenes=""
  for s in cornell_box_original utah_teapot armadillo_30k_bikker stanford_bunny sponza_dabrovic sibenik_mcguire \
           sibenik_blender crytek_sponza conference stanford_dragon_vrip; do scenes="$scenes $S/$s.obj"; done
  new_bench=$(prog build-dev gpu_build_bench)
  base_bench=""; [ -n "$base" ] && base_bench=$(prog build-base gpu_build_bench)
  for round in 1 2 3; do
    [ -n "$base_bench" ] && $base_bench --no-cpu --no-render --builds 10 $scenes >"$OUT/bench_base_$round.txt" 2>&1
    $new_bench --no-cpu --no-render --builds 10 $scenes >"$OUT/bench_new_$round.txt" 2>&1
  done
  # scene, median ms, min ms, SAH, nodes per run
  for f in "$OUT"/bench_*.txt; do
    echo "-- $(basename $f .txt)"
    grep -E "^/|GPU  build" "$f" | paste - - | sed -E 's#.*/([a-z_0-9]+)\.obj.*GPU  build +([0-9.]+) ms median +([0-9.]+) ms min \| SAH +([0-9.]+) \| nodes ([0-9]+).*#\1 \2 \3 \4 \5#'
  done | tee "$OUT/bench_summary.txt"
fi
