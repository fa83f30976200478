/* Mutation test: thousands of random byte-level edits of small OBJ texts (flips,
 * inserts of the characters that matter, deletions, truncations). Whatever the
 * result, the loader must not read outside the text (guard pages), must give the
 * same answer wherever the text lies, and must either fail cleanly (zeroed mesh,
 * "t.obj..." message) or return a consistent mesh. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_test_util.h"

static uint64_t g_rng = 0x13198a2e03707344ull;
static uint64_t rng_next(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}

static const char *const k_seeds[] = {
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
    "v -1.5e-3 2.25 +7\r\nv .5 5. -0\r\nv 1 2 3 1\r\nvt 0 0\r\nvn 0 0 1\r\nf 1/1/1 2/1/1 3/1/1\r\n",
    "# c\n\tv 0 0 0 # t\nv 1 0 0\nv 0 \\\n 1 0\ng a \\\n b\nf -3//1 -2//1 \\\n -1//1\nvn 0 1 0\n",
    "f 1 2 3\nv 0 0 0\nv 1 1 1\nv 2 0 1\nv nan 0 0\nf 1 2 4\nf 1 1 2\nusemtl x\nf 3 2 1",
};

static const char k_interesting[] = " \t\r\n\\#/-+.e0123456789vfn";

int main(void)
{
    enum { MUTANTS = 6000 };
    char text[512];
    int num_ok = 0, num_failed = 0;
    for (int i = 0; i < MUTANTS; i++) {
        const char *seed = k_seeds[rng_next() % (sizeof k_seeds / sizeof k_seeds[0])];
        size_t len = strlen(seed);
        memcpy(text, seed, len);
        int edits = 1 + (int)(rng_next() % 4);
        for (int e = 0; e < edits && len > 0; e++) {
            size_t at = (size_t)(rng_next() % len);
            switch (rng_next() % 5) {
            case 0: text[at] = (char)(rng_next() & 0xff); break;
            case 1: text[at] = k_interesting[rng_next() % (sizeof k_interesting - 1)]; break;
            case 2: /* insert */
                if (len + 1 < sizeof text) {
                    memmove(text + at + 1, text + at, len - at);
                    text[at] = k_interesting[rng_next() % (sizeof k_interesting - 1)];
                    len++;
                }
                break;
            case 3: /* delete */
                memmove(text + at, text + at + 1, len - at - 1);
                len--;
                break;
            default: len = at + 1; break; /* truncate */
            }
        }
        kd_mesh mesh;
        kd_error err;
        kd_status st = obj_load_sized(text, len, kd_obj_default_limits(), &mesh, &err);
        if (st == KD_OK) {
            num_ok++;
            bool in_range = true;
            for (uint64_t k = 0; k < 3ull * mesh.num_triangles; k++)
                in_range &= mesh.indices[k] < mesh.num_vertices;
            CHECK_MSG(in_range, "mutant %d: index out of range", i);
            CHECK(mesh.num_triangles > 0);
            CHECK(mesh.num_triangles_read ==
                  mesh.num_triangles + mesh.num_dropped_nonfinite + mesh.num_dropped_zero_area);
            CHECK(mesh.num_faces_read > 0 && mesh.num_faces_read <= mesh.num_triangles_read);
            kd_mesh_free(&mesh);
        } else {
            num_failed++;
            CHECK_MSG(strncmp(err.message, "t.obj", 5) == 0, "mutant %d: message '%s'", i, err.message);
            CHECK(err.status == st);
        }
    }
    printf("obj_mutate: %d mutants loaded, %d refused\n", num_ok, num_failed);
    CHECK(num_ok > MUTANTS / 10 && num_failed > MUTANTS / 10); /* both outcomes exercised */
    return kd_test_finish("obj_mutate");
}
