/* OBJ loader on in-memory fixtures: every accepted form, with the exact positions
 * and triangle indices it must produce. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_test_util.h"

/* Loads text and checks vertex count and the exact triangle list (0-based). */
static void expect_triangles(const char *what, const char *text, uint32_t num_vertices,
                             const uint32_t *tris, uint32_t num_tris)
{
    kd_mesh m;
    kd_error e;
    kd_status st = obj_load_text(text, &m, &e);
    CHECK_MSG(st == KD_OK, "%s: %s", what, e.message);
    if (st != KD_OK)
        return;
    CHECK_MSG(m.num_vertices == num_vertices, "%s: %u vertices, want %u", what, m.num_vertices, num_vertices);
    CHECK_MSG(m.num_triangles == num_tris, "%s: %u triangles, want %u", what, m.num_triangles, num_tris);
    if (m.num_triangles == num_tris)
        for (uint32_t i = 0; i < 3 * num_tris; i++)
            CHECK_MSG(m.indices[i] == tris[i], "%s: index %u is %u, want %u", what, i, m.indices[i], tris[i]);
    kd_mesh_free(&m);
}

static const char k_square[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

static void test_basic_triangle(void)
{
    kd_mesh m;
    kd_error e;
    CHECK(obj_load_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", &m, &e) == KD_OK);
    CHECK(m.num_vertices == 3 && m.num_triangles == 1);
    CHECK(m.num_faces_read == 1 && m.num_triangles_read == 1);
    CHECK(m.num_dropped_nonfinite == 0 && m.num_dropped_zero_area == 0);
    const float want[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    CHECK(memcmp(m.positions, want, sizeof want) == 0);
    CHECK(m.indices[0] == 0 && m.indices[1] == 1 && m.indices[2] == 2);
    kd_mesh_free(&m);
}

static void test_index_forms(void)
{
    static const uint32_t quad[] = {0, 1, 2, 0, 2, 3};
    char text[512];
    const char *faces[] = {
        "f 1 2 3 4\n",
        "f 1/1 2/2 3/3 4/4\n",
        "f 1//1 2//1 3//1 4//1\n",
        "f 1/1/1 2/2/1 3/3/1 4/4/1\n",
        "f 1/1 2//1 3/3/1 4\n",     /* forms mixed in one face */
        "f -4/-4/-1 -3/-3/-1 -2/-2/-1 -1/-1/-1\n",
        "f +1 +2 +3 +4\n",
    };
    for (size_t i = 0; i < sizeof faces / sizeof faces[0]; i++) {
        snprintf(text, sizeof text, "%svt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n%s", k_square, faces[i]);
        expect_triangles(faces[i], text, 4, quad, 2);
    }
}

static void test_negative_indices(void)
{
    /* Relative to the vertices defined so far, not to the whole file. */
    static const uint32_t tris[] = {0, 1, 2, 3, 4, 5, 1, 3, 5};
    expect_triangles("negative",
                     "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"
                     "v 0 0 1\nv 1 0 1\nv 0 1 1\nf -3 -2 -1\nf -5 -3 -1\n",
                     6, tris, 3);
    static const uint32_t cornell[] = {0, 1, 2, 0, 2, 3};
    expect_triangles("cornell-style quad", "v -1 0 1\nv 1 0 1\nv 1 0 -1\nv -1 0 -1\nf -4 -3 -2 -1\n", 4,
                     cornell, 2);
}

static void test_big_faces(void)
{
    /* A 20-gon and a 5000-gon (no fixed limit on face size): fan triangulation. */
    const int sizes[] = {20, 5000};
    for (int s = 0; s < 2; s++) {
        int n = sizes[s];
        size_t cap = (size_t)n * 64 + 64;
        char *text = malloc(cap);
        size_t len = 0;
        for (int i = 0; i < n; i++) {
            double a = 2 * M_PI * i / n;
            len += (size_t)snprintf(text + len, cap - len, "v %.6f %.6f 0\n", cos(a), sin(a));
        }
        len += (size_t)snprintf(text + len, cap - len, "f");
        for (int i = 0; i < n; i++)
            len += (size_t)snprintf(text + len, cap - len, " %d", i % 2 ? i + 1 : i - n); /* +, - alternate */
        snprintf(text + len, cap - len, "\n");
        uint32_t *tris = malloc(sizeof(uint32_t) * 3 * (size_t)n);
        for (int t = 0; t < n - 2; t++) {
            tris[3 * t] = 0;
            tris[3 * t + 1] = (uint32_t)t + 1;
            tris[3 * t + 2] = (uint32_t)t + 2;
        }
        expect_triangles(s ? "5000-gon" : "20-gon", text, (uint32_t)n, tris, (uint32_t)n - 2);
        kd_mesh m;
        kd_error e;
        if (obj_load_text(text, &m, &e) == KD_OK) {
            CHECK(m.num_faces_read == 1 && m.num_triangles_read == (uint64_t)n - 2);
            kd_mesh_free(&m);
        }
        free(tris);
        free(text);
    }
}

static void test_text_rules(void)
{
    static const uint32_t one[] = {0, 1, 2};
    static const uint32_t quad[] = {0, 1, 2, 0, 2, 3};
    expect_triangles("CRLF", "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 2 3\r\n", 3, one, 1);
    expect_triangles("mixed line ends", "v 0 0 0\r\nv 1 0 0\nv 0 1 0\r\n\r\nf 1 2 3", 3, one, 1);
    expect_triangles("no final newline", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3", 3, one, 1);
    expect_triangles("tabs and blanks", "\tv\t0  0\t 0 \nv 1 0 0\n   \n\t\nv 0 1 0\n  f\t1\t2 \t3\t\n", 3,
                     one, 1);
    expect_triangles("comments",
                     "# header\n#\nv 0 0 0 # trailing\nv 1 0 0#tight\n   # indented\nv 0 1 0\n"
                     "f 1 2 3 # a face\n# end",
                     3, one, 1);
    expect_triangles("continuation in a face", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 \\\n 3\n", 3, one, 1);
    expect_triangles("continuation with CRLF and blanks", "v 0 \\ \t\r\n0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf 1 \\\r\n2 \\\r\n3\r\n", 3,
                     one, 1);
    expect_triangles("continuation right after the keyword", "v\\\n 0 0 0\nv 1 0 0\nv 0 1 0\nf\\\n1 2 3\n", 3, one, 1);
    expect_triangles("continuation between tokens without blanks", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\\\n3\n", 3, one, 1);
    /* The continued line belongs to the skipped statement: "f 9 9 9" is not a face. */
    expect_triangles("continued skipped statement", "g walls \\\nf 9 9 9\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 3,
                     one, 1);
    /* A backslash ending a comment does not continue it. */
    expect_triangles("backslash in a comment", "# C:\\scenes\\\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 # x \\\n", 3,
                     one, 1);
    expect_triangles("continuation at the very end", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 \\", 3, one, 1);
    expect_triangles("continuation line alone", "\\\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 3, one, 1);
    expect_triangles("keyword case and lookalikes are skipped",
                     "V 5 5 5\nF 1 2 3\nvx 1\nfo 1 2 3\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n", 4,
                     quad, 2);
}

static void test_skipped_statements(void)
{
    static const uint32_t one[] = {0, 1, 2};
    expect_triangles("skipped statements",
                     "mtllib scene.mtl missing.mtl\no object\ng group other\ns 1\ns off\nusemtl red\n"
                     "vt 0.5 0.5\nvn 0 0 1\nvp 0.1 0.2\nl 1 2 999\np 0 -7\ncurv 0 1 2\nfoo bar baz\n"
                     "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1 2/1/1 3/1/1\n",
                     3, one, 1);
}

static void test_vertex_extras(void)
{
    static const uint32_t one[] = {0, 1, 2};
    kd_mesh m;
    kd_error e;
    /* w, colours, colours with alpha; only x y z are kept. */
    const char *text = "v 0 0 0 1\nv 1 0 0 0.5 0.25 0.125\nv 0 1 0 1 1 1 1\nf 1 2 3\n";
    expect_triangles("w and colours", text, 3, one, 1);
    if (obj_load_text(text, &m, &e) == KD_OK) {
        const float want[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        CHECK(memcmp(m.positions, want, sizeof want) == 0);
        kd_mesh_free(&m);
    }
}

static void test_numbers(void)
{
    const char *text = "v 1e2 -1.5E-3 +2\nv .5 5. -0\nv 0.1 1e-40 3.4028235e38\nf 1 2 3\n";
    kd_mesh m;
    kd_error e;
    CHECK_MSG(obj_load_text(text, &m, &e) == KD_OK, "%s", e.message);
    if (m.num_vertices == 3) {
        const char *tokens[9] = {"1e2", "-1.5E-3", "+2", ".5", "5.", "-0", "0.1", "1e-40", "3.4028235e38"};
        for (int i = 0; i < 9; i++) {
            float want = strtof(tokens[i], NULL);
            CHECK_MSG(memcmp(&m.positions[i], &want, sizeof want) == 0, "%s gave %.9g", tokens[i],
                      (double)m.positions[i]);
        }
        CHECK(signbit(m.positions[5]));
    }
    kd_mesh_free(&m);
}

static void test_dropping(void)
{
    /* v1..v3 a good triangle; v4 NaN, v5 infinite (overflow), v6 -inf; v7..v9 collinear
     * and exactly representable. */
    const char *text = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                       "v nan 0 0\nv 1e39 0 0\nv 0 -Infinity 0\n"
                       "v 0 0 0\nv 0.5 0.5 0.5\nv 2 2 2\n"
                       "f 1 2 3\nf 1 2 4\nf 5 2 3\nf 1 6 3\n" /* kept, nan, inf, -inf */
                       "f 7 8 9\nf 1 1 2\nf 2 3 2\n"         /* collinear, repeated vertices */
                       "f 3 2 1\n"                          /* kept (reversed) */
                       "f 1 2 3 4\n";                       /* (1,2,3) kept, (1,3,4) NaN */
    kd_mesh m;
    kd_error e;
    CHECK_MSG(obj_load_text(text, &m, &e) == KD_OK, "%s", e.message);
    CHECK(m.num_faces_read == 9);
    CHECK(m.num_triangles_read == 10);
    CHECK(m.num_dropped_nonfinite == 4);
    CHECK(m.num_dropped_zero_area == 3);
    CHECK(m.num_triangles == 3);
    CHECK(m.num_vertices == 9);
    static const uint32_t kept[] = {0, 1, 2, 2, 1, 0, 0, 1, 2};
    if (m.num_triangles == 3)
        CHECK(memcmp(m.indices, kept, sizeof kept) == 0);
    CHECK(isnan(m.positions[9]) && isinf(m.positions[12]) && m.positions[16] < 0 && isinf(m.positions[16]));
    kd_mesh_free(&m);

    /* Tiny but nonzero areas are kept: the test is exact, with no epsilon. */
    CHECK(!kd_obj_triangle_zero_area((float[]){0, 0, 0}, (float[]){1, 0, 0}, (float[]){0.5f, 1e-30f, 0}));
    CHECK(!kd_obj_triangle_zero_area((float[]){1e30f, 1e30f, 0}, (float[]){-1e30f, -1e30f, 0},
                                     (float[]){1e30f, 1e30f, 1e-30f}));
    /* Nearly collinear in float, not exactly: (0,0,0), (1,1,0), (3, 3 + 2^-22, 0). */
    CHECK(!kd_obj_triangle_zero_area((float[]){0, 0, 0}, (float[]){1, 1, 0},
                                     (float[]){3, 3 + 0x1p-22f, 0}));
    /* Nonzero although double arithmetic on the edges gives exactly zero (cross z = 16). */
    CHECK(!kd_obj_triangle_zero_area((float[]){0.25f, 0.25f, 0}, (float[]){268435616.0f, 268435552.0f, 0},
                                     (float[]){536871232.0f, 536871104.0f, 0}));
    /* Exactly collinear across a huge dynamic range. */
    CHECK(kd_obj_triangle_zero_area((float[]){0x1p-20f, 0x1p-20f, 0x1p-20f}, (float[]){0x1p20f, 0x1p20f, 0x1p20f},
                                    (float[]){3, 3, 3}));
    CHECK(kd_obj_triangle_zero_area((float[]){1, 2, 3}, (float[]){1, 2, 3}, (float[]){4, 5, 6}));
}

static void test_forward_and_unreferenced(void)
{
    /* Positive indices may point forward (checked once the file is read); unreferenced
     * vertices are kept. */
    static const uint32_t tris[] = {0, 1, 2, 3, 1, 0};
    expect_triangles("forward refs", "f 1 2 3\nf 4/2 2/1 1/1\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 5 5 5\nvt 0 0\nvt 1 1\nv 9 9 9\n", 5,
                     tris, 2);
}

int main(void)
{
    test_basic_triangle();
    test_index_forms();
    test_negative_indices();
    test_big_faces();
    test_text_rules();
    test_skipped_statements();
    test_vertex_extras();
    test_numbers();
    test_dropping();
    test_forward_and_unreferenced();
    return kd_test_finish("obj_forms");
}
