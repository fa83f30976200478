/* The mesh loaders' knobs, one line of reason each. Define one before including
 * this header (or with -D) to change it. */
#ifndef KD_MESH_TUNING_H
#define KD_MESH_TUNING_H

/* Text read per block: the window is reused, so it stays in cache, and the
 * parser's pass over it costs far more than the read() that fills it. */
#ifndef KD_MESH_BLOCK_BYTES
#define KD_MESH_BLOCK_BYTES (1u << 20)
#endif

/* Compressed bytes read per block of a gzip file. */
#ifndef KD_MESH_GZIP_INPUT_BYTES
#define KD_MESH_GZIP_INPUT_BYTES (1u << 18)
#endif

/* Longest logical OBJ line (or PLY header): the window grows to hold one, so this
 * bounds the memory a line without end (a binary or broken file) can take. */
#ifndef KD_MESH_MAX_LINE_BYTES
#define KD_MESH_MAX_LINE_BYTES (64u << 20)
#endif

/* The first text bytes searched for signs of a binary file. */
#ifndef KD_MESH_SNIFF_BYTES
#define KD_MESH_SNIFF_BYTES (64u << 10)
#endif

/* Control bytes in a row (other than tab, line ends, VT and FF) that mark text as
 * binary; a few stray ones are left to the parser's messages. */
#ifndef KD_MESH_BINARY_RUN
#define KD_MESH_BINARY_RUN 8
#endif

/* deflate's best case is about 1032:1, so a gzip file's size bounds the text it can
 * hold; the trailer's size field, which a truncated or padded file can fake, is
 * trusted only below that. */
#ifndef KD_MESH_GZIP_MAX_RATIO
#define KD_MESH_GZIP_MAX_RATIO 1032u
#endif

/* Longest PLY header: names and counts only, so a longer one is not a PLY file,
 * and this bounds the memory its description takes. */
#ifndef KD_MESH_MAX_PLY_HEADER_BYTES
#define KD_MESH_MAX_PLY_HEADER_BYTES (1u << 20)
#endif

#endif
