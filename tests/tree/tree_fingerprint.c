/* Tree files know the mesh they were built over: the fingerprint tells a
 * copy of the mesh from one with its faces shuffled or its vertices scaled,
 * version-1 files (no fingerprint) are read but cannot be matched, and the
 * reader's messages name the fault: a flipped header byte is never called a
 * short file, a folder is called one, and the magic is read first (a
 * never-ending stream of zeros is refused at once). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build_support.h"
#include "cpu_build.h"
#include "kd_hash.h"
#include "test_support.h"
#include "tree_file_util.h"
#include "tree_io.h"

enum { V1_HEADER = 64, V2_HEADER = 96 };

static kd_mesh copy_mesh(const kd_mesh *m)
{
    kd_mesh c = *m;
    c.positions = malloc(3ull * m->num_vertices * sizeof *c.positions);
    c.indices = malloc(3ull * m->num_triangles * sizeof *c.indices);
    memcpy(c.positions, m->positions, 3ull * m->num_vertices * sizeof *c.positions);
    memcpy(c.indices, m->indices, 3ull * m->num_triangles * sizeof *c.indices);
    return c;
}

/* Loading fails (KD_ERR_PARSE or io) with a message holding want and, when
 * given, never holding shun. */
static void expect_load_error(const char *what, const char *path, const char *want, const char *shun)
{
    kd_tree tree;
    kd_error err;
    kd_error_clear(&err);
    kd_status st = kd_tree_load(&tree, NULL, path, &err);
    CHECK_MSG(st != KD_OK, "%s: loaded", what);
    CHECK_MSG(strstr(err.message, want) != NULL, "%s: '%s' lacks '%s'", what, err.message, want);
    CHECK_MSG(!shun || strstr(err.message, shun) == NULL, "%s: '%s' says '%s'", what, err.message, shun);
    if (st == KD_OK)
        kd_tree_free(&tree);
}

/* Shuffled faces and scaled vertices give other fingerprints; a copy the same. */
static void test_fingerprints(const kd_mesh *mesh, const kd_tree_origin *origin)
{
    kd_mesh same = copy_mesh(mesh), shuffled = copy_mesh(mesh), scaled = copy_mesh(mesh);
    bt_rng rng = {77};
    for (uint32_t t = mesh->num_triangles - 1; t > 0; t--) {
        uint32_t j = bt_rand_u32(&rng) % (t + 1);
        for (int k = 0; k < 3; k++) {
            uint32_t tmp = shuffled.indices[3 * t + k];
            shuffled.indices[3 * t + k] = shuffled.indices[3 * j + k];
            shuffled.indices[3 * j + k] = tmp;
        }
    }
    for (uint32_t i = 0; i < 3 * mesh->num_vertices; i++)
        scaled.positions[i] *= 0.9f;
    CHECK(kd_mesh_fingerprint(&same) == kd_mesh_fingerprint(mesh));
    CHECK(kd_mesh_fingerprint(&shuffled) != kd_mesh_fingerprint(mesh));
    CHECK(kd_mesh_fingerprint(&scaled) != kd_mesh_fingerprint(mesh));
    kd_error err;
    CHECK(kd_tree_check_origin(origin, &same, "t.kd", "same.obj", &err) == KD_OK);
    CHECK(kd_tree_check_origin(origin, &shuffled, "t.kd", "shuffled.obj", &err) == KD_ERR_INVALID);
    CHECK_MSG(strstr(err.message, "tree t.kd was built over a different mesh than shuffled.obj: "), "%s",
              err.message);
    CHECK(kd_tree_check_origin(origin, &scaled, "t.kd", NULL, &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "different mesh than the mesh given"));
    /* One vertex more, unused: still another mesh. */
    kd_mesh more = copy_mesh(mesh);
    more.num_vertices--;
    CHECK(kd_tree_check_origin(origin, &more, "t.kd", "m.obj", &err) == KD_ERR_INVALID);
    CHECK(strstr(err.message, "vertices"));
    kd_mesh_free(&same);
    kd_mesh_free(&shuffled);
    kd_mesh_free(&scaled);
    kd_mesh_free(&more);
}

/* A version-1 file made from a version-2 one: read, but unmatched. */
static void test_version1(const unsigned char *v2, size_t size, const kd_mesh *mesh, const char *path)
{
    size_t body = size - V2_HEADER - 8, v1_size = V1_HEADER + body + 8;
    unsigned char *v1 = calloc(v1_size, 1);
    memcpy(v1, v2, 56);
    v1[8] = 1;  /* version */
    v1[12] = 64; /* header size */
    memcpy(v1 + V1_HEADER, v2 + V2_HEADER, body);
    tf_put_u64(v1 + v1_size - 8, tf_fnv1a64(v1, v1_size - 8));
    tf_write_file(path, v1, v1_size);
    kd_tree tree;
    kd_tree_origin origin;
    kd_error err;
    CHECK_MSG(kd_tree_load(&tree, &origin, path, &err) == KD_OK, "%s", err.message);
    CHECK(!origin.has_fingerprint && origin.version == 1);
    CHECK(kd_tree_check_fits(&tree, mesh, path, "m.obj", &err) == KD_OK);
    CHECK(kd_tree_check_origin(&origin, mesh, "old.kd", "m.obj", &err) == KD_ERR_INVALID);
    CHECK_MSG(strstr(err.message, "version-1") && strstr(err.message, "no fingerprint"), "%s", err.message);
    kd_tree_free(&tree);
    /* Version 1 cannot tell a damaged count from a short file: it says both. */
    v1[16] ^= 0x01;
    tf_write_file(path, v1, v1_size);
    expect_load_error("version-1 count flipped", path, "header, which has no checksum, is damaged", NULL);
    free(v1);
}

/* Every bit of every header byte flipped in turn: never "truncated". */
static void test_header_flips(const unsigned char *good, size_t size, const char *path)
{
    unsigned char *bad = malloc(size);
    for (int byte = 0; byte < V2_HEADER; byte++)
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(bad, good, size);
            bad[byte] ^= (unsigned char)(1u << bit);
            tf_write_file(path, bad, size);
            const char *want = byte < 8 ? "magic" : byte < 12 ? "version" : byte < 16 ? "header_size" : "header";
            char what[64];
            snprintf(what, sizeof what, "header byte %d bit %d", byte, bit);
            expect_load_error(what, path, want, "truncated");
        }
    /* Really short: then, and only then, truncated. */
    tf_write_file(path, good, size - 100);
    expect_load_error("short by 100 bytes", path, "truncated", NULL);
    kd_error err;
    CHECK(kd_tree_check_file(path, &err) == KD_ERR_PARSE && strstr(err.message, "truncated"));
    tf_write_file(path, good, size);
    CHECK(kd_tree_check_file(path, &err) == KD_OK);
    free(bad);
}

/* The magic is read before anything else: a stream of zeros is refused at
 * once, and so is a pipe whose writer has more to say. */
static void test_magic_first(void)
{
    expect_load_error("/dev/zero", "/dev/zero", "magic", NULL);
    char fifo[512];
    kd_test_tmp_path("tree_fingerprint.fifo", fifo, sizeof fifo);
    remove(fifo);
    if (mkfifo(fifo, 0600) != 0)
        return;
    pid_t child = fork();
    if (child == 0) {
        int fd = open(fifo, O_WRONLY);
        if (write(fd, "NOTATREEFILE", 12) != 12)
            _exit(1);
        sleep(10); /* the pipe stays open: a reader waiting for its end would wait */
        _exit(0);
    }
    time_t start = time(NULL);
    expect_load_error("pipe", fifo, "magic", NULL);
    CHECK_MSG(time(NULL) - start < 5, "the reader waited for the pipe's end");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    remove(fifo);
}

int main(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 99, BT_SCENE_MIXED, 400);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);
    kd_tree_origin origin;
    kd_tree_origin_init(&origin, &mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(&p));
    char path[512], other[512];
    kd_test_tmp_path("tree_fingerprint.kd", path, sizeof path);
    kd_test_tmp_path("tree_fingerprint_other.kd", other, sizeof other);
    CHECK(kd_tree_save(&tree, &origin, path, &err) == KD_OK);
    /* No fingerprint, no file. */
    kd_tree_origin none = {0};
    CHECK(kd_tree_save(&tree, &none, other, &err) == KD_ERR_INVALID);
    /* Another rule gives another rules hash, the same mesh fingerprint. */
    kd_build_params q = p;
    q.empty_bonus = 0.25f;
    CHECK(kd_tree_rules_hash_cpu(&q) != kd_tree_rules_hash_cpu(&p));
    q = p;
    q.num_threads = 7; /* threads do not shape the tree */
    CHECK(kd_tree_rules_hash_cpu(&q) == kd_tree_rules_hash_cpu(&p));
    CHECK(kd_tree_rules_hash_gpu(&p, false, 64, 32, 0.1f, 24.0f) != kd_tree_rules_hash_gpu(&p, true, 64, 32, 0.1f, 24.0f));
    CHECK(kd_tree_rules_hash_gpu(&p, false, 64, 32, 0.1f, 24.0f) != kd_tree_rules_hash_gpu(&p, false, 64, 32, 0.1f, 10.0f));

    test_fingerprints(&mesh, &origin);
    size_t size = 0;
    unsigned char *good = tf_read_file(path, &size);
    CHECK(good && size > V2_HEADER);
    if (good) {
        test_header_flips(good, size, other);
        test_version1(good, size, &mesh, other);
    }
    char dir[512];
    kd_test_tmp_path("tree_fingerprint_dir.kd", dir, sizeof dir);
    mkdir(dir, 0777);
    expect_load_error("a folder", dir, "is a directory", NULL);
    test_magic_first();

    free(good);
    remove(path);
    remove(other);
    rmdir(dir);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return kd_test_finish("tree_fingerprint");
}
