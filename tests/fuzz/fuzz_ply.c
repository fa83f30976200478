/* Fuzz target: the PLY loader from memory (ASCII and binary), through the default
 * window and a small one; with small limits now and then. */
#include "fuzz_common.h"
#include "ply_loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    kd_obj_limits limits = kd_obj_default_limits();
    if (size % 8 == 7)
        limits = (kd_obj_limits){8, 8};
    kd_mesh a, b;
    kd_error ea, eb;
    char wa[256], wb[256];
    kd_status sa = kd_ply_load_memory_blocks(data, size, "f.ply", limits, 0, &a, &ea, wa, sizeof wa);
    kd_status sb = kd_ply_load_memory_blocks(data, size, "f.ply", limits, fuzz_small_window(data, size), &b, &eb, wb,
                                             sizeof wb);
    fuzz_check_same(sa, &a, &ea, wa, sb, &b, &eb, wb);
    kd_mesh_free(&a);
    kd_mesh_free(&b);
    return 0;
}
