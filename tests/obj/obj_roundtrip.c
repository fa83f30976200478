/* Randomized round trip: generate a random mesh, write it as OBJ text with random
 * index forms (v, v/vt, v//vn, v/vt/vn; positive, negative, forward), random blanks,
 * line ends, comments, continuations and skipped statements, plus deliberately
 * degenerate triangles; parse it and compare positions and triangles exactly. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_test_util.h"

static uint64_t g_rng = 0x243f6a8885a308d3ull;
static uint64_t rng_next(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}
static int rng_int(int lo, int hi) { return lo + (int)(rng_next() % (uint64_t)(hi - lo + 1)); }
static bool rng_chance(int percent) { return rng_int(1, 100) <= percent; }

/* ---- A growable text ----------------------------------------------------------- */
typedef struct text {
    char *data;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list args;
    for (;;) {
        va_start(args, fmt);
        int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, args);
        va_end(args);
        if (n >= 0 && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap * 2 + (size_t)n + 64;
        t->data = realloc(t->data, t->cap);
    }
}

static int g_line_breaks; /* continuations written, to vary them */

/* Blanks between tokens, sometimes with a line continuation. */
static void put_gap(text *t)
{
    static const char *const gaps[] = {" ", " ", " ", "  ", "\t", " \t "};
    put(t, "%s", gaps[rng_int(0, 5)]);
    if (rng_chance(3)) {
        put(t, rng_chance(50) ? "\\\n" : "\\ \r\n");
        g_line_breaks++;
        if (rng_chance(50))
            put(t, " ");
    }
}

static void put_line_end(text *t)
{
    if (rng_chance(10))
        put(t, rng_chance(50) ? " # trailing comment" : "#x");
    put(t, rng_chance(30) ? "\r\n" : "\n");
    if (rng_chance(5))
        put(t, rng_chance(50) ? "\n" : "# a comment line \\\n");
    if (rng_chance(4)) {
        static const char *const skipped[] = {"g group", "o object", "usemtl mat", "s 1", "s off",
                                              "mtllib a.mtl", "l 1 2", "p 1", "vp 0.5", "unknown 1 2 3"};
        put(t, "%s\n", skipped[rng_int(0, 9)]);
    }
}

static float random_coordinate(void)
{
    switch (rng_int(0, 3)) {
    case 0: return ldexpf((float)(rng_next() >> 40) / (float)(1 << 24) - 0.5f, rng_int(-12, 12));
    case 1: return (float)rng_int(-100000, 100000) / 1000.0f + ldexpf((float)(rng_next() >> 41), -40);
    case 2: {
        uint32_t bits = ((uint32_t)rng_next() & 0x807fffffu) | ((uint32_t)rng_int(100, 150) << 23);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    default: return ldexpf((float)(int32_t)(rng_next() >> 40), rng_int(-30, -10));
    }
}

static void put_coordinate(text *t, float f)
{
    if (isnan(f)) {
        put(t, rng_chance(50) ? "nan" : "NaN");
        return;
    }
    switch (rng_int(0, 2)) {
    case 0: put(t, "%.9g", (double)f); break;
    case 1: put(t, "%.8e", (double)f); break;
    default: put(t, "%.17g", (double)f); break; /* exact decimal of the float */
    }
}

typedef struct mesh_model {
    float *positions;
    uint32_t num_vertices;
    int num_texcoords, num_normals; /* written so far */
    uint32_t *expected;             /* triangles that must survive */
    uint32_t num_expected;
    uint64_t faces, triangles_read, dropped_nonfinite, dropped_zero_area;
} mesh_model;

/* One face index in a random form; count_* are the elements defined so far. */
static void put_index(text *t, uint32_t vertex, uint32_t defined, const mesh_model *m)
{
    bool may_be_negative = vertex < defined;
    if (may_be_negative && rng_chance(40))
        put(t, "%lld", (long long)vertex - (long long)defined);
    else
        put(t, rng_chance(5) ? "+%u" : "%u", vertex + 1);
    int form = rng_int(0, 3);
    if ((form == 1 || form == 3) && m->num_texcoords == 0)
        form -= 1;
    if ((form == 2 || form == 3) && m->num_normals == 0)
        form = form == 3 ? 1 : 0;
    if (form == 1 || form == 3) {
        int vt = rng_int(1, m->num_texcoords);
        put(t, rng_chance(50) ? "/%d" : "/-%d", rng_chance(50) ? vt : m->num_texcoords - vt + 1);
    }
    if (form == 2)
        put(t, "//%d", rng_int(1, m->num_normals));
    if (form == 3)
        put(t, "/-%d", rng_int(1, m->num_normals));
}

static void add_expected(mesh_model *m, uint32_t a, uint32_t b, uint32_t c)
{
    m->expected[3 * m->num_expected] = a;
    m->expected[3 * m->num_expected + 1] = b;
    m->expected[3 * m->num_expected + 2] = c;
    m->num_expected++;
}

static void run_round(int round)
{
    mesh_model m = {0};
    text t = {0};
    uint32_t nv = (uint32_t)rng_int(8, 400);
    m.num_vertices = nv;
    m.positions = malloc(sizeof(float) * 3 * nv);
    m.expected = malloc(sizeof(uint32_t) * 3 * 40 * 40 * 4);
    uint32_t nan_vertex = rng_chance(50) ? (uint32_t)rng_int(0, (int)nv - 1) : UINT32_MAX;
    for (uint32_t i = 0; i < 3 * nv; i++)
        m.positions[i] = random_coordinate();
    if (nan_vertex != UINT32_MAX)
        m.positions[3 * nan_vertex + (uint32_t)rng_int(0, 2)] = NAN;

    uint32_t written = 0;
    int num_faces = rng_int(1, 40);
    for (int f = 0; f < num_faces || written < nv; f++) {
        /* Some vertices, texture coordinates and normals, then maybe a face. */
        for (int k = rng_int(0, 40); k > 0 && written < nv; k--, written++) {
            put(&t, "v");
            for (int a = 0; a < 3; a++) {
                put_gap(&t);
                put_coordinate(&t, m.positions[3 * written + (uint32_t)a]);
            }
            if (rng_chance(10))
                put(&t, rng_chance(50) ? " 1" : " 0.5 0.25 1");
            put_line_end(&t);
            if (rng_chance(30)) {
                put(&t, "vt 0.5 0.5");
                put_line_end(&t);
                m.num_texcoords++;
            }
            if (rng_chance(20)) {
                put(&t, "vn 0 0 1");
                put_line_end(&t);
                m.num_normals++;
            }
        }
        if (f >= num_faces)
            continue;
        /* Distinct vertices (random coordinates: no accidental zero area); indices may
         * point forward to vertices written later. */
        int n = rng_chance(5) ? rng_int(9, 40) : rng_int(3, 6);
        if ((uint32_t)n > nv)
            n = (int)nv;
        uint32_t v[40];
        for (int i = 0; i < n; i++) {
            bool fresh;
            do {
                v[i] = (uint32_t)rng_int(0, (int)nv - 1);
                fresh = true;
                for (int j = 0; j < i; j++)
                    fresh &= v[j] != v[i];
            } while (!fresh);
        }
        int kind = rng_int(0, 9); /* 0: repeat a vertex (zero area), else plain */
        if (kind == 0) {
            n = 3;
            v[1] = v[0];
        }
        put(&t, rng_chance(50) ? "f" : "f ");
        for (int i = 0; i < n; i++) {
            put_gap(&t);
            put_index(&t, v[i], written, &m);
        }
        put_line_end(&t);
        m.faces++;
        for (int i = 1; i + 1 < n; i++) {
            m.triangles_read++;
            bool nonfinite = v[0] == nan_vertex || v[i] == nan_vertex || v[i + 1] == nan_vertex;
            if (nonfinite)
                m.dropped_nonfinite++;
            else if (kind == 0)
                m.dropped_zero_area++;
            else
                add_expected(&m, v[0], v[i], v[i + 1]);
        }
    }
    if (m.num_expected == 0) { /* keep at least one usable triangle */
        put(&t, "f 1 2 3\n");
        m.faces++;
        m.triangles_read++;
        if (nan_vertex <= 2)
            m.dropped_nonfinite++;
        else
            add_expected(&m, 0, 1, 2);
    }
    if (m.num_expected == 0) {
        put(&t, "f 4 5 6\n");
        m.faces++;
        m.triangles_read++;
        add_expected(&m, 3, 4, 5);
    }
    if (rng_chance(30) && t.len > 0 && t.data[t.len - 1] == '\n')
        t.len--; /* no final newline */

    kd_mesh mesh;
    kd_error err;
    kd_status st = obj_load_sized(t.data, t.len, kd_obj_default_limits(), &mesh, &err);
    CHECK_MSG(st == KD_OK, "round %d: %s", round, err.message);
    if (st == KD_OK) {
        CHECK_MSG(mesh.num_vertices == nv, "round %d: %u vertices, want %u", round, mesh.num_vertices, nv);
        CHECK(mesh.num_faces_read == m.faces);
        CHECK(mesh.num_triangles_read == m.triangles_read);
        CHECK(mesh.num_dropped_nonfinite == m.dropped_nonfinite);
        CHECK(mesh.num_dropped_zero_area == m.dropped_zero_area);
        CHECK_MSG(mesh.num_triangles == m.num_expected, "round %d: %u triangles, want %u", round,
                  mesh.num_triangles, m.num_expected);
        bool same_positions = mesh.num_vertices == nv;
        for (uint32_t i = 0; same_positions && i < 3 * nv; i++)
            same_positions = isnan(m.positions[i]) ? isnan(mesh.positions[i])
                                                   : memcmp(&m.positions[i], &mesh.positions[i], 4) == 0;
        CHECK_MSG(same_positions, "round %d: positions differ", round);
        if (mesh.num_triangles == m.num_expected)
            CHECK_MSG(memcmp(mesh.indices, m.expected, 12 * (size_t)m.num_expected) == 0,
                      "round %d: triangles differ", round);
        kd_mesh_free(&mesh);
    }
    free(m.positions);
    free(m.expected);
    free(t.data);
}

int main(void)
{
    for (int round = 0; round < 400; round++)
        run_round(round);
    CHECK(g_line_breaks > 100); /* the generator did exercise continuations */
    return kd_test_finish("obj_roundtrip");
}
