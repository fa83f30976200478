/* PLY files the loader reads: ASCII and binary in both byte orders, properties in
 * any order and of every type, lists on other elements, double coordinates,
 * polygons, comments and CRLF, and the same mesh as the OBJ file of the same
 * polygons (degenerate and non-finite triangles included). */
#define _DEFAULT_SOURCE
#include <math.h>

#include "mesh_load.h"
#include "ply_test_util.h"

/* The OBJ text and the PLY header the cases below share: four vertices, a triangle
 * and a quad. */
static const char k_obj_square[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 2 3 4\n";

static bool equals_obj(const kd_mesh *mesh, const char *obj)
{
    kd_mesh ref;
    kd_error err;
    kd_status st = kd_obj_load_memory(obj, strlen(obj), "t.obj", &ref, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    bool same = obj_same_result(KD_OK, mesh, NULL, st, &ref, NULL);
    kd_mesh_free(&ref);
    return same;
}

static void expect_square(const ply_buf *b, const char *what)
{
    kd_mesh mesh;
    kd_error err;
    kd_status st = ply_load(b, &mesh, &err);
    CHECK_MSG(st == KD_OK, "%s: %s", what, err.message);
    if (st == KD_OK) {
        CHECK_MSG(mesh.num_vertices == 4 && mesh.num_triangles == 3 && mesh.num_faces_read == 2, "%s", what);
        CHECK_MSG(equals_obj(&mesh, k_obj_square), "%s: not the OBJ mesh", what);
    }
    kd_mesh_free(&mesh);
}

static void test_ascii(void)
{
    ply_buf b = {0};
    ply_printf(&b, "ply\nformat ascii 1.0\ncomment made by hand\nobj_info nothing\nelement vertex 4\n"
                   "property float x\nproperty float y\nproperty float z\nelement face 2\n"
                   "property list uchar int vertex_indices\nend_header\n"
                   "0 0 0\n1 0 0\n1 1 0\n0 1 0\n3 0 1 2\n4 0 1 2 3\n");
    expect_square(&b, "plain ascii");
    /* CRLF, tabs, blank lines, extra blanks, no final line end, other spellings. */
    b.len = 0;
    ply_printf(&b, "ply\r\nformat ascii 1.0\r\nelement vertex 4\r\nproperty float32 x\r\n"
                   "property float32 y\r\nproperty float32  z\r\nelement face 2\r\n"
                   "property list uint8 int32 vertex_index\r\nend_header\r\n"
                   "0 0 0\r\n\r\n 1\t0 0 \r\n1 1 0\r\n0 1 0\r\n3 0 1 2\r\n4 0 1 2 3");
    expect_square(&b, "crlf ascii");
    free(b.data);
}

/* Vertex and face elements with other properties around theirs, lists on every
 * element, and elements the loader does not read before, between and after. */
static void write_odd(ply_buf *b, const char *format)
{
    bool ascii = strcmp(format, "ascii") == 0;
    ply_printf(b, "ply\nformat %s 1.0\n"
                  "element edge 2\nproperty list ushort short ends\nproperty uchar red\n"
                  "element vertex 4\nproperty uchar red\nproperty double z\nproperty list uchar float extra\n"
                  "property int16 y\nproperty float nx\nproperty double x\n"
                  "element material 3\nproperty float shine\n"
                  "element face 2\nproperty int flags\nproperty list ushort uint vertex_index\n"
                  "property list char int16 more\n"
                  "element nothing 1000000000000\nend_header\n",
                  format);
    static const double xyz[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    if (ascii) {
        ply_printf(b, "2 0 1 9\n3 1 2 3 255\n");
        for (int v = 0; v < 4; v++)
            ply_printf(b, "%d %.17g 2 0.5 -7 %d 0.25 %.17g\n", v, xyz[v][2], (int)xyz[v][1], xyz[v][0]);
        ply_printf(b, "1\n2\n3\n-5 3 0 1 2 0\n7 4 0 1 2 3 2 -1 1\n");
        return;
    }
    for (int e = 0; e < 2; e++) { /* edges */
        ply_put_value(b, "ushort", 2 + e);
        for (int k = 0; k < 2 + e; k++)
            ply_put_value(b, "short", -k);
        ply_put_value(b, "uchar", 9);
    }
    for (int v = 0; v < 4; v++) {
        ply_put_value(b, "uchar", v);
        ply_put_value(b, "double", xyz[v][2]);
        ply_put_value(b, "uchar", 2);
        ply_put_value(b, "float", 0.5);
        ply_put_value(b, "float", -7);
        ply_put_value(b, "int16", xyz[v][1]);
        ply_put_value(b, "float", 0.25);
        ply_put_value(b, "double", xyz[v][0]);
    }
    for (int m = 0; m < 3; m++)
        ply_put_value(b, "float", m);
    static const int faces[2][5] = {{3, 0, 1, 2, 0}, {4, 0, 1, 2, 3}};
    for (int f = 0; f < 2; f++) {
        ply_put_value(b, "int", -5);
        ply_put_value(b, "ushort", faces[f][0]);
        for (int k = 0; k < faces[f][0]; k++)
            ply_put_value(b, "uint", faces[f][k + 1]);
        ply_put_value(b, "char", f);
        for (int k = 0; k < f; k++)
            ply_put_value(b, "int16", 1);
    }
}

static void test_odd_layouts(void)
{
    static const char *const formats[] = {"ascii", "binary_little_endian", "binary_big_endian"};
    for (int f = 0; f < 3; f++) {
        ply_buf b = {0};
        b.big = f == 2;
        write_odd(&b, formats[f]);
        expect_square(&b, formats[f]);
        free(b.data);
    }
}

/* Every integer type as a list count and as an index, in every format. */
static void test_int_types(void)
{
    static const char *const types[] = {"char", "uchar", "short", "ushort", "int", "uint",
                                        "int8", "uint8", "int16", "uint16", "int32", "uint32"};
    for (int f = 0; f < 3; f++)
        for (size_t c = 0; c < 12; c++)
            for (size_t i = 0; i < 12; i += 1 + (c % 3)) {
                ply_buf b = {0};
                char rest[200];
                snprintf(rest, sizeof rest, "element vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
                                            "element face 2\nproperty list %s %s vertex_indices\nend_header\n",
                         types[c], types[i]);
                ply_begin(&b, f, rest);
                static const float xyz[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
                static const int faces[] = {3, 0, 1, 2, 4, 0, 1, 2, 3};
                for (int k = 0; k < 12; k++)
                    ply_put(&b, f, "float", xyz[k], k % 3 == 2);
                for (int k = 0; k < 9; k++)
                    ply_put(&b, f, k == 0 || k == 4 ? types[c] : types[i], faces[k], k == 3 || k == 8);
                char what[80];
                snprintf(what, sizeof what, "%s list %s %s", k_ply_formats[f], types[c], types[i]);
                expect_square(&b, what);
                free(b.data);
            }
}

/* Double coordinates are rounded once to float; ASCII values exactly, as OBJ's. */
static void test_double_coordinates(void)
{
    static const double values[] = {0.1, 1e-3, 3.14159265358979312, -2.5e30, 1e-42, 16777217.0};
    for (int f = 0; f < 3; f++) {
        ply_buf b = {0};
        ply_begin(&b, f, "element vertex 6\nproperty double x\nproperty double y\nproperty double z\n"
                         "element face 1\nproperty list uchar int vertex_indices\nend_header\n");
        for (int v = 0; v < 6; v++)
            for (int a = 0; a < 3; a++)
                ply_put(&b, f, "double", a == 0 ? values[v] : a == 1 ? (double)v : -values[v], a == 2);
        ply_put(&b, f, "uchar", 6, false);
        for (int k = 0; k < 6; k++)
            ply_put(&b, f, "int", k, k == 5);
        kd_mesh mesh;
        kd_error err;
        CHECK_MSG(ply_load(&b, &mesh, &err) == KD_OK, "%s", err.message);
        bool exact = mesh.num_vertices == 6;
        for (int v = 0; exact && v < 6; v++)
            exact = mesh.positions[3 * v] == (float)values[v] && mesh.positions[3 * v + 2] == -(float)values[v];
        CHECK_MSG(exact, "format %d: coordinates not rounded once", f);
        CHECK(mesh.num_faces_read == 1 && mesh.num_triangles_read == 4);
        kd_mesh_free(&mesh);
        free(b.data);
    }
}

/* Degenerate and non-finite triangles are dropped and counted as by the OBJ loader. */
static void test_drops_like_obj(void)
{
    static const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv nan 0 0\nv 2 0 0\nv inf 1 1\n"
                              "f 1 2 3\nf 1 2 4\nf 1 2 5\nf 1 1 3\nf 6 2 3 1\n";
    static const float xyz[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {NAN, 0, 0}, {2, 0, 0}, {INFINITY, 1, 1}};
    static const int faces[5][5] = {{3, 0, 1, 2}, {3, 0, 1, 3}, {3, 0, 1, 4}, {3, 0, 0, 2}, {4, 5, 1, 2, 0}};
    for (int f = 0; f < 3; f++) {
        ply_buf b = {0};
        ply_begin(&b, f, "element vertex 6\nproperty float x\nproperty float y\nproperty float z\n"
                         "element face 5\nproperty list uchar int vertex_indices\nend_header\n");
        for (int v = 0; v < 6; v++)
            for (int a = 0; a < 3; a++)
                ply_put(&b, f, "float", xyz[v][a], a == 2);
        for (int t = 0; t < 5; t++)
            for (int k = 0; k <= faces[t][0]; k++)
                ply_put(&b, f, k == 0 ? "uchar" : "int", faces[t][k], k == faces[t][0]);
        kd_mesh mesh;
        kd_error err;
        CHECK_MSG(ply_load(&b, &mesh, &err) == KD_OK, "%s", err.message);
        CHECK_MSG(mesh.num_dropped_nonfinite == 3 && mesh.num_dropped_zero_area == 2 && mesh.num_triangles == 1,
                  "format %d: %u kept, %llu nonfinite, %llu zero area", f, mesh.num_triangles,
                  (unsigned long long)mesh.num_dropped_nonfinite, (unsigned long long)mesh.num_dropped_zero_area);
        CHECK_MSG(equals_obj(&mesh, obj), "format %d: not the OBJ mesh", f);
        kd_mesh_free(&mesh);
        free(b.data);
    }
}

/* kd_mesh_load_memory picks PLY by the first line, or by the name. */
static void test_choice(void)
{
    static const char ply[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                              "property float z\nelement face 1\nproperty list uchar int vertex_indices\n"
                              "end_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK(kd_mesh_load_memory(ply, strlen(ply), "scene.obj", &mesh, &info, &err) == KD_OK);
    CHECK(info.format == KD_MESH_FORMAT_PLY && mesh.num_triangles == 1);
    kd_mesh_free(&mesh);
    CHECK(kd_mesh_load_memory(k_obj_square, strlen(k_obj_square), "scene.PLY", &mesh, &info, &err) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "scene.PLY: not a PLY file (it does not start with a 'ply' line)") == 0, "%s",
              err.message);
    CHECK(kd_mesh_load_memory(k_obj_square, strlen(k_obj_square), "scene.ply.obj", &mesh, &info, &err) == KD_OK);
    CHECK(info.format == KD_MESH_FORMAT_OBJ && mesh.num_triangles == 3 && !info.compressed);
    kd_mesh_free(&mesh);
}

int main(void)
{
    test_ascii();
    test_odd_layouts();
    test_int_types();
    test_double_coordinates();
    test_drops_like_obj();
    test_choice();
    return kd_test_finish("ply_forms");
}
