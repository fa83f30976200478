/* Fast 64-bit fingerprints of arrays: a tree file records the mesh it was
 * built over and the rules that built it, so that a tree is never used with
 * another mesh. FNV-1a over 32-bit words (each float by its bits), then a
 * final mix so that every input bit reaches every output bit. They tell
 * meshes apart; they do not resist forgery. Words are hashed as values, so
 * the fingerprint of a mesh is the same on every host. */
#ifndef KD_HASH_H
#define KD_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "kd_build.h"
#include "kd_mesh.h"

/* The starting value of a running hash. */
#define KD_HASH64_START 14695981039346656037ull

/* Adds n 32-bit words (or the bits of n floats) to a running hash. */
uint64_t kd_hash64_words(uint64_t h, const uint32_t *words, size_t n);
uint64_t kd_hash64_floats(uint64_t h, const float *values, size_t n);
/* The running hash mixed into its final value. */
uint64_t kd_hash64_finish(uint64_t h);

/* The fingerprint of a mesh as loaded: its counts, every position (all
 * vertices, used or not) and every index, in order. Reordered faces or moved
 * vertices give another fingerprint. */
uint64_t kd_mesh_fingerprint(const kd_mesh *mesh);

/* A hash of the build rules that shape a tree (every field of params but the
 * thread count) followed by n words a builder adds for its own options. */
uint64_t kd_build_rules_hash(const kd_build_params *params, const uint32_t *extra, size_t n);

#endif
