/* Batched builds on the device (gpu_build_batch.c runs them emulated): a
 * build in batches of the hand-over level's nodes, and one capped below its
 * unbatched peak, give the emulated unbatched tree byte for byte, and the
 * capped one stays under its cap. Exit 77 without a device. */
#include <stdio.h>
#include <string.h>

#include "gpu_build.h"
#include "gpu_build_check.h"
#include "kd_primitives.h"
#include "test_support.h"

/* The device's tree with these options equals want; returns its batches. */
static uint32_t check_device(const char *what, const kd_mesh *mesh, const kd_gpu_build_options *o,
                             const kd_tree *want)
{
    kd_tree got;
    kd_gpu_build_profile prof;
    kd_error err;
    memset(&got, 0, sizeof got);
    if (kd_build_gpu(mesh, o, &got, &prof, &err) != KD_OK) {
        CHECK_MSG(0, "%s: %s", what, err.message);
        return 0;
    }
    CHECK_MSG(gb_trees_equal(want, &got), "%s: the device's tree is not the emulated one", what);
    CHECK_MSG(!o->max_device_bytes || prof.peak_device_bytes <= o->max_device_bytes, "%s: peak %llu over %zu",
              what, (unsigned long long)prof.peak_device_bytes, o->max_device_bytes);
    kd_tree_free(&got);
    return prof.num_batches;
}

int main(void)
{
    if (kd_cuda_device_count() == 0) {
        printf("gpu_build_batch_device: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, gb_quick() ? 20000 : 60000, 11);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_tree whole;
    kd_gpu_build_profile prof;
    kd_error err;
    CHECK(kd_build_gpu_emulated(&mesh, &o, &whole, &prof, &err) == KD_OK);
    o.hooks.batch_refs = prof.num_handover_refs / 5 + 1;
    CHECK(check_device("batches of a fifth", &mesh, &o, &whole) >= 5);
    o.hooks.batch_refs = 1;
    CHECK(check_device("a node a batch", &mesh, &o, &whole) >= 8);
    o.hooks.batch_refs = 0;
    o.max_device_bytes = (size_t)prof.peak_device_bytes / 10 * 8;
    CHECK(check_device("capped at 0.8 of the peak", &mesh, &o, &whole) >= 2);
    o.max_device_bytes = (size_t)prof.peak_device_bytes / 10 * 6;
    CHECK(check_device("capped at 0.6 of the peak", &mesh, &o, &whole) >= 2);
    kd_tree_free(&whole);
    kd_mesh_free(&mesh);
    return kd_test_finish("gpu_build_batch_device");
}
