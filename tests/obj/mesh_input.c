/* The loaders' input in bounded memory (issue 36, point 7; issue 35, point 3): gzip
 * files whose trailer lies about their size, truncated or followed by other bytes;
 * binary files, /dev/zero and pipes (gzip recognised on a pipe too, and the bytes
 * read reported); a last line without its line end; a line too long to hold; and
 * the memory a load takes, which must not grow with the text beyond the mesh. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef KD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "mesh_load.h"
#include "obj_test_util.h"

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f && fwrite(data, 1, size, f) == size, "cannot write %s", path);
    if (f)
        fclose(f);
}

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc(*size + 1);
    *size = fread(data, 1, *size, f);
    fclose(f);
    return data;
}

/* n triangles as OBJ text, each with its own vertices. */
static char *make_obj(int n, size_t *size)
{
    size_t cap = (size_t)n * 80 + 64, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, cap - len, "v %d 0 0\nv %d 1 0\nv %d 0 1\nf -3 -2 -1\n", i, i, i);
    *size = len;
    return text;
}

/* Runs fn in a child whose address space is capped (a load that reserves what a
 * lying size asks for then fails); returns its exit status. */
static int run_limited(void (*fn)(const char *), const char *arg, size_t limit_bytes)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit lim = {limit_bytes, limit_bytes};
        setrlimit(RLIMIT_AS, &lim);
        kd_test_failures = 0;
        fn(arg);
        fflush(stdout);
        _exit(kd_test_failures ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A pipe that a child fills with data, piece bytes per write (as a network would
 * deliver it); its read end as a path the loaders open, and the child to wait for. */
static pid_t pipe_from_child(const char *data, size_t size, size_t piece, int *fd, char *path, size_t path_bytes)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (size_t at = 0; at < size; at += piece)
            if (write(fds[1], data + at, size - at < piece ? size - at : piece) < 0)
                _exit(1);
        _exit(0);
    }
    close(fds[1]);
    *fd = fds[0];
    snprintf(path, path_bytes, "/dev/fd/%d", fds[0]);
    return pid;
}

#ifdef KD_HAVE_ZLIB
static void gzip_file(const char *path, const char *text, size_t size)
{
    gzFile gz = gzopen(path, "wb6");
    CHECK(gz && gzwrite(gz, text, (unsigned)size) == (int)size);
    if (gz)
        gzclose(gz);
}

/* Loads path: valid gzip data, then four bytes that a size read from the end of
 * the file takes for 4 GiB. */
static void expect_loads(const char *path)
{
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK_MSG(kd_mesh_load_file(path, &mesh, &info, &err) == KD_OK, "%s", err.message);
    CHECK(mesh.num_triangles == 2000 && info.compressed);
    CHECK_MSG(strstr(info.warning, "bytes after the end of the gzip data (from byte") != NULL, "'%s'", info.warning);
    kd_mesh_free(&mesh);
}

static void expect_truncated(const char *path)
{
    kd_mesh mesh;
    kd_error err;
    CHECK(kd_mesh_load_file(path, &mesh, NULL, &err) == KD_ERR_IO);
    CHECK_MSG(strstr(err.message, "truncated gzip data: the file ends at byte") && strstr(err.message, path),
              "%s", err.message);
}

/* The size in a gzip trailer is trusted only as far as deflate's ratio allows:
 * trailing bytes or a cut file make it any number. Under a cap on the address
 * space, a load that reserved it would fail. */
static void test_gzip_sizes(void)
{
    size_t size, zsize;
    char *text = make_obj(2000, &size);
    char path[512];
    kd_test_tmp_path("mesh_input_lying.obj.gz", path, sizeof path);
    gzip_file(path, text, size);
    char *z = read_file(path, &zsize);
    z = realloc(z, zsize + 4);
    memset(z + zsize, 0xff, 4);
    write_file(path, z, zsize + 4);
    CHECK_MSG(run_limited(expect_loads, path, (size_t)768 << 20) == 0, "trailing bytes: see the child's checks");
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK_MSG(kd_mesh_load_file(path, &mesh, &info, &err) == KD_OK, "%s", err.message);
    char want[1200];
    snprintf(want, sizeof want, "%s: bytes after the end of the gzip data (from byte %zu) ignored", path, zsize);
    CHECK_MSG(strcmp(info.warning, want) == 0, "'%s'", info.warning);
    CHECK(info.file_bytes == zsize + 4 && info.text_bytes == size);
    kd_mesh_free(&mesh);
    /* Cut where the last four bytes read as almost 4 GiB, as a download may stop. */
    size_t cut = zsize / 2;
    while (cut < zsize - 8 && (unsigned char)z[cut - 1] < 0xf0)
        cut++;
    CHECK(cut < zsize - 8);
    write_file(path, z, cut);
    CHECK_MSG(run_limited(expect_truncated, path, (size_t)768 << 20) == 0, "a cut file: see the child's checks");
    remove(path);
    free(z);
    free(text);
}

/* Gzip data on a pipe: recognised by its magic, and the bytes read reported. */
static void test_gzip_pipe(void)
{
    size_t size, zsize;
    char *text = make_obj(500, &size);
    char path[512];
    kd_test_tmp_path("mesh_input_pipe.gz", path, sizeof path);
    gzip_file(path, text, size);
    char *z = read_file(path, &zsize);
    int fd;
    char fd_path[64];
    pid_t pid = pipe_from_child(z, zsize, 1000, &fd, fd_path, sizeof fd_path);
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK_MSG(kd_mesh_load_file(fd_path, &mesh, &info, &err) == KD_OK, "%s", err.message);
    CHECK(mesh.num_triangles == 500 && info.compressed && info.file_bytes == zsize && info.text_bytes == size);
    kd_mesh_free(&mesh);
    close(fd);
    waitpid(pid, NULL, 0);
    remove(path);
    free(z);
    free(text);
}
#endif

/* Binary input is refused at once; a plain pipe reports the bytes it gave. */
static void test_binary_and_pipes(void)
{
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK(kd_mesh_load_file("/dev/zero", &mesh, &info, &err) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "/dev/zero: not an OBJ file (binary data at byte 0)") == 0, "%s", err.message);
    char path[512];
    kd_test_tmp_path("mesh_input_tree.kd", path, sizeof path);
    static const char tree[] = "SCANKDT\0\1\0\0\0@\0\0\0";
    write_file(path, tree, sizeof tree - 1);
    CHECK(kd_mesh_load_file(path, &mesh, &info, &err) == KD_ERR_PARSE);
    CHECK_MSG(strstr(err.message, ": not an OBJ file (binary data at byte 7)") != NULL, "%s", err.message);
    remove(path);

    size_t size;
    char *text = make_obj(300, &size);
    int fd;
    char fd_path[64];
    pid_t pid = pipe_from_child(text, size, size, &fd, fd_path, sizeof fd_path);
    CHECK_MSG(kd_mesh_load_file(fd_path, &mesh, &info, &err) == KD_OK, "%s", err.message);
    CHECK(mesh.num_triangles == 300 && !info.compressed && info.file_bytes == size && info.text_bytes == size);
    kd_mesh_free(&mesh);
    close(fd);
    waitpid(pid, NULL, 0);
    free(text);
}

/* A last line without its line end: loaded, with a warning naming the line; an
 * error on that line says the file may be cut off. */
static void test_cut_off(void)
{
    char path[512];
    kd_test_tmp_path("mesh_input_cut.obj", path, sizeof path);
    static const char cut[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nv 0.5 0.5 0.1";
    write_file(path, cut, sizeof cut - 1);
    kd_mesh mesh;
    kd_mesh_load_info info;
    kd_error err;
    CHECK_MSG(kd_mesh_load_file(path, &mesh, &info, &err) == KD_OK, "%s", err.message);
    char want[1200];
    snprintf(want, sizeof want,
             "%s:5: the last line has no line end: if the file was cut off, its last statement may be incomplete",
             path);
    CHECK_MSG(strcmp(info.warning, want) == 0, "'%s'", info.warning);
    kd_mesh_free(&mesh);
    static const char comment[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n# the end";
    write_file(path, comment, sizeof comment - 1);
    CHECK(kd_mesh_load_file(path, &mesh, &info, &err) == KD_OK && info.warning[0] == '\0');
    kd_mesh_free(&mesh);
    static const char broken[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2";
    write_file(path, broken, sizeof broken - 1);
    CHECK(kd_mesh_load_file(path, &mesh, &info, &err) == KD_ERR_PARSE);
    snprintf(want, sizeof want,
             "%s:5: face has 2 vertices (needs at least 3) (line 5 is the last and has no line end: was the file cut off?)",
             path);
    CHECK_MSG(strcmp(err.message, want) == 0, "'%s'", err.message);
    remove(path);
}

/* A line longer than the window may grow to is refused, not held. */
static void test_long_line(void)
{
    size_t size = ((size_t)64 << 20) + 100;
    char *text = malloc(size);
    memcpy(text, "v 0 0 0\n", 8);
    memset(text + 8, 'a', size - 8);
    kd_mesh mesh;
    kd_error err;
    CHECK(kd_obj_load_memory(text, size, "t.obj", &mesh, &err) == KD_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "t.obj:2: the statement is longer than 67108864 bytes") == 0, "%s", err.message);
    free(text);
}

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            kb = atol(line + strlen(key));
    if (f)
        fclose(f);
    return kb;
}

/* Loads path, which holds much more text than mesh, and checks that the peak of
 * resident memory grew by little more than the mesh. */
static void expect_small_peak(const char *path)
{
    FILE *clear = fopen("/proc/self/clear_refs", "w");
    if (clear) { /* "5" resets the peak to the current resident size */
        fputs("5", clear);
        fclose(clear);
    }
    long before = status_kb("VmRSS:");
    kd_mesh mesh;
    kd_error err;
    CHECK_MSG(kd_mesh_load_file(path, &mesh, NULL, &err) == KD_OK, "%s", err.message);
    long peak = status_kb("VmHWM:");
    long mesh_kb = (long)(12 * ((size_t)mesh.num_vertices + mesh.num_triangles) / 1024);
    printf("mesh_input: peak resident memory grew by %ld KB for a mesh of %ld KB\n", peak - before, mesh_kb);
    CHECK_MSG(before > 0 && peak - before < mesh_kb + 8 * 1024, "peak grew by %ld KB, mesh %ld KB", peak - before,
              mesh_kb);
    kd_mesh_free(&mesh);
}

static void test_memory_bound(void)
{
    char path[512];
    kd_test_tmp_path("mesh_input_big.obj", path, sizeof path);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    char comment[1001];
    memset(comment, 'c', 1000);
    comment[1000] = '\0';
    for (int i = 0; i < 40000; i++) /* 40 MB of text, about 1 MB of mesh */
        fprintf(f, "# %s\nv %d 0 0\nv %d 1 0\nv %d 0 1\nf -3 -2 -1\n", comment, i, i, i);
    fprintf(f, "# no line end after this comment");
    fclose(f);
    CHECK(run_limited(expect_small_peak, path, (size_t)4 << 30) == 0);
    remove(path);
}

int main(void)
{
#ifdef KD_HAVE_ZLIB
    test_gzip_sizes();
    test_gzip_pipe();
#endif
    test_binary_and_pipes();
    test_cut_off();
    test_long_line();
    test_memory_bound();
    return kd_test_finish("mesh_input");
}
