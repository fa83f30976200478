/* The GPU builder's peak memory (the emulated builder: the same buffers on
 * the host): a fresh builder's peak is at least what it holds after the
 * build and more than its mesh (buffers grow, holding old and new memory a
 * moment); a second build on sized buffers grows nothing, so its peak is
 * what it holds; the one-call build reports a peak too; and a build capped
 * at the uncapped build's peak fits and gives the same tree. */
#include <string.h>

#include "gpu_build.h"
#include "gpu_build_check.h"
#include "test_support.h"

int main(void)
{
    kd_mesh mesh;
    gb_make_scene(&mesh, GB_SCENE_SOUP, 3000, 5);
    kd_gpu_build_options o;
    gb_options(&o, KD_LARGE_SPLIT_SAH);
    kd_gpu_builder *b = NULL;
    kd_error err;
    CHECK(kd_gpu_builder_create(&b, 1, &err) == KD_OK);
    CHECK(kd_gpu_builder_set_mesh(b, &mesh, &err) == KD_OK);
    const size_t mesh_bytes = kd_gpu_builder_device_bytes(b);
    kd_gpu_build_profile first, second;
    CHECK(kd_gpu_builder_build(b, &o, &first, &err) == KD_OK);
    CHECK_MSG(first.peak_device_bytes >= first.device_bytes && first.device_bytes > mesh_bytes,
              "peak %llu, held %llu, mesh %zu", (unsigned long long)first.peak_device_bytes,
              (unsigned long long)first.device_bytes, mesh_bytes);
    CHECK(first.device_bytes == kd_gpu_builder_device_bytes(b));
    CHECK(kd_gpu_builder_build(b, &o, &second, &err) == KD_OK);
    CHECK_MSG(second.peak_device_bytes == second.device_bytes && second.device_bytes == first.device_bytes,
              "second build: peak %llu, held %llu", (unsigned long long)second.peak_device_bytes,
              (unsigned long long)second.device_bytes);
    kd_tree uncapped, capped;
    CHECK(kd_gpu_builder_download(b, &uncapped, &err) == KD_OK);
    kd_gpu_builder_destroy(b);

    kd_gpu_build_profile once;
    o.max_device_bytes = (size_t)first.peak_device_bytes;
    CHECK_MSG(kd_build_gpu_emulated(&mesh, &o, &capped, &once, &err) == KD_OK, "%s", err.message);
    CHECK(once.peak_device_bytes > 0 && once.peak_device_bytes >= once.device_bytes);
    CHECK(gb_trees_equal(&uncapped, &capped));
    kd_tree_free(&uncapped);
    kd_tree_free(&capped);
    kd_mesh_free(&mesh);
    return kd_test_finish("gpu_build_peak");
}
