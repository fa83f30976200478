/* PLY files the loader refuses, each with its exact message (file, header line, or
 * element, row and line or byte), the limits, the warnings, and random mutations of
 * good files, which must never crash and always name the file. */
#define _DEFAULT_SOURCE
#include "ply_test_util.h"

#define HEAD "ply\nformat ascii 1.0\n"
#define VERTS "element vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
#define FACES "element face 1\nproperty list uchar int vertex_indices\n"
#define GOOD_HEADER HEAD VERTS FACES "end_header\n"
#define GOOD_BODY "0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"

static void expect_text(const char *text, kd_status status, const char *want, int line)
{
    ply_buf b = {0};
    ply_printf(&b, "%s", text);
    kd_mesh m;
    kd_error e;
    kd_status st = ply_load(&b, &m, &e);
    CHECK_MSG(st == status, "line %d: status %d (%s), want %d", line, (int)st, st ? e.message : "ok", (int)status);
    if (st != KD_OK)
        CHECK_MSG(strcmp(e.message, want) == 0, "line %d: message '%s', want '%s'", line, e.message, want);
    kd_mesh_free(&m);
    free(b.data);
}
#define EXPECT(text, status, want) expect_text((text), (status), (want), __LINE__)

static void test_header(void)
{
    EXPECT("", KD_ERR_PARSE, "t.ply: file is empty");
    EXPECT("plx\n", KD_ERR_PARSE, "t.ply: not a PLY file (it does not start with a 'ply' line)");
    EXPECT("ply\nformat ascii 1.0\n", KD_ERR_PARSE, "t.ply:3: the file ends inside the PLY header (no 'end_header' line)");
    EXPECT("ply\nend_header\n", KD_ERR_PARSE, "t.ply:2: the header has no 'format' line");
    EXPECT("ply\nformat ascii 2.0\n", KD_ERR_PARSE, "t.ply:2: PLY version '2.0' (this loader reads 1.0)");
    EXPECT("ply\nformat text 1.0\n", KD_ERR_PARSE,
           "t.ply:2: unknown format 'text' (ascii, binary_little_endian or binary_big_endian)");
    EXPECT("ply\nformat ascii\n", KD_ERR_PARSE,
           "t.ply:2: expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
    EXPECT(HEAD "format ascii 1.0\n", KD_ERR_PARSE, "t.ply:3: 'format' must come once, before the elements");
    EXPECT("ply\nelement vertex 3\nformat ascii 1.0\n", KD_ERR_PARSE, "t.ply:2: an element before the 'format' line");
    EXPECT(HEAD "property float x\n", KD_ERR_PARSE, "t.ply:3: a property before any element");
    EXPECT(HEAD "element vertex -3\n", KD_ERR_PARSE, "t.ply:3: element count '-3' is not a number of rows");
    EXPECT(HEAD "element vertex 99999999999999999999\n", KD_ERR_PARSE,
           "t.ply:3: element count '99999999999999999999' is not a number of rows");
    EXPECT(HEAD "element vertex\n", KD_ERR_PARSE, "t.ply:3: expected 'element NAME COUNT'");
    EXPECT(HEAD "element vertex 3\nproperty half x\n", KD_ERR_PARSE,
           "t.ply:4: unknown property type 'half' (char, uchar, short, ushort, int, uint, float, double, or int8 .. float64)");
    EXPECT(HEAD "element vertex 3\nproperty float\n", KD_ERR_PARSE, "t.ply:4: expected 'property TYPE NAME'");
    EXPECT(HEAD "element face 3\nproperty list uchar vertex_indices\n", KD_ERR_PARSE,
           "t.ply:4: expected 'property list COUNT_TYPE ITEM_TYPE NAME'");
    EXPECT(HEAD "element face 3\nproperty list float int vertex_indices\n", KD_ERR_PARSE,
           "t.ply:4: list 'vertex_indices' has a count of type float (an integer type is needed)");
    EXPECT(HEAD "element vertex 3\nproperty float x\nproperty double x\n", KD_ERR_PARSE,
           "t.ply:5: element 'vertex' has two properties named 'x'");
    EXPECT(HEAD "bogus line\n", KD_ERR_PARSE, "t.ply:3: unknown header line starting 'bogus'");
    EXPECT(HEAD "end_header extra\n", KD_ERR_PARSE, "t.ply:3: unknown header line starting 'end_header'");
}

static void test_roles(void)
{
    EXPECT(HEAD FACES "end_header\n", KD_ERR_PARSE, "t.ply: the PLY header has no 'vertex' element");
    EXPECT(HEAD VERTS VERTS FACES "end_header\n", KD_ERR_PARSE, "t.ply: the header has two 'vertex' elements");
    EXPECT(HEAD "element vertex 3\nproperty float x\nproperty float z\n" FACES "end_header\n", KD_ERR_PARSE,
           "t.ply: element 'vertex' has no property 'y'");
    EXPECT(HEAD "element vertex 3\nproperty list uchar float x\nproperty float y\nproperty float z\n" FACES
           "end_header\n",
           KD_ERR_PARSE, "t.ply: property 'x' of element 'vertex' is a list (a number is needed)");
    EXPECT(HEAD VERTS "end_header\n0 0 0\n1 0 0\n0 1 0\n", KD_ERR_PARSE,
           "t.ply: no triangles: the file has no faces (no 'face' element; 3 vertices)");
    EXPECT(HEAD VERTS "element face 0\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n",
           KD_ERR_PARSE, "t.ply: no triangles: the file has no faces (the 'face' element has no rows; 3 vertices)");
    EXPECT(HEAD VERTS "element face 1\nproperty list uchar int corners\nend_header\n", KD_ERR_PARSE,
           "t.ply: element 'face' has no 'vertex_indices' list");
    EXPECT(HEAD VERTS "element face 1\nproperty int vertex_indices\nend_header\n", KD_ERR_PARSE,
           "t.ply: property 'vertex_indices' of element 'face' is not a list");
    EXPECT(HEAD VERTS "element face 1\nproperty list uchar float vertex_indices\nend_header\n", KD_ERR_PARSE,
           "t.ply: list 'vertex_indices' of element 'face' holds float values (an integer type is needed)");
    EXPECT(HEAD VERTS FACES FACES "end_header\n", KD_ERR_PARSE, "t.ply: the header has two 'face' elements");
}

static void test_ascii_body(void)
{
    EXPECT(GOOD_HEADER "0 0 0\n1 0\n", KD_ERR_PARSE, "t.ply: element 'vertex' row 1 (line 11): the line ends before property 'z'");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0 7\n", KD_ERR_PARSE,
           "t.ply: element 'vertex' row 1 (line 11): more values than the element's 3 properties (from '7')");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 zero\n", KD_ERR_PARSE,
           "t.ply: element 'vertex' row 1 (line 11): property 'z': malformed number 'zero'");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n300 0 1 2\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): property 'vertex_indices': 300 does not fit type uchar");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n3 0 1.0 2\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): property 'vertex_indices': malformed integer '1.0'");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): vertex index 3 is out of range (the file has 3 vertices)");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): vertex index -1 is out of range (the file has 3 vertices)");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n2 0 1\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): face has 2 vertices (needs at least 3)");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n3 0 1\n", KD_ERR_PARSE,
           "t.ply: element 'face' row 0 (line 13): the line ends before the items of list 'vertex_indices'");
    EXPECT(GOOD_HEADER "0 0 0\n1 0 0\n", KD_ERR_PARSE,
           "t.ply: element 'vertex' row 2 (line 12): the file ends here (the header promises 3 rows)");
    EXPECT(HEAD VERTS "element face 1\nproperty list char int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n-3 0 1 2\n",
           KD_ERR_PARSE, "t.ply: element 'face' row 0 (line 13): list 'vertex_indices' has -3 items");
}

static void put_binary_header(ply_buf *b, const char *format, const char *index_type)
{
    ply_printf(b, "ply\nformat %s 1.0\n" VERTS "element face 2\nproperty list uchar %s vertex_indices\nend_header\n",
               format, index_type);
}

static void test_binary_body(void)
{
    for (int big = 0; big < 2; big++) {
        ply_buf b = {0};
        b.big = big;
        put_binary_header(&b, big ? "binary_big_endian" : "binary_little_endian", "int");
        size_t body = b.len;
        for (int k = 0; k < 9; k++)
            ply_put_value(&b, "float", k == 3 || k == 7);
        ply_put_value(&b, "uchar", 3);
        size_t face = b.len;
        ply_put_value(&b, "int", 0);
        ply_put_value(&b, "int", 1);
        ply_put_value(&b, "int", 2);
        /* Cut inside the vertices, inside the first face, before the second. */
        char want[200];
        size_t full = b.len;
        b.len = body + 20;
        snprintf(want, sizeof want,
                 "t.ply: element 'vertex' row 1 (byte %zu): the file ends inside the element (the header promises 3 rows)",
                 body + 12);
        PLY_EXPECT_ERROR(&b, KD_ERR_PARSE, want);
        b.len = face + 6;
        snprintf(want, sizeof want,
                 "t.ply: element 'face' row 0 (byte %zu): the file ends inside the element (the header promises 2 rows)",
                 face - 1);
        PLY_EXPECT_ERROR(&b, KD_ERR_PARSE, want);
        b.len = full;
        snprintf(want, sizeof want,
                 "t.ply: element 'face' row 1 (byte %zu): the file ends inside the element (the header promises 2 rows)",
                 full);
        PLY_EXPECT_ERROR(&b, KD_ERR_PARSE, want);
        /* An index out of range, negative, and a face of two. */
        ply_put_value(&b, "uchar", 3);
        ply_put_value(&b, "int", 0);
        ply_put_value(&b, "int", -7);
        ply_put_value(&b, "int", 1);
        snprintf(want, sizeof want,
                 "t.ply: element 'face' row 1 (byte %zu): vertex index -7 is out of range (the file has 3 vertices)",
                 full);
        PLY_EXPECT_ERROR(&b, KD_ERR_PARSE, want);
        b.data[full] = 2;
        snprintf(want, sizeof want, "t.ply: element 'face' row 1 (byte %zu): face has 2 vertices (needs at least 3)",
                 full);
        PLY_EXPECT_ERROR(&b, KD_ERR_PARSE, want);
        free(b.data);
    }
}

static void test_limits_and_warnings(void)
{
    kd_obj_limits limits = {3, 2};
    static const char four[] = HEAD "element vertex 4\nproperty float x\nproperty float y\nproperty float z\n" FACES
        "end_header\n";
    kd_mesh m;
    kd_error e;
    CHECK(ply_load_limited(four, strlen(four), limits, &m, &e, NULL) == KD_ERR_NOMEM);
    CHECK_MSG(strcmp(e.message, "t.ply: 4 vertices, more than the 3 a mesh can index") == 0, "%s", e.message);
    static const char quads[] = GOOD_HEADER "0 0 0\n1 0 0\n0 1 0\n5 0 1 2 0 1\n";
    CHECK(ply_load_limited(quads, strlen(quads), limits, &m, &e, NULL) == KD_ERR_NOMEM);
    CHECK_MSG(strcmp(e.message, "t.ply: element 'face' row 0 (line 13): more than 2 triangles (the count would overflow)") == 0,
              "%s", e.message);
    /* A header that promises billions of rows in a small file: refused quickly. */
    static const char huge[] = HEAD "element vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\n"
        FACES "end_header\n0 0 0\n";
    CHECK(ply_load_limited(huge, strlen(huge), kd_obj_default_limits(), &m, &e, NULL) == KD_ERR_PARSE);
    CHECK_MSG(strstr(e.message, "row 1 (line 11): the file ends here") != NULL, "%s", e.message);
    /* Text after the last element is ignored with a warning. */
    static const char extra[] = GOOD_HEADER GOOD_BODY "\n  \n0 0 0\n";
    char warning[256];
    CHECK(ply_load_limited(extra, strlen(extra), kd_obj_default_limits(), &m, &e, warning) == KD_OK);
    CHECK_MSG(strcmp(warning, "t.ply: text after the last element (from byte 184) ignored") == 0, "%s", warning);
    kd_mesh_free(&m);
    static const char clean[] = GOOD_HEADER GOOD_BODY "\n \r\n";
    CHECK(ply_load_limited(clean, strlen(clean), kd_obj_default_limits(), &m, &e, warning) == KD_OK);
    CHECK_MSG(warning[0] == '\0', "%s", warning);
    kd_mesh_free(&m);
}

/* Random edits of good files: a mesh that holds together, or a message naming the file. */
static void test_mutations(void)
{
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int loaded = 0, refused = 0;
    for (int i = 0; i < 1500; i++) {
        ply_buf b = {0};
        b.big = i % 3 == 2;
        if (i % 3 == 0) {
            ply_printf(&b, GOOD_HEADER GOOD_BODY);
        } else {
            put_binary_header(&b, b.big ? "binary_big_endian" : "binary_little_endian", i % 2 ? "uint" : "ushort");
            for (int k = 0; k < 9; k++)
                ply_put_value(&b, "float", k == 3 || k == 7);
            for (int f = 0; f < 2; f++) {
                ply_put_value(&b, "uchar", 3);
                for (int k = 0; k < 3; k++)
                    ply_put_value(&b, i % 2 ? "uint" : "ushort", (k + f) % 3);
            }
        }
        int edits = 1 + (int)((rng >> 60) % 3);
        for (int e = 0; e < edits && b.len > 0; e++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(rng >> 33) % b.len;
            if ((rng >> 20) % 4 == 0)
                b.len = at; /* cut */
            else
                b.data[at] = (char)(rng >> 40);
        }
        kd_mesh m;
        kd_error e;
        kd_status st = ply_load(&b, &m, &e);
        if (st == KD_OK) {
            loaded++;
            bool in_range = true;
            for (uint64_t k = 0; k < 3ull * m.num_triangles; k++)
                in_range &= m.indices[k] < m.num_vertices;
            CHECK_MSG(in_range && m.num_triangles > 0, "mutant %d", i);
        } else {
            refused++;
            CHECK_MSG(strncmp(e.message, "t.ply", 5) == 0 && e.status == st, "mutant %d: '%s'", i, e.message);
        }
        kd_mesh_free(&m);
        free(b.data);
    }
    printf("ply_errors: %d mutants loaded, %d refused\n", loaded, refused);
    CHECK(loaded > 30 && refused > 300); /* both outcomes exercised */
}

int main(void)
{
    test_header();
    test_roles();
    test_ascii_body();
    test_binary_body();
    test_limits_and_warnings();
    test_mutations();
    return kd_test_finish("ply_errors");
}
