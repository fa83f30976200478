/* scankd info: what it prints for a good scene (text and JSON), and its exit codes
 * and messages for usage errors, missing files and malformed files. */
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Cheap well-formedness check of JSON text: brackets balance outside strings, no
 * comma before a closing bracket, one top-level object. */
static bool looks_like_json(const char *s)
{
    int depth = 0;
    bool in_string = false;
    char last = 0; /* last non-blank character outside strings */
    while (*s == ' ' || *s == '\n')
        s++;
    if (*s != '{')
        return false;
    for (; *s; s++) {
        char c = *s;
        if (in_string) {
            if (c == '\\' && s[1])
                s++;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (c == '"')
            in_string = true;
        else if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (last == ',' || --depth < 0)
                return false;
            if (depth == 0) {
                for (s++; *s == ' ' || *s == '\n'; s++) {
                }
                return *s == '\0';
            }
        }
        if (c != ' ' && c != '\n')
            last = c;
    }
    return false;
}

int main(void)
{
    char scene[512], bad[512], gz_scene[512], json_path[512], blocker[512];
    kd_test_tmp_path("cli_info_quad.obj", scene, sizeof scene);
    kd_test_tmp_path("cli_info_bad.obj", bad, sizeof bad);
    kd_test_tmp_path("cli_info.json", json_path, sizeof json_path);
    kd_test_tmp_path("cli_info_blocker", blocker, sizeof blocker);
    write_text(scene, "# a unit quad and a degenerate triangle\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                      "f 1 2 3 4\nf 1 1 2\n");
    write_text(bad, "v 0 0 0\nv 1 0 0\n\nv 0 1 zero\nf 1 2 3\n");

    /* Usage errors: exit 2, a reason and a hint on stderr. */
    cli_run(&g_run, (const char *[]){"info", NULL});
    CHECK_MSG(g_run.exit_code == 2, "exit %d", g_run.exit_code);
    CHECK_MSG(strstr(g_run.err, "scankd info: no scene given") && strstr(g_run.err, "--help"), "%s", g_run.err);
    cli_run(&g_run, (const char *[]){"info", scene, "--frob", NULL});
    CHECK(g_run.exit_code == 2 && strstr(g_run.err, "unknown option '--frob'"));
    cli_run(&g_run, (const char *[]){"info", scene, scene, NULL});
    CHECK(g_run.exit_code == 2 && strstr(g_run.err, "more than one scene"));
    cli_run(&g_run, (const char *[]){"info", scene, "--json", NULL});
    CHECK(g_run.exit_code == 2 && strstr(g_run.err, "--json needs a value"));

    /* A missing file: exit 1, the file named on stderr. */
    cli_run(&g_run, (const char *[]){"info", "no_such_scene.obj", NULL});
    CHECK_MSG(g_run.exit_code == 1, "exit %d", g_run.exit_code);
    CHECK_MSG(strstr(g_run.err, "scankd info: no_such_scene.obj: cannot open") != NULL, "%s", g_run.err);
    CHECK(g_run.out[0] == '\0');

    /* A malformed file: exit 1, file:line: reason. */
    cli_run(&g_run, (const char *[]){"info", bad, NULL});
    CHECK_MSG(g_run.exit_code == 1, "exit %d", g_run.exit_code);
    char want[600];
    snprintf(want, sizeof want, "%s:4: malformed number 'zero'", bad);
    CHECK_MSG(strstr(g_run.err, want) != NULL, "stderr '%s' lacks '%s'", g_run.err, want);

    /* The text report. */
    cli_run(&g_run, (const char *[]){"info", scene, NULL});
    CHECK_MSG(g_run.exit_code == 0, "exit %d: %s", g_run.exit_code, g_run.err);
    CHECK(strstr(g_run.out, "vertices        4\n") != NULL);
    CHECK(strstr(g_run.out, "faces read      2\n") != NULL);
    CHECK(strstr(g_run.out, "triangles read  3\n") != NULL);
    CHECK(strstr(g_run.out, "dropped         1 (0 with a NaN/infinite coordinate, 1 with zero area)") != NULL);
    CHECK(strstr(g_run.out, "triangles       2\n") != NULL);
    CHECK(strstr(g_run.out, "bounds          [0, 0, 0] .. [1, 1, 0]") != NULL);
    CHECK(strstr(g_run.out, "MB/s") != NULL);
    CHECK_MSG(g_run.err[0] == '\0', "stderr: %s", g_run.err);

    /* JSON on stdout: only JSON there. */
    cli_run(&g_run, (const char *[]){"info", scene, "--json", "-", NULL});
    CHECK_MSG(g_run.exit_code == 0, "exit %d: %s", g_run.exit_code, g_run.err);
    CHECK_MSG(looks_like_json(g_run.out), "not JSON: %s", g_run.out);
    CHECK(strstr(g_run.out, "\"triangles\": 2") != NULL);
    CHECK(strstr(g_run.out, "\"triangles_read\": 3") != NULL);
    CHECK(strstr(g_run.out, "\"dropped_zero_area\": 1") != NULL);
    CHECK(strstr(g_run.out, "\"vertices\": 4") != NULL);

    /* JSON to a file: the text report still goes to stdout. */
    remove(json_path);
    cli_run(&g_run, (const char *[]){"info", scene, "--json", json_path, NULL});
    CHECK(g_run.exit_code == 0 && strstr(g_run.out, "triangles       2\n"));
    static char json[65536];
    cli_read_file(json_path, json, sizeof json);
    CHECK_MSG(looks_like_json(json) && strstr(json, "\"triangles\": 2"), "file holds: %s", json);
    remove(json_path);

    /* A JSON file that cannot be written: exit 1, and no file left behind. */
    write_text(blocker, "a file, not a directory\n");
    char blocked[600];
    snprintf(blocked, sizeof blocked, "%s/out.json", blocker);
    cli_run(&g_run, (const char *[]){"info", scene, "--json", blocked, NULL});
    CHECK_MSG(g_run.exit_code == 1, "exit %d", g_run.exit_code);
    CHECK_MSG(strstr(g_run.err, "scankd info:") != NULL, "%s", g_run.err);
    remove(blocker);

#ifdef KD_HAVE_ZLIB
    /* A gzip-compressed scene is read directly. */
    kd_test_tmp_path("cli_info_quad.obj.gz", gz_scene, sizeof gz_scene);
    char command[1200];
    snprintf(command, sizeof command, "gzip -c '%s' > '%s'", scene, gz_scene);
    if (system(command) == 0) {
        cli_run(&g_run, (const char *[]){"info", gz_scene, "--json", "-", NULL});
        CHECK_MSG(g_run.exit_code == 0, "exit %d: %s", g_run.exit_code, g_run.err);
        CHECK(strstr(g_run.out, "\"compressed\": true") && strstr(g_run.out, "\"triangles\": 2"));
        remove(gz_scene);
    }
#else
    (void)gz_scene;
#endif
    remove(scene);
    remove(bad);
    return kd_test_finish("cli_info");
}
