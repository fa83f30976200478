/* Tree files at the command line: a tree is refused by render, verify and
 * stats for a copy of its mesh with the faces shuffled or the vertices
 * scaled, with a message that names both files and says what to do;
 * --force-tree lets it through with a warning; a damaged header is called
 * damaged, never short; a folder is called a folder, and a bad tree file is
 * refused before the mesh is read. */
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;
static char g_scene[512], g_shuffled[512], g_scaled[512], g_tree[512];

/* A box of 12 triangles and a floating one; the shuffled copy lists the
 * same faces in another order, the scaled copy (by 0.9 about the box's
 * centre) fits inside the tree's root box. */
static void write_scenes(void)
{
    static const char *const verts[] = {"0 0 0", "1 0 0", "1 1 0", "0 1 0", "0 0 1", "1 0 1",
                                        "1 1 1", "0 1 1", "0.2 0.3 0.4", "0.8 0.3 0.5", "0.5 0.9 0.6"};
    static const char *const faces[] = {"1 2 3 4", "5 6 7 8", "1 2 6 5", "4 3 7 8", "1 4 8 5", "2 3 7 6",
                                        "9 10 11"};
    kd_test_tmp_path("tree_files_scene.obj", g_scene, sizeof g_scene);
    kd_test_tmp_path("tree_files_shuffled.obj", g_shuffled, sizeof g_shuffled);
    kd_test_tmp_path("tree_files_scaled.obj", g_scaled, sizeof g_scaled);
    kd_test_tmp_path("tree_files.kd", g_tree, sizeof g_tree);
    FILE *a = fopen(g_scene, "w"), *b = fopen(g_shuffled, "w"), *c = fopen(g_scaled, "w");
    for (int i = 0; i < 11; i++) {
        float x, y, z;
        sscanf(verts[i], "%f %f %f", &x, &y, &z);
        fprintf(a, "v %s\n", verts[i]);
        fprintf(b, "v %s\n", verts[i]);
        fprintf(c, "v %g %g %g\n", 0.5 + 0.9 * (x - 0.5), 0.5 + 0.9 * (y - 0.5), 0.5 + 0.9 * (z - 0.5));
    }
    for (int i = 0; i < 7; i++) {
        fprintf(a, "f %s\n", faces[i]);
        fprintf(b, "f %s\n", faces[(i + 3) % 7]);
        fprintf(c, "f %s\n", faces[i]);
    }
    fclose(a);
    fclose(b);
    fclose(c);
}

static void expect(const char *const *args, int want_code, const char *want_err, const char *shun_err)
{
    cli_run(&g_run, args);
    const char *what = cli_describe(args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d: %s", what, g_run.exit_code, want_code,
              g_run.err);
    CHECK_MSG(!want_err || strstr(g_run.err, want_err), "%s: stderr lacks '%s': %s", what, want_err, g_run.err);
    CHECK_MSG(!shun_err || !strstr(g_run.err, shun_err), "%s: stderr says '%s': %s", what, shun_err, g_run.err);
}

/* Every command that takes --tree refuses both copies, and takes them with
 * --force-tree. */
static void test_mismatch(const char *copy)
{
    char want[1200];
    snprintf(want, sizeof want, "tree %s was built over a different mesh than %s: ", g_tree, copy);
    expect((const char *[]){"render", copy, "--tree", g_tree, "--size", "8x8", "--quiet", "-o", "-", NULL}, 1, want,
           NULL);
    CHECK(strstr(g_run.err, "--force-tree") && strstr(g_run.err, "scankd build"));
    CHECK(g_run.out_bytes == 0);
    expect((const char *[]){"verify", copy, "--tree", g_tree, "--size", "8x8", "--quiet", NULL}, 1, want, NULL);
    expect((const char *[]){"stats", copy, "--tree", g_tree, NULL}, 1, want, NULL);
    expect((const char *[]){"render", copy, "--tree", g_tree, "--force-tree", "--size", "8x8", "-o", "-", NULL}, 0,
           "warning: --force-tree: ", NULL);
    expect((const char *[]){"stats", copy, "--tree", g_tree, "--force-tree", NULL}, 0, "warning: --force-tree: ",
           NULL);
}

/* One header byte flipped: the header is damaged, the file is not short. */
static void test_flipped_header(void)
{
    char bad[512];
    kd_test_tmp_path("tree_files_flipped.kd", bad, sizeof bad);
    FILE *in = fopen(g_tree, "rb"), *out = fopen(bad, "wb");
    int ch, at = 0;
    while ((ch = fgetc(in)) != EOF)
        fputc(at++ == 17 ? ch ^ 0x40 : ch, out); /* the node count's second byte */
    fclose(in);
    fclose(out);
    expect((const char *[]){"stats", g_scene, "--tree", bad, NULL}, 1, "header checksum mismatch", "truncated");
    remove(bad);
}

int main(void)
{
    write_scenes();
    expect((const char *[]){"build", g_scene, "--device", "cpu", "--save", g_tree, "--quiet", NULL}, 0, NULL, NULL);
    expect((const char *[]){"stats", g_scene, "--tree", g_tree, NULL}, 0, NULL, "warning");
    CHECK(strstr(g_run.out, "format version 2, cpu builder"));
    expect((const char *[]){"render", g_scene, "--tree", g_tree, "--size", "8x8", "-o", "-", NULL}, 0, NULL,
           "warning");
    test_mismatch(g_shuffled);
    test_mismatch(g_scaled);
    test_flipped_header();

    /* A folder is a folder; a bad tree is refused before the scene is read. */
    char dir[512], missing[512];
    kd_test_tmp_path("tree_files_dir", dir, sizeof dir);
    kd_test_tmp_path("tree_files_missing.obj", missing, sizeof missing);
    mkdir(dir, 0777);
    expect((const char *[]){"render", g_scene, "--tree", dir, NULL}, 1, "is a directory", "read failed");
    expect((const char *[]){"stats", missing, "--tree", dir, NULL}, 1, "is a directory", "tree_files_missing");
    expect((const char *[]){"verify", missing, "--tree", dir, NULL}, 1, "is a directory", "tree_files_missing");
    rmdir(dir);
    remove(g_scene);
    remove(g_shuffled);
    remove(g_scaled);
    remove(g_tree);
    return kd_test_finish("cli_tree_files");
}
