/* PNG files: a write/read round trip is byte exact, and failed writes leave
 * neither the file nor its temporary behind. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb_image.h>

#include "image.h"
#include "test_support.h"

/* Any entry in dir whose name starts with prefix (the file or a temporary). */
static bool leftover(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            found = true;
    closedir(d);
    return found;
}

static void fill_pattern(kd_image *img)
{
    uint32_t state = 12345u;
    for (size_t i = 0; i < (size_t)img->width * img->height * 3; i++) {
        state = state * 1664525u + 1013904223u;
        img->rgb[i] = (uint8_t)(state >> 24);
    }
}

static void test_round_trip(void)
{
    kd_error err;
    kd_image img, back;
    CHECK(kd_image_create(&img, 37, 23, &err) == KD_OK); /* odd sizes: no row padding games */
    fill_pattern(&img);
    char path[512];
    kd_test_tmp_path("image_png/round_trip.png", path, sizeof path);
    remove(path);
    CHECK_MSG(kd_image_write_png(&img, path, &err) == KD_OK, "%s", err.message);

    /* Straight through stb_image, as the brief asks... */
    int w = 0, h = 0, channels = 0;
    unsigned char *raw = stbi_load(path, &w, &h, &channels, 0);
    CHECK(raw != NULL);
    CHECK(w == 37 && h == 23 && channels == 3);
    if (raw)
        CHECK(memcmp(raw, img.rgb, 37 * 23 * 3) == 0);
    stbi_image_free(raw);

    /* ...and through our reader. */
    CHECK_MSG(kd_image_read_png(&back, path, &err) == KD_OK, "%s", err.message);
    CHECK(back.width == 37 && back.height == 23);
    CHECK(back.rgb && memcmp(back.rgb, img.rgb, 37 * 23 * 3) == 0);
    kd_image_free(&back);
    char dir[512];
    kd_test_tmp_path("image_png", dir, sizeof dir);
    CHECK(!leftover(dir, "round_trip.png.tmp"));

    /* Overwriting an existing file works and replaces it whole. */
    kd_image_set(&img, 0, 0, 1, 2, 3);
    CHECK(kd_image_write_png(&img, path, &err) == KD_OK);
    CHECK(kd_image_read_png(&back, path, &err) == KD_OK);
    CHECK(back.rgb && back.rgb[0] == 1 && back.rgb[1] == 2 && back.rgb[2] == 3);
    kd_image_free(&back);
    kd_image_free(&img);
}

static void test_failed_writes(void)
{
    kd_error err;
    kd_image img;
    CHECK(kd_image_create(&img, 8, 8, &err) == KD_OK);
    char dir[512], path[600];
    kd_test_tmp_path("image_png_fail", dir, sizeof dir);
    mkdir(dir, 0777);

    /* The parent "folder" is a regular file: fails before writing anything. */
    snprintf(path, sizeof path, "%s/plain_file", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/plain_file/out.png", dir);
    kd_error_clear(&err);
    CHECK(kd_image_write_png(&img, path, &err) == KD_ERR_IO);
    CHECK(err.message[0] != '\0');
    CHECK(strstr(err.message, "plain_file") != NULL);

    /* The target is a directory: the temporary is written, the rename fails,
     * and the temporary must be gone afterwards. */
    snprintf(path, sizeof path, "%s/a_directory.png", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/a_directory.png/keep", dir);
    f = fopen(path, "w"); /* non-empty, so rename cannot replace it */
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/a_directory.png", dir);
    kd_error_clear(&err);
    CHECK(kd_image_write_png(&img, path, &err) == KD_ERR_IO);
    CHECK(strstr(err.message, "a_directory.png") != NULL);
    CHECK(!leftover(dir, "a_directory.png.tmp"));

    /* Nothing named out.png anywhere we tried. */
    CHECK(!leftover(dir, "out.png"));

    /* Folders two levels deep that do not exist are made, as mkdir -p does. */
    snprintf(path, sizeof path, "%s/missing/deeper/made.png", dir);
    kd_error_clear(&err);
    CHECK_MSG(kd_image_write_png(&img, path, &err) == KD_OK, "%s", err.message);
    struct stat made;
    CHECK(stat(path, &made) == 0 && S_ISREG(made.st_mode));
    kd_image_free(&img);

    /* An empty image is refused. */
    kd_image empty = {0, 0, NULL};
    snprintf(path, sizeof path, "%s/empty.png", dir);
    CHECK(kd_image_write_png(&empty, path, &err) == KD_ERR_INVALID);
    CHECK(!leftover(dir, "empty.png"));
}

static void test_bad_reads_and_sizes(void)
{
    kd_error err;
    kd_image img;
    char path[512];
    kd_test_tmp_path("image_png/does_not_exist.png", path, sizeof path);
    CHECK(kd_image_read_png(&img, path, &err) == KD_ERR_IO);
    CHECK(img.rgb == NULL && img.width == 0);
    CHECK(strstr(err.message, "does_not_exist.png") != NULL);

    kd_test_tmp_path("image_png/not_a_png.png", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("this is not a PNG file\n", f);
        fclose(f);
    }
    CHECK(kd_image_read_png(&img, path, &err) == KD_ERR_PARSE);
    CHECK(img.rgb == NULL);

    CHECK(kd_image_create(&img, 0, 5, &err) == KD_ERR_INVALID);
    CHECK(kd_image_create(&img, 5, -1, &err) == KD_ERR_INVALID);
    CHECK(kd_image_create(&img, KD_IMAGE_MAX_SIDE + 1, 1, &err) == KD_ERR_INVALID);
    CHECK(img.rgb == NULL);

    /* Pixel access clips instead of writing outside. */
    CHECK(kd_image_create(&img, 2, 2, &err) == KD_OK);
    kd_image_set(&img, -1, 0, 9, 9, 9);
    kd_image_set(&img, 2, 1, 9, 9, 9);
    kd_image_fill_rect(&img, -5, -5, 6, 6, (kd_rgb){7, 7, 7});
    CHECK(img.rgb[0] == 7 && img.rgb[3] == 0 && img.rgb[6] == 0 && img.rgb[9] == 0);
    kd_rgb outside = kd_image_get(&img, 5, 5);
    CHECK(outside.r == 0 && outside.g == 0 && outside.b == 0);
    kd_image_blend(&img, 1, 1, (kd_rgb){200, 100, 0}, 0.5f);
    kd_rgb mixed = kd_image_get(&img, 1, 1);
    CHECK(mixed.r == 100 && mixed.g == 50 && mixed.b == 0);
    kd_image_free(&img);
    kd_image_free(&img); /* safe twice */
}

int main(void)
{
    char dir[512];
    kd_test_tmp_path("image_png", dir, sizeof dir);
    mkdir(dir, 0777);
    test_round_trip();
    test_failed_writes();
    test_bad_reads_and_sizes();
    return kd_test_finish("image_png");
}
