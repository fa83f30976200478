/* The public header on its own: compiled as C11 and as C++ with only the
 * installed include folder (no CUDA toolkit) by embed_install.cmake. */
#include <scankd/scankd.h>

int main(void)
{
    scankd_build_options opts;
    scankd_build_options_default(&opts);
    scankd_ray ray = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 1.0f}, 1.0f};
    scankd_stream stream = 0;
    (void)ray, (void)stream;
    return opts.device == SCANKD_DEVICE_AUTO ? 0 : 1;
}
