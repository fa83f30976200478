/* Fuzz target: the loaders' way in from bytes: gzip recognised and decompressed
 * (members, trailers, trailing bytes), the format chosen, OBJ or PLY loaded;
 * through the default window and a small one. */
#include "fuzz_common.h"
#include "mesh_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20))
        return 0;
    kd_mesh a, b;
    kd_mesh_load_info ia, ib;
    kd_error ea, eb;
    kd_status sa = kd_mesh_load_memory_blocks(data, size, "f.gz", 0, &a, &ia, &ea);
    kd_status sb = kd_mesh_load_memory_blocks(data, size, "f.gz", fuzz_small_window(data, size), &b, &ib, &eb);
    fuzz_check_same(sa, &a, &ea, ia.warning, sb, &b, &eb, ib.warning);
    FUZZ_ASSERT(ia.format == ib.format && ia.compressed == ib.compressed, "load info differs");
    FUZZ_ASSERT(sa != KD_OK || ia.text_bytes == ib.text_bytes, "text bytes %llu vs %llu",
                (unsigned long long)ia.text_bytes, (unsigned long long)ib.text_bytes);
    kd_mesh_free(&a);
    kd_mesh_free(&b);
    return 0;
}
