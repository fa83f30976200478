/* OBJ loader on files: plain (small: read; large: mapped), gzip (by content, not by
 * name), corrupt or truncated gzip, missing files, directories, empty files, and the
 * sizes kd_obj_load_file_ex reports. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef KD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "obj_test_util.h"

static void write_file(const char *path, const char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    CHECK(fwrite(data, 1, size, f) == size);
    fclose(f);
}

/* A mesh of n triangles as OBJ text (each with its own three vertices). */
static char *make_text(int n, bool final_newline, size_t *size)
{
    size_t cap = (size_t)n * 120 + 64, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "v %d 0 0\nv %d 1 0\nv %d 0 1.5\nf %d %d %d\n", i, i,
                                i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
    if (!final_newline)
        text[--len] = '\0';
    *size = len;
    return text;
}

static bool same_mesh(const kd_mesh *a, const kd_mesh *b)
{
    return a->num_vertices == b->num_vertices && a->num_triangles == b->num_triangles &&
           a->num_triangles_read == b->num_triangles_read &&
           memcmp(a->positions, b->positions, 12 * (size_t)a->num_vertices) == 0 &&
           memcmp(a->indices, b->indices, 12 * (size_t)a->num_triangles) == 0;
}

/* The file loader gives what the memory loader gives, for small (read) and large
 * (mapped) files, with and without a final newline. */
static void test_plain_files(void)
{
    const int sizes[] = {1, 100, 40000}; /* 40000 triangles is about 1.5 MB: mapped */
    for (int s = 0; s < 3; s++) {
        for (int nl = 0; nl < 2; nl++) {
            size_t size;
            char *text = make_text(sizes[s], nl == 1, &size);
            char path[512];
            kd_test_tmp_path("obj_files_plain.obj", path, sizeof path);
            write_file(path, text, size);
            kd_mesh from_file, from_memory;
            kd_error err;
            kd_obj_file_info info;
            CHECK_MSG(kd_obj_load_file_ex(path, &from_file, &info, &err) == KD_OK, "%s", err.message);
            CHECK(kd_obj_load_memory(text, size, "mem", &from_memory, &err) == KD_OK);
            CHECK_MSG(same_mesh(&from_file, &from_memory), "%d triangles, newline %d", sizes[s], nl);
            CHECK(from_file.num_triangles == (uint32_t)sizes[s]);
            CHECK(info.file_bytes == size && info.text_bytes == size && !info.compressed);
            kd_mesh_free(&from_file);
            kd_mesh_free(&from_memory);
            /* An error in the file names the path and the line. */
            char *bad = malloc(size + 32);
            memcpy(bad, text, size);
            size_t bad_size = size + (size_t)sprintf(bad + size, "%sv 1 2 oops\n", nl ? "" : "\n");
            write_file(path, bad, bad_size);
            kd_mesh mesh;
            CHECK(kd_obj_load_file(path, &mesh, &err) == KD_ERR_PARSE);
            char want[600];
            snprintf(want, sizeof want, "%s:%d: malformed number 'oops'", path, 4 * sizes[s] + 1);
            CHECK_MSG(strcmp(err.message, want) == 0, "'%s', want '%s'", err.message, want);
            CHECK(obj_mesh_is_zeroed(&mesh));
            free(bad);
            free(text);
            remove(path);
        }
    }
}

static void test_missing_and_special_files(void)
{
    kd_mesh mesh;
    kd_error err;
    char path[512];
    kd_test_tmp_path("obj_files_does_not_exist.obj", path, sizeof path);
    remove(path);
    CHECK(kd_obj_load_file(path, &mesh, &err) == KD_ERR_IO);
    CHECK_MSG(strstr(err.message, path) && strstr(err.message, "cannot open"), "%s", err.message);
    CHECK(obj_mesh_is_zeroed(&mesh));

    kd_test_tmp_path("obj_files_dir.obj", path, sizeof path);
    mkdir(path, 0777);
    CHECK(kd_obj_load_file(path, &mesh, &err) == KD_ERR_IO);
    CHECK_MSG(strstr(err.message, "is a directory") != NULL, "%s", err.message);
    rmdir(path);

    kd_test_tmp_path("obj_files_empty.obj", path, sizeof path);
    write_file(path, "", 0);
    CHECK(kd_obj_load_file(path, &mesh, &err) == KD_ERR_PARSE);
    CHECK_MSG(strstr(err.message, "file is empty") != NULL, "%s", err.message);
    remove(path);
}

static void test_gzip(void)
{
    size_t size;
    char *text = make_text(3000, true, &size);
    char path[512];
    /* A gzip file without a .gz name: recognised by its magic bytes. */
    kd_test_tmp_path("obj_files_zipped.obj", path, sizeof path);
#ifdef KD_HAVE_ZLIB
    gzFile gz = gzopen(path, "wb9");
    CHECK(gz != NULL);
    if (!gz)
        return;
    /* Two gzip members back to back, as `cat a.gz b.gz` makes. */
    CHECK(gzwrite(gz, text, (unsigned)(size / 2)) == (int)(size / 2));
    gzclose(gz);
    gz = gzopen(path, "ab9");
    CHECK(gzwrite(gz, text + size / 2, (unsigned)(size - size / 2)) == (int)(size - size / 2));
    gzclose(gz);
    kd_mesh zipped, plain;
    kd_error err;
    kd_obj_file_info info;
    CHECK_MSG(kd_obj_load_file_ex(path, &zipped, &info, &err) == KD_OK, "%s", err.message);
    CHECK(kd_obj_load_memory(text, size, "mem", &plain, &err) == KD_OK);
    CHECK(same_mesh(&zipped, &plain));
    CHECK(info.compressed && info.text_bytes == size && info.file_bytes > 0 && info.file_bytes < size);
    kd_mesh_free(&zipped);
    kd_mesh_free(&plain);

    /* Truncated: the last bytes cut off. */
    FILE *f = fopen(path, "rb");
    char *bytes = malloc(size);
    size_t got = fread(bytes, 1, size, f);
    fclose(f);
    write_file(path, bytes, got / 2);
    CHECK(kd_obj_load_file(path, &zipped, &err) == KD_ERR_IO);
    CHECK_MSG(strstr(err.message, "gzip") != NULL, "%s", err.message);
    CHECK(obj_mesh_is_zeroed(&zipped));
    /* Corrupt: gzip magic, then garbage. */
    memset(bytes + 10, 0xa5, got - 10);
    write_file(path, bytes, got);
    CHECK(kd_obj_load_file(path, &zipped, &err) == KD_ERR_IO);
    CHECK_MSG(strstr(err.message, "gzip") != NULL, "%s", err.message);
    free(bytes);
#else
    /* Without zlib a gzip file is refused with advice. */
    static const unsigned char magic[] = {0x1f, 0x8b, 0x08, 0x00};
    write_file(path, (const char *)magic, sizeof magic);
    kd_mesh mesh;
    kd_error err;
    CHECK(kd_obj_load_file(path, &mesh, &err) == KD_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(err.message, "gunzip") != NULL, "%s", err.message);
#endif
    remove(path);
    free(text);
}

int main(void)
{
    test_plain_files();
    test_missing_and_special_files();
    test_gzip();
    return kd_test_finish("obj_files");
}
