/* Tuning knobs of the GPU primitives, one line of reason each. Every knob
 * may be overridden by defining it before this header (for instance
 * -DKD_SPLIT_VECS=2 for the whole build); what each choice measured is in
 * docs/performance.md. Structural constants (a radix digit's 8 bits, the
 * 16-byte vector, the warp) live with the code that depends on them, and the
 * tile shapes of the look-back scan, the segmented scan and the radix sort
 * are tables whose first entry is the public launcher's (the profiler sweeps
 * the rest). */
#ifndef KD_PRIMITIVES_TUNING_H
#define KD_PRIMITIVES_TUNING_H

/* ---- Reduction ladder (reduce/) ------------------------------------------- */
/* Block size of every rung's public launcher: the thesis' kernels assume one
 * modest block size; the profiler's --block-sizes sweep shows the others. */
#ifndef KD_REDUCE_BLOCK
#define KD_REDUCE_BLOCK 256
#endif
/* Rungs 7-8: 16-byte loads a thread keeps in flight per tile, one lane (K = 1)
 * and six lanes (bounds): enough bytes to cover memory latency without spills. */
#ifndef KD_REDUCE_VECS_ONE_LANE
#define KD_REDUCE_VECS_ONE_LANE 4
#endif
#ifndef KD_REDUCE_VECS_SIX_LANES
#define KD_REDUCE_VECS_SIX_LANES 2
#endif
/* Segmented, rungs 0-4: runs shorter than this are reduced by one thread, as
 * one warp's worth is where the rung's block reduction starts to pay. */
#ifndef KD_REDUCE_SHORT_RUN
#define KD_REDUCE_SHORT_RUN 32
#endif
/* Segmented, rungs 5-7: runs from this length up (short of the tile) are
 * reduced by a warp, one element a lane: one load latency instead of one each. */
#ifndef KD_REDUCE_WARP_MIN_RUN
#define KD_REDUCE_WARP_MIN_RUN 4
#endif
/* Segmented: loads a thread issues at once while it reduces a short run (one
 * lane, six lanes): a run cut by the tile's edge must not cost a latency per
 * element; six lanes of four stay within registers at 1024 threads. */
#ifndef KD_REDUCE_SHORT_BATCH_ONE_LANE
#define KD_REDUCE_SHORT_BATCH_ONE_LANE 8
#endif
#ifndef KD_REDUCE_SHORT_BATCH_SIX_LANES
#define KD_REDUCE_SHORT_BATCH_SIX_LANES 4
#endif

/* ---- Scan family (scan/) -------------------------------------------------- */
/* Threads per block of rungs 0 and 1 (one element a thread, one launch per
 * level): any multiple of a warp works; 256 is the seeds' choice. */
#ifndef KD_SCAN_SIMPLE_THREADS
#define KD_SCAN_SIMPLE_THREADS 256
#endif
/* Rung 2: threads per block, each sweeping two elements in shared memory. */
#ifndef KD_SCAN_SHARED_THREADS
#define KD_SCAN_SHARED_THREADS 512
#endif
/* Head flags to ids: threads per block and 4-flag words per thread, so that a
 * thread's flags arrive as a few 4-byte loads. */
#ifndef KD_HEADS_THREADS
#define KD_HEADS_THREADS 128
#endif
#ifndef KD_HEADS_VECS
#define KD_HEADS_VECS 8
#endif

/* ---- Split-by-side (split_by_side/) --------------------------------------- */
/* Threads per block of both passes. */
#ifndef KD_SPLIT_THREADS
#define KD_SPLIT_THREADS 256
#endif
/* 4-element vectors a thread per scatter tile: the tile's outputs must fit its
 * shared memory (2 x 16 bits of slots an element) with blocks to spare. */
#ifndef KD_SPLIT_VECS
#define KD_SPLIT_VECS 4
#endif
/* With segments, inputs below these sizes use 2 and 1 vectors a thread, so
 * that the builder's smaller levels still give every SM a few blocks. */
#ifndef KD_SPLIT_TWO_VECS_BELOW
#define KD_SPLIT_TWO_VECS_BELOW (1u << 20)
#endif
#ifndef KD_SPLIT_ONE_VEC_BELOW
#define KD_SPLIT_ONE_VEC_BELOW (1u << 19)
#endif

/* ---- Radix sort (radix_sort/) --------------------------------------------- */
/* Keys a thread ranks per tile: a tile of 4096 keys amortises its digit
 * counts and look-back over enough keys while the ranks fit in registers. */
#ifndef KD_SORT_ITEMS
#define KD_SORT_ITEMS 16
#endif

/* Largest grid of the one-read histogram (all passes' digit counts): each
 * block adds its 4 x 256 counts to the global table by atomics, so past the
 * blocks that fill the GPU more blocks add atomics, not speed. */
#ifndef KD_SORT_HISTOGRAM_MAX_BLOCKS
#define KD_SORT_HISTOGRAM_MAX_BLOCKS 2048
#endif

/* ---- Grid-stride helper kernels ------------------------------------------- */
/* Largest grid of the small reset and fill kernels (record identities, the
 * split's counters, the sort's key maximum): more blocks only queue. */
#ifndef KD_FILL_MAX_BLOCKS
#define KD_FILL_MAX_BLOCKS 4096
#endif

#endif
