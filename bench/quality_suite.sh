#!/usr/bin/env bash
# Tree quality off the shared scenes (issue 34): generates a fixed set of
# variants of the shared scenes (turned, scaled, moved far, merged) with
# scene_variants, runs `scankd bench` on them and on the shared scenes as they
# are, and prints one table: per scene the CPU and GPU trees' SAH cost and
# their ratio, the CPU tree's nodes and references per triangle, and rays per
# second (GPU rays of the GPU tree and of the CPU tree, CPU rays). Without a
# CUDA device only the CPU columns are filled.
#
# usage: bench/quality_suite.sh [options]
#   --scenes DIR     the shared scenes (default ../shared/scenes, else .devcarry/scenes)
#   --build DIR      the build folder holding scankd and bench/scene_variants (default build)
#   --out DIR        where variants, the bench CSV and logs go (default out/quality)
#   --device KIND    cpu, gpu, both or auto (default auto: both with a GPU, else cpu)
#   --builds N       timed builds per scene and device (default 3)
#   --size W H       image for the rays/s figures (default 1920 1080)
#   --only LIST      comma-separated scene names to run (default all; --list shows them)
#   --emulate        also build each GPU tree by the builder's host emulation (bench/emu_quality;
#                    the device's trees byte for byte, slowly) and fill the GPU SAH columns from
#                    it where bench has no GPU row: tree quality on a machine without a GPU
#   --list           print the scenes and how each variant is made, and exit
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SCENES=""
BUILD="$ROOT/build"
OUT="$ROOT/out/quality"
DEVICE=auto
BUILDS=3
WIDTH=1920
HEIGHT=1080
ONLY=""
LIST=0
EMULATE=0

die() { echo "quality_suite: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --scenes) SCENES=${2:?}; shift 2 ;;
    --build) BUILD=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --device) DEVICE=${2:?}; shift 2 ;;
    --builds) BUILDS=${2:?}; shift 2 ;;
    --size) WIDTH=${2:?}; HEIGHT=${3:?}; shift 3 ;;
    --only) ONLY=${2:?}; shift 2 ;;
    --list) LIST=1; shift ;;
    --emulate) EMULATE=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help lists them)" ;;
  esac
done

# The shared scenes as they are, then the variants: NAME, then scene_variants
# arguments where @SCENE stands for a shared scene's OBJ.
SHARED=(cornell_box_original utah_teapot armadillo_30k_bikker stanford_bunny sponza_dabrovic
        sibenik_mcguire sibenik_blender crytek_sponza conference stanford_dragon_vrip)
VARIANTS=(
  "conference_rot|@conference --rotate 1"
  "crytek_sponza_rot|@crytek_sponza --rotate 2"
  "sponza_rot|@sponza_dabrovic --rotate 3"
  "bunny_rot_moved|@stanford_bunny --rotate 4 --translate-sizes 3 -2 5"
  "dragon_tiny_far|@stanford_dragon_vrip --scale 0.001 --translate 100 0 0"
  "bunny_tiny_far|@stanford_bunny --scale 0.001 --translate 100 0 0"
  "armadillo_huge_rot|@armadillo_30k_bikker --scale 1000 --rotate 5"
  "teapot_far_1e4|@utah_teapot --translate-sizes 1e4 1e4 1e4"
  "sibenik_far_1e4|@sibenik_mcguire --translate-sizes 1e4 0 0"
  "bunny_rot_far_1e4|@stanford_bunny --rotate 6 --translate-sizes 0 1e4 0"
  "merged_overlap|@sponza_dabrovic --center @stanford_bunny --rotate 7 --center --scale 40 @utah_teapot --center --scale 0.2 --translate 5 2 0"
  "merged_row|@stanford_bunny --rotate 8 @armadillo_30k_bikker --scale 0.05 @utah_teapot --scale 0.025 --layout row"
)

if [ "$LIST" = 1 ]; then
  printf '%s\n' "${SHARED[@]}" | sed 's/$/  (as it is)/'
  for v in "${VARIANTS[@]}"; do printf '%s  = scene_variants %s\n' "${v%%|*}" "${v#*|}"; done
  exit 0
fi

if [ -z "$SCENES" ]; then
  if [ -d "$ROOT/../shared/scenes" ]; then SCENES="$ROOT/../shared/scenes"; else SCENES="$ROOT/.devcarry/scenes"; fi
fi
[ -d "$SCENES" ] || die "no scenes folder '$SCENES' (--scenes DIR)"
SCANKD="$BUILD/scankd"
VARIANT_TOOL="$BUILD/bench/scene_variants"
[ -x "$SCANKD" ] || die "no $SCANKD: build first, or --build DIR"
[ -x "$VARIANT_TOOL" ] || die "no $VARIANT_TOOL: build first, or --build DIR"
mkdir -p "$OUT/scenes" "$OUT/variants"

wanted() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

# A shared scene's plain OBJ: the .obj beside, else the .obj.gz unpacked once into $OUT/scenes.
scene_obj() {
  local name=$1
  if [ -f "$SCENES/$name.obj" ]; then echo "$SCENES/$name.obj"; return; fi
  [ -f "$SCENES/$name.obj.gz" ] || die "scene '$name' is in neither $SCENES/$name.obj nor .obj.gz"
  local plain="$OUT/scenes/$name.obj"
  if [ ! -s "$plain" ] || [ "$SCENES/$name.obj.gz" -nt "$plain" ]; then
    gunzip -c "$SCENES/$name.obj.gz" >"$plain.tmp" && mv "$plain.tmp" "$plain"
  fi
  echo "$plain"
}

FILES=()
for s in "${SHARED[@]}"; do
  if wanted "$s"; then FILES+=("$(scene_obj "$s")"); fi
done
for v in "${VARIANTS[@]}"; do
  name=${v%%|*}
  wanted "$name" || continue
  args=()
  for word in ${v#*|}; do
    if [[ $word == @* ]]; then args+=("$(scene_obj "${word#@}")"); else args+=("$word"); fi
  done
  echo "quality_suite: making $name" >&2
  "$VARIANT_TOOL" "${args[@]}" -q -o "$OUT/variants/$name.obj"
  FILES+=("$OUT/variants/$name.obj")
done
[ ${#FILES[@]} -gt 0 ] || die "--only '$ONLY' names no scene (--list shows them)"

CSV="$OUT/quality.csv"
echo "quality_suite: scankd bench on ${#FILES[@]} scenes (log: $OUT/bench.log)" >&2
"$SCANKD" bench "${FILES[@]}" --device "$DEVICE" --builds "$BUILDS" --size "$WIDTH" "$HEIGHT" \
  --csv "$CSV" >"$OUT/bench.log" 2>&1 || { tail -5 "$OUT/bench.log" >&2; exit 1; }

# The emulated GPU trees' SAH costs: "scene sah" lines (none without --emulate).
EMU="$OUT/emulated.txt"
: >"$EMU"
if [ "$EMULATE" = 1 ]; then
  [ -x "$BUILD/bench/emu_quality" ] || die "no $BUILD/bench/emu_quality: build first"
  echo "quality_suite: emulating the GPU builder on ${#FILES[@]} scenes (log: $OUT/emulated.log)" >&2
  "$BUILD/bench/emu_quality" --no-cpu "${FILES[@]}" >"$OUT/emulated.log" 2>&1 ||
    { tail -5 "$OUT/emulated.log" >&2; exit 1; }
  awk '$2 ~ /^[0-9]+$/ { print $1, $4 }' "$OUT/emulated.log" >"$EMU"
fi

# One line per scene from the CPU and GPU rows of the CSV (columns found by name);
# a scene without a GPU row takes its emulated GPU SAH, its ratio marked "e".
awk -v out="$OUT" '
  FILENAME == ARGV[1] { emu[$1] = $2; next }
  FNR == 1 { FS = ","; $0 = $0; for (i = 1; i <= NF; i++) col[$i] = i; next }
  {
    s = $col["scene"]; d = $col["device"]
    if (!(s in seen)) { seen[s] = 1; order[++n] = s }
    tris[s] = $col["triangles"]
    sah[s, d] = $col["sah_cost"]; rays[s, d] = $col["rays_per_second"]
    if (d == "cpu") { nodes[s] = $col["nodes"]; refs[s] = $col["refs_per_triangle"]; cms[s] = $col["build_median_ms"] }
    if (d == "gpu") { gms[s] = $col["build_median_ms"]; ctree[s] = $col["cpu_tree_rays_per_second"] }
  }
  function m(x) { return x == "" ? "-" : sprintf("%.1f", x / 1e6) }
  END {
    printf "%-22s %9s %9s %9s %7s %9s %8s %9s %9s %10s %10s %9s\n", "scene", "triangles", "CPU SAH",
           "GPU SAH", "GPU/CPU", "CPU nodes", "refs/tri", "CPU ms", "GPU ms", "GPU Mray/s",
           "CPUtree@GPU", "CPU Mray/s"
    over = 0; gpu = 0
    for (k = 1; k <= n; k++) {
      s = order[k]; g = sah[s, "gpu"]; c = sah[s, "cpu"]; e = ""
      if (g == "" && (s in emu)) { g = emu[s]; e = "e" }
      ratio = (g != "" && c > 0) ? sprintf("%.3f", g / c) : "-"
      if (g != "") { gpu++; if (g / c > 1.05) { over++; ratio = ratio "*" } }
      ratio = ratio e
      printf "%-22s %9s %9.2f %9s %7s %9s %8.2f %9.1f %9s %10s %10s %9s\n", s, tris[s], c,
             g == "" ? "-" : sprintf("%.2f", g), ratio, nodes[s], refs[s], cms[s],
             gms[s] == "" ? "-" : sprintf("%.2f", gms[s]), m(rays[s, "gpu"]), m(ctree[s]),
             m(rays[s, "cpu"])
    }
    if (gpu > 0) printf "\n%d of %d scenes within 5%% of the CPU tree (* marks the others; e: GPU tree by the emulation)\n", gpu - over, gpu
    else printf "\nno GPU rows: CPU columns only\n"
    printf "CSV: %s/quality.csv\n", out
  }' "$EMU" "$CSV"
