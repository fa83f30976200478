/* The GPU builder's compile-time knobs, all here, each with one line of why.
 * Define one before this header (-DKD_GB_...=N) to build another value; the
 * trees never depend on them, only the speed does (KD_GB_CHAIN_MAX and
 * KD_GB_CLIP_MAX_POINTS change no tree either: see their lines). What each
 * value was measured against is in docs/performance.md, under the knob's
 * name. Valid C and CUDA. */
#ifndef KD_GPU_BUILD_TUNING_H
#define KD_GPU_BUILD_TUNING_H

/* ---- Clipping (all stages) ------------------------------------------------ */
/* Points a clipped polygon may hold: a triangle clipped by a box's six planes
 * has at most 9; where rounding would make more, the clip falls back to the
 * box, so fewer points only loosen a few bounds (tests use 5 on purpose). */
#ifndef KD_GB_CLIP_MAX_POINTS
#define KD_GB_CLIP_MAX_POINTS 9
#endif

/* ---- Large levels ---------------------------------------------------------- */
/* References a level must have before its straddlers are queued and clipped
 * by a pass of their own: below it the extra launch costs more than it wins. */
#ifndef KD_GB_CLIP_QUEUE_MIN
#define KD_GB_CLIP_QUEUE_MIN 200000u
#endif
/* Empty cuts a node may make in a row within its level's choice (0: one level
 * per cut); the tree is the same either way, only the levels differ. */
#ifndef KD_GB_CHAIN_MAX
#define KD_GB_CHAIN_MAX 8
#endif

/* ---- Reference sets (all stages) -------------------------------------------- */
/* A working reference set's block grows by at least 1/this of itself: a
 * level asks a few percent more than the one before, and a larger step is
 * memory that the spent sets hold to the build's end. */
#ifndef KD_GB_REF_BLOCK_HEADROOM
#define KD_GB_REF_BLOCK_HEADROOM 8u
#endif

/* ---- Medium stage ------------------------------------------------------------ */
/* Threads of the persistent medium kernel's blocks: 8 warps, one of which
 * takes a node, or all 8 a large one; 164 registers a thread fit one block. */
#ifndef KD_GB_MED_THREADS
#define KD_GB_MED_THREADS 256
#endif
/* Blocks an SM of the medium kernel's narrow shape (its register cap
 * follows): a few long chains of nodes want registers, not warps. */
#ifndef KD_GB_MED_MIN_BLOCKS
#define KD_GB_MED_MIN_BLOCKS 1
#endif
/* Blocks an SM of its wide shape (polygons in local memory, 128 registers):
 * twice the warps for levels with work enough for all of them. */
#ifndef KD_GB_MED_WIDE_BLOCKS
#define KD_GB_MED_WIDE_BLOCKS 2
#endif
/* References per SM, in the level the medium stage takes, from which it runs
 * wide: below, the stage waits on its longest chains of nodes. */
#ifndef KD_GB_MED_WIDE_REFS
#define KD_GB_MED_WIDE_REFS 4096u
#endif
/* A lane's references loaded this many at a time in the medium stage's passes. */
#ifndef KD_GB_MED_UNROLL
#define KD_GB_MED_UNROLL 1
#endif

/* References the medium stage's arena first holds per reference of the
 * level it takes (real scenes used 6.3 to 12.5, the slivers 15.1: more voids the run). */
#ifndef KD_GB_MEDIUM_REFS
#define KD_GB_MEDIUM_REFS 13u
#endif

/* Small references the medium stage first has room for per reference of the
 * level it takes (real scenes made 1.3 to 1.9; the constant beside it covers
 * the slivers' 3.5 of a small level). */
#ifndef KD_GB_MEDIUM_SMALL_REFS
#define KD_GB_MEDIUM_SMALL_REFS 2u
#endif

/* ---- Small stage ------------------------------------------------------------- */
/* Widest team of lanes that decides a small node (8 or 16); wider nodes take
 * a whole warp. 16 lets nodes of 9-16 members share a warp. */
#ifndef KD_GB_TEAM_MAX
#define KD_GB_TEAM_MAX 16
#endif
/* Unroll of the node pass's counting loop: one member's loads in flight while
 * the last one's bounds are compared (4 spilled). */
#ifndef KD_GB_FROM_UNROLL
#define KD_GB_FROM_UNROLL 2
#endif
/* A warp's run of tasks in a wave: the wave's share per warp, clamped to
 * these (a run is sorted on one lane per task, so at most 32). */
#ifndef KD_GB_RUN_MIN
#define KD_GB_RUN_MIN 2u
#endif
#ifndef KD_GB_RUN_MAX
#define KD_GB_RUN_MAX 16u
#endif
/* ...but a wave of more than KD_GB_RUN_MAX x KD_GB_RUNS_PER_WARP tasks a warp
 * runs 1/KD_GB_RUNS_PER_WARP of the share, up to KD_GB_RUN_LONG: fewer claims
 * and sorts, while every warp still has runs enough to even out the end. */
#ifndef KD_GB_RUNS_PER_WARP
#define KD_GB_RUNS_PER_WARP 4u
#endif
#ifndef KD_GB_RUN_LONG
#define KD_GB_RUN_LONG 32u
#endif
/* Node-pass blocks (of 4 warps) an SM: caps registers at 80, warps enough
 * to hide the node pass's global loads (the spills cost less than that). */
#ifndef KD_GB_WAVE_MIN_BLOCKS
#define KD_GB_WAVE_MIN_BLOCKS 6
#endif
/* Clip-pass blocks (of 128 threads, polygons in 54 KB of shared memory) an
 * SM: caps registers at 128 without spills. */
#ifndef KD_GB_CLIP_MIN_BLOCKS
#define KD_GB_CLIP_MIN_BLOCKS 4
#endif
/* A wave's straddlers are clipped by teams of 16 lanes (a shorter chain of
 * steps) where there are at most this many per team the grid has; else a
 * thread each. */
#ifndef KD_GB_CLIP_TEAM_ROUNDS
#define KD_GB_CLIP_TEAM_ROUNDS 1
#endif

/* A wave's member entries, per small reference beyond the roots' own, that
 * each half of the arena first holds (the most a wave asked for was 2.34). */
#ifndef KD_GB_WAVE_MEMBERS
#define KD_GB_WAVE_MEMBERS 2u
#endif
/* A wave's tasks, per small reference beyond the roots, that each half of
 * the task array first holds (the most a wave asked for was 1.1). */
#ifndef KD_GB_WAVE_TASKS
#define KD_GB_WAVE_TASKS 1.5
#endif
/* A wave's clip jobs, per small reference, that the job array first holds
 * (the most a wave queued was 0.39 per reference). */
#ifndef KD_GB_WAVE_CLIPS
#define KD_GB_WAVE_CLIPS 1.0
#endif

/* ---- Batches (a build over max_device_bytes) ------------------------------------ */
/* Device bytes per reference of the hand-over level that a batch's medium
 * and small stages take at their first sizes, the pool apart (764 on the
 * bunny, 851 on crytek sponza). */
#ifndef KD_GB_BATCH_BYTES
#define KD_GB_BATCH_BYTES 1000u
#endif
/* Device bytes a batch takes whatever its size (the first sizes' constants). */
#ifndef KD_GB_BATCH_FIXED
#define KD_GB_BATCH_FIXED (8u << 20)
#endif
/* Pool slots per reference of the hand-over level that the first batch is
 * sized for (the whole level added 3.0 on conference to 9.6 on sponza). */
#ifndef KD_GB_BATCH_POOL_SLOTS
#define KD_GB_BATCH_POOL_SLOTS 10u
#endif
/* The first batch takes at most this part of the level; the pool slots it
 * adds a reference size the pool for the rest (a pool grown late holds its
 * old and new memory). */
#ifndef KD_GB_BATCH_FIRST_PART
#define KD_GB_BATCH_FIRST_PART 8u
#endif
/* Pool slots per reference of a batch that its small stage first asks for
 * beyond its use (8 per small reference, up to 1.9 of those per level reference). */
#ifndef KD_GB_BATCH_POOL_HEAD
#define KD_GB_BATCH_POOL_HEAD 16u
#endif

/* ---- Output ------------------------------------------------------------------ */
/* Small-stage waves a collapse launch decides, a thread per node of its upper
 * one: more are fewer launches, against more work and divergence per thread. */
#ifndef KD_GB_COLLAPSE_WAVES
#define KD_GB_COLLAPSE_WAVES 3
#endif
/* Where the deepest collapse launch's upper wave has fewer nodes, the launch
 * before takes its waves too: a launch costs more than they add to its threads. */
#ifndef KD_GB_COLLAPSE_TAIL_MAX
#define KD_GB_COLLAPSE_TAIL_MAX (1u << 14)
#endif
/* A small-stage wave of fewer task slots than this is summed by walks up the
 * tree rather than a pass of its own (a launch costs more than its walks). */
#ifndef KD_GB_WAVE_PASS_MIN
#define KD_GB_WAVE_PASS_MIN (1u << 16)
#endif

#endif
