/* The same polygons as OBJ and as PLY (ASCII, binary both byte orders) load to the
 * same kd_mesh, field for field: random polygon soups with repeated and collinear
 * vertices, NaN and infinite coordinates. And a loaded mesh written back (PLY in
 * each format, OBJ) loads to the same vertices and triangles. */
#define _DEFAULT_SOURCE
#include <math.h>

#include "mesh_load.h"
#include "mesh_write.h"
#include "ply_test_util.h"

static uint64_t g_rng = 0x853c49e6748fea9bull;

static uint32_t rng_next(void)
{
    g_rng = g_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(g_rng >> 33);
}

typedef struct soup {
    float *xyz;
    uint32_t nv;
    uint32_t *faces; /* count, then its indices, for each face */
    size_t faces_len;
    uint32_t nf;
} soup;

/* Coordinates on a small grid (so that triangles are often collinear or repeat a
 * vertex), now and then NaN or infinite. */
static void make_soup(soup *s)
{
    s->nv = 3 + rng_next() % 40;
    s->xyz = malloc(12 * (size_t)s->nv);
    for (uint32_t i = 0; i < 3 * s->nv; i++) {
        uint32_t r = rng_next() % 100;
        s->xyz[i] = r == 0 ? NAN : r == 1 ? -INFINITY : (float)((int)(rng_next() % 5) - 2) * 0.5f;
    }
    s->nf = 1 + rng_next() % 30;
    s->faces = malloc(sizeof(uint32_t) * 7 * s->nf);
    s->faces_len = 0;
    for (uint32_t f = 0; f < s->nf; f++) {
        uint32_t n = 3 + (rng_next() % 8 == 0 ? rng_next() % 4 : 0);
        s->faces[s->faces_len++] = n;
        for (uint32_t k = 0; k < n; k++)
            s->faces[s->faces_len++] = rng_next() % s->nv;
    }
}

static void write_obj(const soup *s, ply_buf *b)
{
    for (uint32_t v = 0; v < s->nv; v++)
        ply_printf(b, "v %.9g %.9g %.9g\n", s->xyz[3 * v], s->xyz[3 * v + 1], s->xyz[3 * v + 2]);
    for (size_t i = 0; i < s->faces_len;) {
        uint32_t n = s->faces[i++];
        ply_printf(b, "f");
        for (uint32_t k = 0; k < n; k++)
            ply_printf(b, " %u", s->faces[i++] + 1);
        ply_printf(b, "\n");
    }
}

static void write_ply(const soup *s, int format, ply_buf *b)
{
    char rest[300];
    snprintf(rest, sizeof rest, "element vertex %u\nproperty float x\nproperty float y\nproperty float z\n"
                                "element face %u\nproperty list uchar uint vertex_indices\nend_header\n",
             s->nv, s->nf);
    ply_begin(b, format, rest);
    for (uint32_t i = 0; i < 3 * s->nv; i++)
        ply_put(b, format, "float", s->xyz[i], i % 3 == 2);
    for (size_t i = 0; i < s->faces_len;) {
        uint32_t n = s->faces[i++];
        ply_put(b, format, "uchar", n, false);
        for (uint32_t k = 0; k < n; k++)
            ply_put(b, format, "uint", s->faces[i++], k + 1 == n);
    }
}

/* The next random soup, and its OBJ text. */
static void next_soup(soup *s, ply_buf *obj)
{
    make_soup(s);
    memset(obj, 0, sizeof *obj);
    write_obj(s, obj);
}

static void free_soup(soup *s, ply_buf *obj)
{
    free(obj->data);
    free(s->xyz);
    free(s->faces);
}

static void test_soups(void)
{
    int compared = 0, refused = 0;
    for (int round = 0; round < 300; round++) {
        soup s;
        ply_buf obj;
        next_soup(&s, &obj);
        kd_mesh ref;
        kd_error ref_err;
        kd_status ref_st = kd_obj_load_memory(obj.data, obj.len, "t.ply", &ref, &ref_err);
        for (int format = 0; format < 3; format++) {
            ply_buf ply = {0};
            write_ply(&s, format, &ply);
            kd_mesh mesh;
            kd_error err;
            kd_status st = ply_load(&ply, &mesh, &err);
            /* All dropped is the one error both can give, in the same words. */
            CHECK_MSG(obj_same_result(ref_st, &ref, &ref_err, st, &mesh, &err), "round %d format %d: '%s' vs '%s'",
                      round, format, ref_st ? ref_err.message : "ok", st ? err.message : "ok");
            kd_mesh_free(&mesh);
            free(ply.data);
        }
        compared += ref_st == KD_OK;
        refused += ref_st != KD_OK;
        kd_mesh_free(&ref);
        free_soup(&s, &obj);
    }
    CHECK(compared > 100 && refused > 0);
}

/* A loaded mesh, written in each format with kd_mesh_write, loads back the same. */
static void test_writer(void)
{
    for (int round = 0; round < 100; round++) {
        soup s;
        ply_buf obj;
        next_soup(&s, &obj);
        kd_mesh mesh;
        kd_error err;
        if (kd_obj_load_memory(obj.data, obj.len, "t.obj", &mesh, &err) == KD_OK) {
            for (int format = KD_MESH_OUT_PLY; format <= KD_MESH_OUT_OBJ; format++) {
                char *text = NULL;
                size_t size = 0;
                FILE *f = open_memstream(&text, &size);
                CHECK(kd_mesh_write(f, "mem", &mesh, (kd_mesh_out_format)format, &err) == KD_OK);
                fclose(f);
                kd_mesh back;
                kd_mesh_load_info info;
                CHECK_MSG(kd_mesh_load_memory(text, size, "mem", &back, &info, &err) == KD_OK, "%s", err.message);
                CHECK(info.format == (format == KD_MESH_OUT_OBJ ? KD_MESH_FORMAT_OBJ : KD_MESH_FORMAT_PLY));
                bool same = back.num_vertices == mesh.num_vertices && back.num_triangles == mesh.num_triangles &&
                            memcmp(back.positions, mesh.positions, 12 * (size_t)mesh.num_vertices) == 0 &&
                            memcmp(back.indices, mesh.indices, 12 * (size_t)mesh.num_triangles) == 0;
                CHECK_MSG(same, "round %d format %d: not the same mesh", round, format);
                CHECK(back.num_dropped_nonfinite + back.num_dropped_zero_area == 0);
                kd_mesh_free(&back);
                free(text);
            }
            kd_mesh_free(&mesh);
        }
        free_soup(&s, &obj);
    }
}

int main(void)
{
    test_soups();
    test_writer();
    return kd_test_finish("ply_roundtrip");
}
