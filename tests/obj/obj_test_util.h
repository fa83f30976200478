/* Helpers for the OBJ loader tests: loading fixtures from memory placed against
 * inaccessible guard pages (so any read past either end of the text crashes the
 * test), and checking error messages. Include after defining _DEFAULT_SOURCE. */
#ifndef KD_OBJ_TEST_UTIL_H
#define KD_OBJ_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "obj_internal.h"
#include "obj_loader.h"
#include "test_support.h"

/* Places size bytes of text right after (at_start) or right before an inaccessible
 * page and loads it with kd_obj_load_memory_limited. */
static inline kd_status obj_load_guarded_at(const char *text, size_t size, const char *name,
                                            kd_obj_limits limits, bool at_start, kd_mesh *mesh,
                                            kd_error *err)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t data_pages = (size + page - 1) / page + 1;
    size_t total = (data_pages + 2) * page;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "mmap failed\n");
        exit(1);
    }
    mprotect(base, page, PROT_NONE);                    /* guard before */
    mprotect(base + total - page, page, PROT_NONE);     /* guard after */
    char *data = at_start ? base + page : base + total - page - size;
    memcpy(data, text, size);
    mprotect(base + page, total - 2 * page, PROT_READ); /* the loader must not write either */
    kd_status st = kd_obj_load_memory_limited(data, size, name, limits, mesh, err);
    munmap(base, total);
    return st;
}

static inline bool obj_mesh_is_zeroed(const kd_mesh *mesh)
{
    kd_mesh zero;
    memset(&zero, 0, sizeof zero);
    return memcmp(mesh, &zero, sizeof zero) == 0;
}

/* Whether two loads came out the same: status, message, and every field of the mesh. */
static inline bool obj_same_result(kd_status st, const kd_mesh *a, const kd_error *ea, kd_status st2,
                                   const kd_mesh *b, const kd_error *eb)
{
    if (st != st2)
        return false;
    if (st != KD_OK)
        return strcmp(ea->message, eb->message) == 0;
    return a->num_vertices == b->num_vertices && a->num_triangles == b->num_triangles &&
           a->num_faces_read == b->num_faces_read && a->num_triangles_read == b->num_triangles_read &&
           a->num_dropped_nonfinite == b->num_dropped_nonfinite &&
           a->num_dropped_zero_area == b->num_dropped_zero_area &&
           memcmp(a->positions, b->positions, 12 * (size_t)a->num_vertices) == 0 &&
           memcmp(a->indices, b->indices, 12 * (size_t)a->num_triangles) == 0;
}

/* The text read through small windows, so that window ends fall inside every
 * statement, number and line end: the result must not change. */
static inline void obj_check_windows(const char *text, size_t size, kd_obj_limits limits, kd_status st,
                                     const kd_mesh *mesh, const kd_error *err)
{
    static const size_t blocks[] = {1, 3, 16, 61};
    char warning[256], first_warning[256];
    kd_mesh ref;
    kd_error ref_err;
    kd_obj_load_memory_blocks(text, size, "t.obj", limits, 0, &ref, &ref_err, first_warning,
                              sizeof first_warning);
    kd_mesh_free(&ref);
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        kd_mesh small;
        kd_error small_err;
        kd_status st2 = kd_obj_load_memory_blocks(text, size, "t.obj", limits, blocks[b], &small,
                                                  &small_err, warning, sizeof warning);
        CHECK_MSG(obj_same_result(st, mesh, err, st2, &small, &small_err),
                  "window of %zu bytes: status %d '%s' vs %d '%s'", blocks[b], (int)st,
                  st ? err->message : "", (int)st2, st2 ? small_err.message : "");
        CHECK_MSG(strcmp(warning, first_warning) == 0, "window of %zu bytes: warning '%s' vs '%s'",
                  blocks[b], warning, first_warning);
        kd_mesh_free(&small);
    }
}

/* Loads text of given size both ways (against the guard page after and before it),
 * checks both give the same result, and the same through small windows; returns
 * the first. */
static inline kd_status obj_load_sized(const char *text, size_t size, kd_obj_limits limits,
                                       kd_mesh *mesh, kd_error *err)
{
    kd_mesh other;
    kd_error other_err;
    kd_status st = obj_load_guarded_at(text, size, "t.obj", limits, false, mesh, err);
    kd_status st2 = obj_load_guarded_at(text, size, "t.obj", limits, true, &other, &other_err);
    CHECK_MSG(st == st2, "status %d vs %d", (int)st, (int)st2);
    if (st == KD_OK && st2 == KD_OK) {
        CHECK(other.num_vertices == mesh->num_vertices && other.num_triangles == mesh->num_triangles);
        if (other.num_vertices == mesh->num_vertices && other.num_triangles == mesh->num_triangles) {
            CHECK(memcmp(other.positions, mesh->positions, 3 * sizeof(float) * mesh->num_vertices) == 0);
            CHECK(memcmp(other.indices, mesh->indices, 3 * sizeof(uint32_t) * mesh->num_triangles) == 0);
        }
    } else if (st != KD_OK && st2 != KD_OK) {
        CHECK_MSG(strcmp(err->message, other_err.message) == 0, "'%s' vs '%s'", err->message,
                  other_err.message);
    }
    kd_mesh_free(&other);
    obj_check_windows(text, size, limits, st, mesh, err);
    if (st != KD_OK)
        CHECK_MSG(obj_mesh_is_zeroed(mesh), "mesh not zeroed after error '%s'", err->message);
    return st;
}

static inline kd_status obj_load_text(const char *text, kd_mesh *mesh, kd_error *err)
{
    return obj_load_sized(text, strlen(text), kd_obj_default_limits(), mesh, err);
}

/* Expects text to fail with status and a message containing want; returns true if so. */
#define OBJ_EXPECT_ERROR(text, want_status, want)                                               \
    do {                                                                                        \
        kd_mesh m_;                                                                             \
        kd_error e_;                                                                            \
        kd_status s_ = obj_load_text((text), &m_, &e_);                                         \
        CHECK_MSG(s_ == (want_status), "status %d (%s), want %d for text \"%s\"", (int)s_,      \
                  s_ ? e_.message : "ok", (int)(want_status), (text));                          \
        if (s_ != KD_OK)                                                                        \
            CHECK_MSG(strstr(e_.message, (want)) != NULL, "message '%s' lacks '%s'",            \
                      e_.message, (want));                                                      \
        kd_mesh_free(&m_);                                                                      \
    } while (0)

#endif
