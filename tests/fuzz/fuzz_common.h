/* What the loader fuzz targets check after every input: a load through a small
 * window gives exactly what a load through the default one gives (status,
 * message, warning, every field of the mesh), and a mesh that loads holds
 * together. A violation aborts, which libFuzzer (or the replay driver) reports. */
#ifndef KD_FUZZ_COMMON_H
#define KD_FUZZ_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_error.h"
#include "kd_mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond, ...)                                                 \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fuzz: %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* A loaded mesh: every index names a vertex, the counts add up. */
static inline void fuzz_check_mesh(const kd_mesh *m)
{
    FUZZ_ASSERT(m->num_triangles > 0 && m->positions && m->indices, "empty mesh loaded");
    for (uint64_t k = 0; k < 3ull * m->num_triangles; k++)
        FUZZ_ASSERT(m->indices[k] < m->num_vertices, "index %u of %u", m->indices[k], m->num_vertices);
    FUZZ_ASSERT(m->num_triangles_read == m->num_triangles + m->num_dropped_nonfinite + m->num_dropped_zero_area,
                "counts do not add up");
    FUZZ_ASSERT(m->num_faces_read > 0 && m->num_faces_read <= m->num_triangles_read, "faces %llu",
                (unsigned long long)m->num_faces_read);
}

/* Two loads of the same input agree. */
static inline void fuzz_check_same(kd_status sa, const kd_mesh *a, const kd_error *ea, const char *wa,
                                   kd_status sb, const kd_mesh *b, const kd_error *eb, const char *wb)
{
    FUZZ_ASSERT(sa == sb, "status %d '%s' vs %d '%s'", (int)sa, sa ? ea->message : "", (int)sb,
                sb ? eb->message : "");
    FUZZ_ASSERT(strcmp(wa, wb) == 0, "warning '%s' vs '%s'", wa, wb);
    if (sa != KD_OK) {
        FUZZ_ASSERT(strcmp(ea->message, eb->message) == 0, "'%s' vs '%s'", ea->message, eb->message);
        FUZZ_ASSERT(ea->message[0] != '\0', "an error without a message");
        return;
    }
    fuzz_check_mesh(a);
    FUZZ_ASSERT(a->num_vertices == b->num_vertices && a->num_triangles == b->num_triangles &&
                    a->num_faces_read == b->num_faces_read && a->num_triangles_read == b->num_triangles_read &&
                    a->num_dropped_nonfinite == b->num_dropped_nonfinite &&
                    a->num_dropped_zero_area == b->num_dropped_zero_area,
                "counts differ");
    FUZZ_ASSERT(memcmp(a->positions, b->positions, 12 * (size_t)a->num_vertices) == 0, "positions differ");
    FUZZ_ASSERT(memcmp(a->indices, b->indices, 12 * (size_t)a->num_triangles) == 0, "triangles differ");
}

/* The small window for an input: anything from 1 byte to 61, varying with it. */
static inline size_t fuzz_small_window(const uint8_t *data, size_t size)
{
    return 1 + (size + (size ? data[size / 2] : 0u)) % 61;
}

#endif
