/* OBJ loader errors: every kind, with the file name, the line number and the reason
 * in the message, and nothing loaded. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>

#include "obj_test_util.h"

#define TRI "v 0 0 0\nv 1 0 0\nv 0 1 0\n"

static void test_malformed_numbers(void)
{
    OBJ_EXPECT_ERROR("v 1 2 x\n", KD_ERR_PARSE, "t.obj:1: malformed number 'x'");
    OBJ_EXPECT_ERROR(TRI "v 1.5.3 0 0\n", KD_ERR_PARSE, "t.obj:4: malformed number '1.5.3'");
    OBJ_EXPECT_ERROR("v 1e 0 0\n", KD_ERR_PARSE, ":1: malformed number '1e'");
    OBJ_EXPECT_ERROR("v 1e+ 0 0\n", KD_ERR_PARSE, ":1: malformed number '1e+'");
    OBJ_EXPECT_ERROR("v - 0 0\n", KD_ERR_PARSE, ":1: malformed number '-'");
    OBJ_EXPECT_ERROR("v . 0 0\n", KD_ERR_PARSE, ":1: malformed number '.'");
    OBJ_EXPECT_ERROR("v 0x10 0 0\n", KD_ERR_PARSE, ":1: malformed number '0x10'");
    OBJ_EXPECT_ERROR("v 1,5 2 3\n", KD_ERR_PARSE, ":1: malformed number '1,5'");
    OBJ_EXPECT_ERROR("v 1 2 3 abc\n", KD_ERR_PARSE, ":1: malformed number 'abc'");
    OBJ_EXPECT_ERROR("v nanx 0 0\n", KD_ERR_PARSE, ":1: malformed number 'nanx'");
    OBJ_EXPECT_ERROR("v --1 0 0\n", KD_ERR_PARSE, ":1: malformed number '--1'");
    OBJ_EXPECT_ERROR("v 1 2 3 \\ x\n", KD_ERR_PARSE, ":1: malformed number '\\'");
    /* A stray control byte is just a bad character... */
    OBJ_EXPECT_ERROR("v 0 0 0\nv 1 2\x01 3\n", KD_ERR_PARSE, "t.obj:2: malformed number '2?'");
    /* ...but a NUL byte near the start says the file is binary, not OBJ text. */
    static const char nul[] = "v 0 0 0\nv 1 2\0 3\n";
    kd_mesh m;
    kd_error e;
    CHECK(obj_load_sized(nul, sizeof nul - 1, kd_obj_default_limits(), &m, &e) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(e.message, "t.obj: not an OBJ file (binary data at byte 13)") == 0, "%s", e.message);
}

static void test_line_numbers(void)
{
    /* Blank lines, comments, CRLF, skipped and continued statements all count. */
    OBJ_EXPECT_ERROR("\n\n# c\r\n\r\nv 1 2 y\n", KD_ERR_PARSE, "t.obj:5: malformed number 'y'");
    OBJ_EXPECT_ERROR("v 0 0 0\r\nv 1 \\\r\n 2 x\r\n", KD_ERR_PARSE, "t.obj:3: malformed number 'x'");
    OBJ_EXPECT_ERROR("g a \\\n b \\\n c\nvt 0 0\nv 1 2 z\n", KD_ERR_PARSE, "t.obj:5: malformed number 'z'");
    OBJ_EXPECT_ERROR("# C:\\path\\\nv 1 2 w\n", KD_ERR_PARSE, "t.obj:2: malformed number 'w'");
    /* In the unterminated last line the count carries on. */
    OBJ_EXPECT_ERROR(TRI "v 1 2 q", KD_ERR_PARSE, "t.obj:4: malformed number 'q'");
    OBJ_EXPECT_ERROR(TRI "f 1 2 \\\n\\\n 0", KD_ERR_PARSE, "t.obj:6: face index 0 is invalid");
    /* Statement errors name the line the statement starts on. */
    OBJ_EXPECT_ERROR(TRI "f 1 \\\n 2\n", KD_ERR_PARSE, "t.obj:4: face has 2 vertices (needs at least 3)");
    OBJ_EXPECT_ERROR("\nv 1 \\\n 2\n", KD_ERR_PARSE, "t.obj:2: vertex has 2 numbers");
}

static void test_vertex_counts(void)
{
    OBJ_EXPECT_ERROR("v\n", KD_ERR_PARSE, "t.obj:1: vertex has 0 numbers");
    OBJ_EXPECT_ERROR("v 1\n", KD_ERR_PARSE, "t.obj:1: vertex has 1 number (");
    OBJ_EXPECT_ERROR("v 1 2 # z\n", KD_ERR_PARSE, "t.obj:1: vertex has 2 numbers");
    OBJ_EXPECT_ERROR("v 1 2 3 4 5\n", KD_ERR_PARSE, "t.obj:1: vertex has 5 numbers");
    OBJ_EXPECT_ERROR("v 1 2 3 4 5 6 7 8\n", KD_ERR_PARSE, "t.obj:1: vertex has more than 7 numbers");
}

static void test_face_indices(void)
{
    OBJ_EXPECT_ERROR(TRI "f 0 1 2\n", KD_ERR_PARSE, "t.obj:4: face index 0 is invalid (OBJ indices start at 1)");
    OBJ_EXPECT_ERROR(TRI "f 1 2 4\n", KD_ERR_PARSE, "t.obj:4: face index 4 is out of range (the file defines 3 vertices)");
    OBJ_EXPECT_ERROR(TRI "f -4 1 2\n", KD_ERR_PARSE, "t.obj:4: face index -4 is out of range (only 3 vertices defined so far)");
    OBJ_EXPECT_ERROR("f -1 -2 -3\n" TRI, KD_ERR_PARSE, "t.obj:1: face index -1 is out of range (only 0 vertices");
    OBJ_EXPECT_ERROR(TRI "f 1 2 99999999999999999999999\n", KD_ERR_PARSE,
                     "t.obj:4: face index 99999999999999999999999 is out of range (a mesh holds at most 4294967295 vertices)");
    OBJ_EXPECT_ERROR(TRI "f 1 2 -99999999999999999999999\n", KD_ERR_PARSE,
                     "t.obj:4: face index -99999999999999999999999 is out of range (only 3 vertices");
    /* Forward references: the earliest bad one is reported, even before larger ones. */
    OBJ_EXPECT_ERROR("f 1 2 3\nf 1 2 5\nf 1 2 9\n" TRI "v 1 1 1\n", KD_ERR_PARSE,
                     "t.obj:2: face index 5 is out of range (the file defines 4 vertices)");
    OBJ_EXPECT_ERROR("f 1 2 7\nf 1 2 6\n" TRI "v 1 1 1\nv 2 2 2\n", KD_ERR_PARSE, "t.obj:1: face index 7 is out of range");
    /* vt and vn parts are checked the same way. */
    OBJ_EXPECT_ERROR(TRI "vt 0 0\nf 1/1 2/2 3/1\n", KD_ERR_PARSE,
                     "t.obj:5: face texture coordinate index 2 is out of range (the file defines 1 texture coordinates)");
    OBJ_EXPECT_ERROR(TRI "f 1/0 2/1 3/1\n", KD_ERR_PARSE, "t.obj:4: face texture coordinate index 0 is invalid");
    OBJ_EXPECT_ERROR(TRI "vn 0 0 1\nf 1//1 2//-2 3//1\n", KD_ERR_PARSE,
                     "t.obj:5: face normal index -2 is out of range (only 1 normals defined so far)");
    OBJ_EXPECT_ERROR(TRI "f 1//0 2//1 3//1\n", KD_ERR_PARSE, "t.obj:4: face normal index 0 is invalid");
}

static void test_malformed_faces(void)
{
    OBJ_EXPECT_ERROR(TRI "f 1/ 2 3\n", KD_ERR_PARSE, "t.obj:4: malformed face index '1/'");
    OBJ_EXPECT_ERROR(TRI "vn 0 0 1\nf 1// 2 3\n", KD_ERR_PARSE, "t.obj:5: malformed face index '1//'");
    OBJ_EXPECT_ERROR(TRI "f a b c\n", KD_ERR_PARSE, "t.obj:4: expected a vertex index, found 'a'");
    OBJ_EXPECT_ERROR(TRI "f 1.5 2 3\n", KD_ERR_PARSE, "t.obj:4: malformed face index '1.5'");
    OBJ_EXPECT_ERROR(TRI "vt 0 0\nvn 0 0 1\nf 1/1/1/1 2 3\n", KD_ERR_PARSE, "t.obj:6: malformed face index '1/1/1/1'");
    OBJ_EXPECT_ERROR(TRI "f 1 2 3x\n", KD_ERR_PARSE, "t.obj:4: malformed face index '3x'");
    OBJ_EXPECT_ERROR(TRI "f 1 2 3 \\ 4\n", KD_ERR_PARSE, "t.obj:4: expected a vertex index, found '\\'");
    OBJ_EXPECT_ERROR(TRI "f 1 2\n", KD_ERR_PARSE, "t.obj:4: face has 2 vertices (needs at least 3)");
    OBJ_EXPECT_ERROR(TRI "f 1\n", KD_ERR_PARSE, "t.obj:4: face has 1 vertex (needs at least 3)");
    OBJ_EXPECT_ERROR(TRI "f\n", KD_ERR_PARSE, "t.obj:4: face has 0 vertices");
    OBJ_EXPECT_ERROR(TRI "f # 1 2 3\n", KD_ERR_PARSE, "t.obj:4: face has 0 vertices");
    OBJ_EXPECT_ERROR(TRI "f 1 2 \\", KD_ERR_PARSE, "t.obj:4: face has 2 vertices");
}

static void test_whole_file_errors(void)
{
    kd_mesh m;
    kd_error e;
    CHECK(kd_obj_load_memory("", 0, "empty.obj", &m, &e) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(e.message, "empty.obj: file is empty") == 0, "%s", e.message);
    CHECK(obj_mesh_is_zeroed(&m));
    OBJ_EXPECT_ERROR("\n", KD_ERR_PARSE, "t.obj: no triangles: the file has no faces");
    OBJ_EXPECT_ERROR("# only a comment\n", KD_ERR_PARSE, "t.obj: no triangles");
    OBJ_EXPECT_ERROR(TRI "vt 0 0\nl 1 2\n", KD_ERR_PARSE, "t.obj: no triangles: the file has no faces ('f' statements; 3 vertices)");
    OBJ_EXPECT_ERROR(TRI "v nan 0 0\nf 1 1 2\nf 1 2 4\n", KD_ERR_INVALID,
                     "t.obj: no usable triangles: all 2 were dropped (1 with a NaN or infinite coordinate, 1 with zero area)");
    /* A NULL name still gives a message. */
    CHECK(kd_obj_load_memory("v 1 2\n", 6, NULL, &m, &e) == KD_ERR_PARSE);
    CHECK_MSG(strstr(e.message, "<memory>:1: vertex has 2 numbers") != NULL, "%s", e.message);
}

static void test_count_limits(void)
{
    /* The real limits are 2^32-1 vertices and triangles; lowered ones reach the same
     * checks with small inputs. */
    kd_obj_limits limits = {3, 2};
    kd_mesh m;
    kd_error e;
    const char *text = TRI "f 1 2 3\nv 1 1 1\n";
    CHECK(obj_load_sized(text, strlen(text), limits, &m, &e) == KD_ERR_NOMEM);
    CHECK_MSG(strstr(e.message, "t.obj:5: more than 3 vertices (the count would overflow)") != NULL, "%s", e.message);
    text = TRI "f 1 2 3\nf 1 2 3 1 2\n";
    CHECK(obj_load_sized(text, strlen(text), limits, &m, &e) == KD_ERR_NOMEM);
    CHECK_MSG(strstr(e.message, "t.obj:5: more than 2 triangles (the count would overflow)") != NULL, "%s", e.message);
    text = TRI "f 1 2 4\n";
    CHECK(obj_load_sized(text, strlen(text), limits, &m, &e) == KD_ERR_PARSE);
    CHECK_MSG(strstr(e.message, "t.obj:4: face index 4 is out of range (a mesh holds at most 3 vertices)") != NULL,
              "%s", e.message);
    text = TRI "f 1 2 3\nf 1 2 3\n";
    CHECK(obj_load_sized(text, strlen(text), limits, &m, &e) == KD_OK);
    CHECK(m.num_triangles == 2);
    kd_mesh_free(&m);
    /* Defaults: what a uint32_t index can address. */
    CHECK(kd_obj_default_limits().max_vertices == UINT32_MAX);
    CHECK(kd_obj_default_limits().max_triangles == UINT32_MAX);
}

int main(void)
{
    test_malformed_numbers();
    test_line_numbers();
    test_vertex_counts();
    test_face_indices();
    test_malformed_faces();
    test_whole_file_errors();
    test_count_limits();
    return kd_test_finish("obj_errors");
}
