/* The GPU builder's peak memory per triangle (the emulated builder: the
 * same buffers as the device's) on generated scenes stays under a bound
 * that the builder exceeded while its small stage kept every wave's tasks
 * and member bounds in arrays of its own, and the output stage had arrays
 * of its own (docs/performance.md, "Device memory per triangle"). The
 * buffers' listing at the peak adds up to the peak, largest first, and
 * names neither of the tree's arrays; a rebuild over the sized and lent
 * buffers gives the same tree, a right one. */
#include <string.h>

#include "gpu_build_check.h"
#include "gpu_build_internal.h"
#include "test_support.h"

/* bound: bytes a triangle the peak may reach, between what the builder
 * needed before (soup 5982, slivers 10474; with all tasks kept, 3559 and
 * 6397; with the small stage's arrays apart, 2868 and 4354; with the tree's
 * arrays apart, 2376 and 4120; with the small references sized by each
 * level's whole output, 2083 and 3900) and what it needs now (2051 and
 * 3863), so that a return of any old sizing fails. */
static void check_scene(gb_scene_kind kind, uint32_t n, double bound)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, kind, n, 7);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_gpu_builder *b = NULL;
    kd_error err;
    kd_gpu_build_profile prof;
    CHECK(kd_gpu_builder_create(&b, 1, &err) == KD_OK);
    CHECK(kd_gpu_builder_set_mesh(b, &mesh, &err) == KD_OK);
    CHECK_MSG(kd_gpu_builder_build(b, &o, &prof, &err) == KD_OK, "%s", err.message);
    const double per_tri = (double)prof.peak_device_bytes / (double)n;
    printf("%s, %u triangles: peak %.0f B/tri, %u small roots, %u small retries\n", gb_scene_name(kind), n,
           per_tri, prof.num_small_roots, prof.num_small_retries);
    CHECK(prof.num_small_roots > 0); /* the small stage ran: its arrays are the bulk */
    CHECK_MSG(per_tri <= bound, "%s: peak %.0f B/tri, over %.0f", gb_scene_name(kind), per_tri, bound);

    kd_gb_buffer_bytes bufs[64];
    const size_t count = kd_gb_peak_buffers(b, bufs, sizeof bufs / sizeof bufs[0]);
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) {
        if (i < 6)
            printf("  %-12s %7.0f B/tri\n", bufs[i].name, (double)bufs[i].bytes / (double)n);
        sum += bufs[i].bytes;
        CHECK(i == 0 || bufs[i].bytes <= bufs[i - 1].bytes);
    }
    CHECK_MSG(sum == prof.peak_device_bytes, "listing %llu bytes, peak %llu", (unsigned long long)sum,
              (unsigned long long)prof.peak_device_bytes);
    /* The tree's arrays lie in the earlier stages' dead memory, which has
     * room for them here: they hold none of their own. */
    for (size_t i = 0; i < count; i++)
        CHECK_MSG(strcmp(bufs[i].name, "nodes_out") != 0 && strcmp(bufs[i].name, "leaf_out") != 0,
                  "%s: %s holds memory of its own", gb_scene_name(kind), bufs[i].name);

    /* The same builder, rebuilt over its sized (and lent) buffers, gives
     * the same tree, a right one. */
    kd_tree first, again;
    CHECK(kd_gpu_builder_download(b, &first, &err) == KD_OK);
    CHECK(kd_gpu_builder_build(b, &o, &prof, &err) == KD_OK);
    CHECK(kd_gpu_builder_download(b, &again, &err) == KD_OK);
    CHECK(gb_trees_equal(&first, &again));
    gb_check_tree(gb_scene_name(kind), &mesh, &first, 2000);
    kd_tree_free(&first);
    kd_tree_free(&again);
    kd_gpu_builder_destroy(b);
    kd_mesh_free(&mesh);
}

int main(void)
{
    check_scene(GB_SCENE_SOUP, 20000, 2075.0);
    check_scene(GB_SCENE_SLIVERS, 20000, 3890.0);
    return kd_test_finish("gpu_build_peak_bound");
}
