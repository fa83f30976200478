/* The empty-bonus rule beyond pbrt (min_empty_fraction), in both builders:
 * its threshold, its limits (1 takes the bonus away entirely, like an empty
 * bonus of 0) and its measured effect on the project's curved scenes. */

#include "cpu_build.h"
#include "gpu_build.h"
#include "gpu_build_check.h"
#include "obj_loader.h"
#include "test_support.h"
#include "tree_stats.h"

static double sah_cost(const kd_tree *t)
{
    kd_sah_constants c;
    kd_sah_constants_default(&c);
    kd_tree_stats s;
    kd_tree_compute_stats(t, &c, &s);
    return s.sah_cost;
}

static void test_threshold(void)
{
    /* Node [0, 10]: an empty left side of 1 is 10% of it, 0.5 is not. */
    CHECK(kd_empty_bonus_applies(0.0f, 10.0f, 1.0f, 1, 0.1f));
    CHECK(!kd_empty_bonus_applies(0.0f, 10.0f, 0.5f, 1, 0.1f));
    CHECK(kd_empty_bonus_applies(0.0f, 10.0f, 9.0f, 0, 0.1f));
    CHECK(!kd_empty_bonus_applies(0.0f, 10.0f, 9.5f, 0, 0.1f));
    CHECK(!kd_empty_bonus_applies(0.0f, 10.0f, 9.0f, 1, 0.95f));
    CHECK(kd_empty_bonus_applies(0.0f, 10.0f, 1e-6f, 1, 0.0f)); /* pbrt: any sliver */
    kd_build_params p;
    kd_build_params_default(&p);
    CHECK(p.min_empty_fraction == KD_DEFAULT_MIN_EMPTY_FRACTION);
}

typedef kd_status (*build_fn)(const kd_mesh *, const kd_build_params *, kd_tree *, kd_error *);

static kd_status build_cpu(const kd_mesh *m, const kd_build_params *p, kd_tree *t, kd_error *e)
{
    return kd_build_cpu(m, p, t, NULL, e);
}

static kd_status build_gpu_emulated(const kd_mesh *m, const kd_build_params *p, kd_tree *t,
                                    kd_error *e)
{
    kd_gpu_build_options o;
    kd_gpu_build_options_default(&o);
    o.params = *p;
    return kd_build_gpu_emulated(m, &o, t, NULL, e);
}

static void test_scene(const char *file, build_fn build, const char *who)
{
    char path[1024];
    kd_test_project_scene(file, path, sizeof path);
    kd_mesh mesh;
    kd_error err;
    CHECK_MSG(kd_obj_load_file(path, &mesh, &err) == KD_OK, "%s", err.message);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree pbrt_rule, tenth, never, no_bonus;
    p.min_empty_fraction = 0.0f;
    CHECK(build(&mesh, &p, &pbrt_rule, &err) == KD_OK);
    p.min_empty_fraction = 0.1f;
    CHECK(build(&mesh, &p, &tenth, &err) == KD_OK);
    p.min_empty_fraction = 1.0f; /* no empty side inside the node spans all of it */
    CHECK(build(&mesh, &p, &never, &err) == KD_OK);
    p.min_empty_fraction = 0.0f;
    p.empty_bonus = 0.0f;
    CHECK(build(&mesh, &p, &no_bonus, &err) == KD_OK);

    CHECK_MSG(gb_trees_equal(&never, &no_bonus), "%s %s: fraction 1 is not the same as no bonus",
              who, file);
    CHECK_MSG(!gb_trees_equal(&pbrt_rule, &tenth), "%s %s: the fraction changed nothing", who, file);
    double c0 = sah_cost(&pbrt_rule), c1 = sah_cost(&tenth);
    printf("%s %s: SAH %.3f with pbrt's rule, %.3f with 0.1\n", who, file, c0, c1);
    /* Measured when the rule was chosen (README): better trees on curved
     * surfaces, where pbrt's rule shaves slivers to the depth cap. */
    CHECK_MSG(c1 < c0, "%s %s: SAH %.3f with 0.1, not below %.3f", who, file, c1, c0);
    kd_tree_free(&pbrt_rule);
    kd_tree_free(&tenth);
    kd_tree_free(&never);
    kd_tree_free(&no_bonus);
    kd_mesh_free(&mesh);
}

int main(void)
{
    test_threshold();
    test_scene("torus.obj", build_cpu, "cpu");
    test_scene("icosphere.obj", build_cpu, "cpu");
    test_scene("torus.obj", build_gpu_emulated, "gpu (emulated)");
    test_scene("icosphere.obj", build_gpu_emulated, "gpu (emulated)");
    return kd_test_finish("build_empty_rule");
}
