/* The real scenes of ../shared/scenes converted to PLY (binary little-endian; the
 * small ones also ASCII, big-endian and gzip-compressed) load to the meshes their
 * OBJ files load to: the same vertices, and the same triangles in the same order.
 * Exits 77 (skipped) when the scenes folder is absent or holds none of them. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef KD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "mesh_load.h"
#include "mesh_write.h"
#include "test_support.h"

static const char *const k_scenes[] = {
    "cornell_box_original", "utah_teapot",  "armadillo_30k_bikker", "stanford_bunny", "sponza_dabrovic",
    "sibenik_mcguire",      "sibenik_blender", "crytek_sponza",     "conference",     "stanford_dragon_vrip",
};

/* Writes mesh as path.gz, gzip-compressed (false without zlib). */
static bool write_gzip(const char *plain, const char *zipped)
{
#ifdef KD_HAVE_ZLIB
    FILE *in = fopen(plain, "rb");
    gzFile out = gzopen(zipped, "wb1");
    char chunk[1 << 16];
    size_t got;
    bool ok = in && out;
    while (ok && (got = fread(chunk, 1, sizeof chunk, in)) > 0)
        ok = gzwrite(out, chunk, (unsigned)got) == (int)got;
    if (in)
        fclose(in);
    if (out)
        gzclose(out);
    return ok;
#else
    (void)plain;
    (void)zipped;
    return false;
#endif
}

/* Loads path and checks it holds obj's vertices and triangles. */
static void check_same(const char *base, const char *what, const char *path, const kd_mesh *obj)
{
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    kd_status st = kd_mesh_load_file(path, &mesh, &info, &err);
    CHECK_MSG(st == KD_OK, "%s %s: %s", base, what, err.message);
    if (st != KD_OK)
        return;
    CHECK_MSG(info.format == KD_MESH_FORMAT_PLY && info.warning[0] == '\0', "%s %s: %s", base, what, info.warning);
    bool same = mesh.num_vertices == obj->num_vertices && mesh.num_triangles == obj->num_triangles &&
                memcmp(mesh.positions, obj->positions, 12 * (size_t)obj->num_vertices) == 0 &&
                memcmp(mesh.indices, obj->indices, 12 * (size_t)obj->num_triangles) == 0;
    CHECK_MSG(same, "%s %s: not the OBJ mesh", base, what);
    CHECK(mesh.num_faces_read == obj->num_triangles && mesh.num_dropped_zero_area == 0);
    kd_mesh_free(&mesh);
}

static void convert_scene(const char *base, const char *path)
{
    kd_mesh obj;
    kd_error err;
    kd_status st = kd_mesh_load_file(path, &obj, NULL, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    if (st != KD_OK)
        return;
    static const struct {
        kd_mesh_out_format format;
        const char *what;
    } k_formats[] = {{KD_MESH_OUT_PLY, "binary"}, {KD_MESH_OUT_PLY_BE, "big-endian"}, {KD_MESH_OUT_PLY_ASCII, "ascii"}};
    bool small = obj.num_triangles < 100000;
    for (int f = 0; f < (small ? 3 : 1); f++) {
        char ply[512], zipped[520];
        kd_test_tmp_path("ply_scene.ply", ply, sizeof ply);
        st = kd_mesh_save(ply, &obj, k_formats[f].format, &err);
        CHECK_MSG(st == KD_OK, "%s", err.message);
        check_same(base, k_formats[f].what, ply, &obj);
        snprintf(zipped, sizeof zipped, "%s.gz", ply);
        if (small && write_gzip(ply, zipped)) {
            check_same(base, "gzip", zipped, &obj);
            remove(zipped);
        }
        remove(ply);
    }
    printf("%-22s %7u vertices %7u triangles: PLY loads the same\n", base, obj.num_vertices, obj.num_triangles);
    kd_mesh_free(&obj);
}

int main(void)
{
    if (access(KD_SHARED_SCENES_DIR, R_OK) != 0) {
        printf("ply_scenes: %s not found; skipped\n", KD_SHARED_SCENES_DIR);
        return KD_TEST_SKIP;
    }
    int num_found = 0;
    for (size_t i = 0; i < sizeof k_scenes / sizeof k_scenes[0]; i++) {
        char path[1024];
        if (!kd_test_shared_scene(k_scenes[i], path, sizeof path)) {
            printf("%-22s not in %s; skipped\n", k_scenes[i], KD_SHARED_SCENES_DIR);
            continue;
        }
        num_found++;
        convert_scene(k_scenes[i], path);
    }
    if (num_found == 0) {
        printf("ply_scenes: no scenes in %s; skipped\n", KD_SHARED_SCENES_DIR);
        return KD_TEST_SKIP;
    }
    return kd_test_finish("ply_scenes");
}
