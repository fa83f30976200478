/* --view and --ray-kind end to end: the inside view of a closed room sees walls
 * in (nearly) every pixel where the default view sees the box from outside;
 * a view from a views.txt beside the scene; an unknown view lists the
 * scene's views and fails before any work (exit 2); render --ray-kind diffuse
 * reports the bounce rays apart; verify checks the bounces against brute
 * force; bench gives diffuse rays per second and the view in its outputs;
 * demo passes --view on. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_run.h"
#include "json_check.h"
#include "test_support.h"

static char g_room[600], g_dir[512];
static cli_result g_run;

static void run(const char *const *args) { cli_run(&g_run, args); }

/* A closed 10 x 4 x 6 room with a pillar through its centre, as an OBJ, and
 * a views.txt beside it. */
static void write_room(void)
{
    kd_test_tmp_path("views_cli", g_dir, sizeof g_dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_dir);
    CHECK(system(cmd) == 0);
    snprintf(g_room, sizeof g_room, "%s/room.obj", g_dir);
    FILE *f = fopen(g_room, "w");
    const float boxes[2][2][3] = {{{0, 0, 0}, {10, 4, 6}}, {{4.5f, 0, 2.5f}, {5.5f, 4, 3.5f}}};
    static const int faces[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (int b = 0; b < 2; b++) {
        for (int c = 0; c < 8; c++)
            fprintf(f, "v %g %g %g\n", boxes[b][(c >> 2) & 1][0], boxes[b][(c >> 1) & 1][1], boxes[b][c & 1][2]);
        for (int q = 0; q < 6; q++)
            fprintf(f, "f %d %d %d %d\n", 8 * b + faces[q][0] + 1, 8 * b + faces[q][1] + 1, 8 * b + faces[q][2] + 1,
                    8 * b + faces[q][3] + 1);
    }
    fclose(f);
    char views[600];
    snprintf(views, sizeof views, "%s/views.txt", g_dir);
    f = fopen(views, "w");
    fputs("# the room's views\nroom door eye 1,2,1 look 9,2,5\n", f);
    fclose(f);
}

static double hit_fraction(const char *view)
{
    run((const char *[]){"render", g_room, "--device", "cpu", "--size", "48x32", "--view", view, "-o",
                         "/dev/null", "--json", "-", NULL});
    CHECK_MSG(g_run.exit_code == 0 && json_is_valid(g_run.out), "render --view %s: %s", view, g_run.err);
    return json_number_at(g_run.out, "hits") / json_number_at(g_run.out, "rays");
}

static void test_views(void)
{
    CHECK_MSG(hit_fraction("inside") > 0.9, "inside: %s", g_run.out);
    CHECK(strstr(g_run.out, "\"view\": \"inside\"") != NULL);
    CHECK(hit_fraction("default") < 0.9); /* the box from outside, with sky around it */
    run((const char *[]){"render", g_room, "--device", "cpu", "--size", "16x16", "--view", "door", "-o",
                         "/dev/null", NULL});
    CHECK_MSG(g_run.exit_code == 0 && strstr(g_run.out, "eye 1,2,1 look 9,2,5"), "%s%s", g_run.out, g_run.err);
    const char *commands[] = {"render", "verify", "bench"};
    for (int c = 0; c < 3; c++) {
        run((const char *[]){commands[c], g_room, "--device", "cpu", "--view", "attic", NULL});
        CHECK_MSG(g_run.exit_code == 2 && strstr(g_run.err, "attic") && strstr(g_run.err, "inside") &&
                      strstr(g_run.err, "door") && !strstr(g_run.err, "loading"),
                  "%s --view attic: %d %s", commands[c], g_run.exit_code, g_run.err);
    }
}

static void test_rays(void)
{
    run((const char *[]){"render", g_room, "--device", "cpu", "--size", "32x24", "--view", "inside", "--ray-kind",
                         "diffuse", "-o", "/dev/null", NULL});
    CHECK_MSG(g_run.exit_code == 0 && strstr(g_run.out, "diffuse     768 bounce rays"), "%s%s", g_run.out,
              g_run.err);
    run((const char *[]){"render", g_room, "--device", "cpu", "--size", "32x24", "--ray-kind", "diffuse", "-o",
                         "/dev/null", "--json", "-", NULL});
    const char *diffuse = strstr(g_run.out, "\"diffuse\"");
    CHECK_MSG(diffuse && json_number_at(diffuse, "seed") == 1 &&
                  json_number_at(diffuse, "rays") == json_number_at(g_run.out, "hits") &&
                  json_number_at(diffuse, "rays_per_second") > 0,
              "%s", g_run.out);
    run((const char *[]){"render", g_room, "--ray-kind", "sideways", NULL});
    CHECK(g_run.exit_code == 2 && strstr(g_run.err, "primary or diffuse"));
    run((const char *[]){"verify", g_room, "--device", "cpu", "--size", "32x24", "--view", "inside", NULL});
    CHECK_MSG(g_run.exit_code == 0 && strstr(g_run.out, "bounces     PASS  768 diffuse bounce rays"), "%s%s",
              g_run.out, g_run.err);
}

static void test_bench_and_demo(void)
{
    run((const char *[]){"bench", g_room, "--device", "cpu", "--repeats", "1", "--size", "8x8", "--view", "inside",
                         "--csv", "-", NULL});
    CHECK_MSG(g_run.exit_code == 0 && strstr(g_run.out, ",cpu_tree_rays_per_second,diffuse_rays_per_second,view\n") &&
                  strstr(g_run.out, ",inside\n"),
              "%s%s", g_run.out, g_run.err);
    run((const char *[]){"bench", g_room, "--device", "cpu", "--repeats", "1", "--size", "8x8", "--json", "-",
                         NULL});
    CHECK_MSG(json_number_at(g_run.out, "diffuse_rays_per_second") > 0 && strstr(g_run.out, "\"view\": \"default\""),
              "%s", g_run.out);
    run((const char *[]){"bench", g_room, "--device", "cpu", "--repeats", "1", "--size", "8x8", NULL});
    CHECK(strstr(g_run.out, " diffuse ") != NULL);
    char out_dir[600];
    snprintf(out_dir, sizeof out_dir, "%s/demo", g_dir);
    run((const char *[]){"demo", g_room, "--device", "cpu", "--view", "inside", "--out-dir", out_dir, NULL});
    CHECK_MSG(g_run.exit_code == 0 && strstr(g_run.out, "fov 65"), "%s%s", g_run.out, g_run.err);
}

int main(void)
{
    write_room();
    test_views();
    test_rays();
    test_bench_and_demo();
    return kd_test_finish("views_cli");
}
