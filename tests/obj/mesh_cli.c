/* The loaders through the scankd executable: convert (OBJ to PLY in each format and
 * back, refused names), info on PLY, on a pipe (the bytes read, not 0), on a cut
 * file (a warning on stderr), on binary data and on a corrupt gzip file (messages
 * naming the file). */
#include "cli_run.h"

static cli_result g_run;

static void write_bytes(const char *path, const char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f && fwrite(data, 1, size, f) == size, "cannot write %s", path);
    if (f)
        fclose(f);
}

static void run(const char *const *args, int want_exit)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == want_exit, "%s: exit %d, want %d: %s", cli_describe(args), g_run.exit_code,
              want_exit, g_run.err);
}

static void test_convert(const char *scene)
{
    static const char *const formats[] = {"ply", "ply-be", "ply-ascii", "obj"};
    char out[512];
    for (int f = 0; f < 4; f++) {
        kd_test_tmp_path(f == 3 ? "mesh_cli_out.obj" : "mesh_cli_out.ply", out, sizeof out);
        run((const char *[]){"convert", scene, out, "--format", formats[f], NULL}, 0);
        CHECK_MSG(strstr(g_run.out, "40 vertices, 32 triangles") != NULL, "%s", g_run.out);
        run((const char *[]){"info", out, "--json", "-", NULL}, 0);
        CHECK_MSG(strstr(g_run.out, "\"triangles\": 32") && strstr(g_run.out, "\"vertices\": 40"), "%s: %s",
                  formats[f], g_run.out);
        remove(out);
    }
    kd_test_tmp_path("mesh_cli_out.xyz", out, sizeof out);
    run((const char *[]){"convert", scene, out, NULL}, 2);
    CHECK_MSG(strstr(g_run.err, "name it .ply or .obj") != NULL, "%s", g_run.err);
    run((const char *[]){"convert", scene, NULL}, 2);
    run((const char *[]){"convert", scene, out, "--format", "stl", NULL}, 2);
    kd_test_tmp_path("mesh_cli_missing.obj", out, sizeof out);
    run((const char *[]){"convert", out, "x.ply", NULL}, 1);
    CHECK_MSG(strstr(g_run.err, "cannot open") != NULL, "%s", g_run.err);
    /* An output that cannot be written fails before the scene is read. */
    char blocked[600];
    snprintf(blocked, sizeof blocked, "%s/x.ply", scene); /* under a file, not a folder */
    run((const char *[]){"convert", out, blocked, NULL}, 1);
    CHECK_MSG(strstr(g_run.err, "cannot write") && !strstr(g_run.err, "cannot open"), "%s", g_run.err);
    /* '-' is stdout, carrying the PLY alone. */
    run((const char *[]){"convert", scene, "-", "--format", "ply-ascii", NULL}, 0);
    CHECK_MSG(strncmp(g_run.out, "ply\nformat ascii 1.0\n", 21) == 0, "%s", g_run.out);
}

static void test_info_messages(const char *scene)
{
    char path[512], command[2048], json[512];
    /* A pipe: the bytes read are the size reported. */
    kd_test_tmp_path("mesh_cli_pipe.json", json, sizeof json);
    snprintf(command, sizeof command, "cat '%s' | '%s' info /dev/stdin --json - > '%s'", scene, KD_SCANKD_EXE, json);
    CHECK(system(command) == 0);
    cli_read_file(json, g_run.out, sizeof g_run.out);
    CHECK_MSG(strstr(g_run.out, "\"file_bytes\": 1268") != NULL, "%s", g_run.out);
    remove(json);
    /* A cut file: loaded, with a warning. */
    kd_test_tmp_path("mesh_cli_cut.obj", path, sizeof path);
    static const char cut[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2";
    write_bytes(path, cut, sizeof cut - 1);
    run((const char *[]){"info", path, NULL}, 1);
    CHECK_MSG(strstr(g_run.err, ":5: face has 2 vertices (needs at least 3) (line 5 is the last and has no line end: "
                                "was the file cut off?)") != NULL,
              "%s", g_run.err);
    static const char whole[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 3 2 1";
    write_bytes(path, whole, sizeof whole - 1);
    run((const char *[]){"info", path, NULL}, 0);
    CHECK_MSG(strstr(g_run.err, "scankd info: warning: ") && strstr(g_run.err, ":5: the last line has no line end"),
              "%s", g_run.err);
    /* Binary data, and gzip data that is not a deflate stream. */
    write_bytes(path, "SCANKDT\0\1\0\0\0", 12);
    run((const char *[]){"info", path, NULL}, 1);
    CHECK_MSG(strstr(g_run.err, "not an OBJ file (binary data at byte 7)") != NULL, "%s", g_run.err);
#ifdef KD_HAVE_ZLIB
    write_bytes(path, "\x1f\x8b\x08\x00\0\0\0\0\0\x03\xff\xff\xff\xff", 14);
    run((const char *[]){"info", path, NULL}, 1);
    CHECK_MSG(strstr(g_run.err, path) && strstr(g_run.err, "corrupt gzip data near byte") &&
                  !strstr(g_run.err, "<fd:"),
              "%s", g_run.err);
#endif
    remove(path);
}

int main(void)
{
    char scene[512];
    kd_test_project_scene("cornell_box.obj", scene, sizeof scene);
    test_convert(scene);
    test_info_messages(scene);
    return kd_test_finish("mesh_cli");
}
