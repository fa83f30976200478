/* The one file that holds the stb implementations: stb_image_write for PNG and
 * JPEG output, and stb_image (PNG only) for reading images back in tests and
 * for 'verify --compare ref.png'. */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb_image.h>
