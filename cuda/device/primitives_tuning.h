/* Tuning knobs of the GPU primitives, one line of reason each. You can
 * #define any of them before this header (for instance -DKD_SPLIT_VECS=2 for
 * the whole build); what each choice measured is in docs/performance.md.
 * Structural constants (a radix digit's 8 bits, the 16-byte vector, the
 * warp) live with the code that depends on them, and the tile shapes of the
 * look-back scan, the segmented scan and the radix sort are tables whose
 * first entry is the public launcher's (the profiler sweeps the rest). */
#ifndef KD_PRIMITIVES_TUNING_H
#define KD_PRIMITIVES_TUNING_H

/* ---- Reduction ladder (reduce/) -------------------------------------------- */
/* Every rung's public block size: the thesis' kernels assume one; --block-sizes sweeps the rest */
#ifndef KD_REDUCE_BLOCK
#define KD_REDUCE_BLOCK 256
#endif
/* Rungs 7-8, one lane: 16-byte loads in flight a thread per tile, to cover memory latency */
#ifndef KD_REDUCE_VECS_ONE_LANE
#define KD_REDUCE_VECS_ONE_LANE 4
#endif
/* Rungs 7-8, six lanes (bounds): as many bytes in flight, within the registers */
#ifndef KD_REDUCE_VECS_SIX_LANES
#define KD_REDUCE_VECS_SIX_LANES 2
#endif
/* Segmented, rungs 0-4: shorter runs one thread each, as a block reduction costs barriers */
#ifndef KD_REDUCE_SHORT_RUN
#define KD_REDUCE_SHORT_RUN 32
#endif
/* Segmented, rungs 5-7: longer runs a warp each, one latency where a thread paid one a load */
#ifndef KD_REDUCE_WARP_MIN_RUN
#define KD_REDUCE_WARP_MIN_RUN 4
#endif
/* Segmented, one lane: a short run's loads issued at once, not one latency each */
#ifndef KD_REDUCE_SHORT_BATCH_ONE_LANE
#define KD_REDUCE_SHORT_BATCH_ONE_LANE 8
#endif
/* Segmented, six lanes: the same, 24 loads, which fit the registers at 1024 threads */
#ifndef KD_REDUCE_SHORT_BATCH_SIX_LANES
#define KD_REDUCE_SHORT_BATCH_SIX_LANES 4
#endif

/* ---- Scan family (scan/, segmented_scan/) ---------------------------------- */
/* Scan0 and Scan1: one element a thread, one launch a level: the seeds' block size */
#ifndef KD_SCAN_SIMPLE_THREADS
#define KD_SCAN_SIMPLE_THREADS 256
#endif
/* Scan2: each thread sweeps two elements, so a block's tile is 1024 in shared memory */
#ifndef KD_SCAN_SHARED_THREADS
#define KD_SCAN_SHARED_THREADS 512
#endif
/* Head flags to ids: threads a block */
#ifndef KD_HEADS_THREADS
#define KD_HEADS_THREADS 128
#endif
/* Head flags to ids: 4-flag words a thread, read as 4-byte loads */
#ifndef KD_HEADS_VECS
#define KD_HEADS_VECS 8
#endif

/* ---- Split-by-side (split_by_side/) ---------------------------------------- */
/* Threads a block of both passes */
#ifndef KD_SPLIT_THREADS
#define KD_SPLIT_THREADS 256
#endif
/* 4-element vectors a thread: fewer tiles to look back over, within a tile's shared slots */
#ifndef KD_SPLIT_VECS
#define KD_SPLIT_VECS 4
#endif
/* With segments, 2 vectors below this size: the builder's levels still fill every SM */
#ifndef KD_SPLIT_TWO_VECS_BELOW
#define KD_SPLIT_TWO_VECS_BELOW (1u << 20)
#endif
/* With segments, 1 vector below this size, likewise */
#ifndef KD_SPLIT_ONE_VEC_BELOW
#define KD_SPLIT_ONE_VEC_BELOW (1u << 19)
#endif

/* ---- Stream compaction (compact/) ------------------------------------------ */
/* Threads a block of the single pass */
#ifndef KD_COMPACT_THREADS
#define KD_COMPACT_THREADS 256
#endif
/* 4-element vectors a thread: fewer tiles to look back over, within 2-byte slot indices */
#ifndef KD_COMPACT_VECS
#define KD_COMPACT_VECS 4
#endif
/* Selected elements a thread gathers before it stores them: loads in flight cover latency */
#ifndef KD_COMPACT_BATCH
#define KD_COMPACT_BATCH 4
#endif

/* ---- Radix sort (radix_sort/) ---------------------------------------------- */
/* Keys a thread ranks per tile: a tile's counts and look-back amortised, ranks in registers */
#ifndef KD_SORT_ITEMS
#define KD_SORT_ITEMS 16
#endif
/* Single-pass kernel's resident blocks an SM: tiles in flight hide the look-back */
#ifndef KD_SORT_ONESWEEP_MIN_BLOCKS
#define KD_SORT_ONESWEEP_MIN_BLOCKS 4
#endif
/* Classic scatter's resident blocks an SM: caps its registers, sizes its grid */
#ifndef KD_SORT_SCATTER_MIN_BLOCKS
#define KD_SORT_SCATTER_MIN_BLOCKS 3
#endif
/* Classic histogram: 16-byte loads a thread issues per round before counting */
#ifndef KD_SORT_HISTOGRAM_LOADS
#define KD_SORT_HISTOGRAM_LOADS 8
#endif
/* One-read histogram's grid: each block adds its counts by atomics; more only add atomics */
#ifndef KD_SORT_HISTOGRAM_MAX_BLOCKS
#define KD_SORT_HISTOGRAM_MAX_BLOCKS 2048
#endif

/* ---- Small grid-stride kernels --------------------------------------------- */
/* Grid of the reset and fill kernels (identities, counters, the key maximum): more only queue */
#ifndef KD_FILL_MAX_BLOCKS
#define KD_FILL_MAX_BLOCKS 4096
#endif

#endif
