/* The loader's progress (kd_mesh_load_file_progress): a file of some 40 MB,
 * parsed a block of lines at a time so that its progress can be told, gives
 * the mesh that one pass over the whole text gives, whatever falls on a
 * block's edge (continued statements, comments ending in a backslash, CRLF
 * line ends), and the same line in an error near its end; the calls rise to
 * the text's size. */
#include <stdlib.h>
#include <string.h>

#include "mesh_load.h"
#include "obj_loader.h"
#include "test_support.h"

typedef struct calls {
    int n;
    size_t last_done, total;
    bool ordered;
} calls;

static void record(void *ctx, size_t done, size_t total)
{
    calls *c = ctx;
    c->ordered = c->ordered && done > c->last_done && done <= total && (c->n == 0 || total == c->total);
    c->total = total;
    c->last_done = done;
    c->n++;
}

/* Some 40 MB of OBJ text whose statements come in many shapes; with a bad
 * face line near its end when bad. */
static char *make_text(bool bad, size_t *size)
{
    const size_t cap = 48u << 20;
    char *text = malloc(cap);
    size_t n = 0;
    for (unsigned i = 0; n < cap - (1u << 20); i++) {
        const unsigned v = 4 * i;
        n += (size_t)snprintf(text + n, cap - n, "v %u.5 %u 0\nv %u \\\n 1 0\r\n", i, i % 7, i);
        n += (size_t)snprintf(text + n, cap - n, "# a comment ending in a backslash \\\nv 0 %u.25 1\n", i);
        n += (size_t)snprintf(text + n, cap - n, "v 1 1 %u\nf %u %u \\\n  %u %u\n", i, v + 1, v + 2, v + 3,
                              v + 4);
    }
    if (bad)
        n += (size_t)snprintf(text + n, cap - n, "f 1 2 x\nv 0 0 0\n");
    *size = n;
    return text;
}

static void write_file(const char *path, const char *text, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(text, 1, size, f) == size);
        fclose(f);
    }
}

static void test_same_mesh(const char *path)
{
    size_t size;
    char *text = make_text(false, &size);
    write_file(path, text, size);
    kd_mesh whole, told;
    kd_error err;
    CHECK(kd_obj_load_memory(text, size, path, &whole, &err) == KD_OK);
    calls c = {0, 0, 0, true};
    kd_mesh_load_info info;
    CHECK_MSG(kd_mesh_load_file_progress(path, &told, &info, record, &c, &err) == KD_OK, "%s", err.message);
    CHECK_MSG(c.n >= 2 && c.ordered && c.total >= size && c.last_done + 2 >= c.total,
              "%d calls, ordered %d, ended at %zu of %zu (%zu bytes)", c.n, c.ordered, c.last_done, c.total, size);
    CHECK(told.num_vertices == whole.num_vertices && told.num_triangles == whole.num_triangles);
    CHECK(told.num_vertices > 0 &&
          memcmp(told.positions, whole.positions, 3 * sizeof(float) * whole.num_vertices) == 0 &&
          memcmp(told.indices, whole.indices, 3 * sizeof(uint32_t) * whole.num_triangles) == 0);
    kd_mesh_free(&whole);
    kd_mesh_free(&told);
    free(text);
}

static void test_same_error(const char *path)
{
    size_t size;
    char *text = make_text(true, &size);
    write_file(path, text, size);
    kd_mesh mesh;
    kd_error whole, told;
    CHECK(kd_obj_load_memory(text, size, path, &mesh, &whole) == KD_ERR_PARSE);
    calls c = {0, 0, 0, true};
    CHECK(kd_mesh_load_file_progress(path, &mesh, NULL, record, &c, &told) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(whole.message, told.message) == 0, "'%s' against '%s'", told.message, whole.message);
    CHECK(c.n >= 2);
    free(text);
}

int main(void)
{
    char path[512];
    kd_test_tmp_path("obj_progress.obj", path, sizeof path);
    test_same_mesh(path);
    test_same_error(path);
    remove(path);
    return kd_test_finish("obj_progress");
}
