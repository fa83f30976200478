// bench_obj: scankd's OBJ loader next to tinyobjloader on the same files, same run,
// one core. Compressed scenes are decompressed to a temporary file first, so both
// loaders read the same plain bytes from the page cache; each loader runs once as a
// warm-up, then the two alternate for the timed repeats and the median is reported.
// One more, untimed load by each in a fresh process gives the peak of resident
// memory a load takes (VmHWM of a process that loaded the file once).
#include <dirent.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <tiny_obj_loader.h>

#ifdef KD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "mesh_load.h"

namespace {

struct Options {
    int repeats = 7;
    bool csv = false;
    bool pin = true;
    std::string scenes_dir = KD_BENCH_SCENES_DIR;
    std::vector<std::string> files;
};

struct Row {
    std::string name;
    double mb = 0;
    uint64_t triangles = 0;
    uint64_t tiny_triangles = 0;
    double scankd_s = 0, tiny_s = 0;
    double scankd_peak_mb = -1, tiny_peak_mb = -1; // -1: not measured
};

void usage(FILE *f)
{
    std::fprintf(f,
                 "usage: bench_obj [--repeats N] [--csv] [--no-pin] [--scenes DIR] [FILE...]\n"
                 "\n"
                 "Times scankd's OBJ loader and tinyobjloader on each FILE (.obj or .obj.gz;\n"
                 "default: every OBJ scene in DIR, default %s).\n"
                 "Median of N timed runs (default 7) after one warm-up run of each loader, on\n"
                 "one core (pinned unless --no-pin). MB = 10^6 bytes of OBJ text. Peak: the peak\n"
                 "resident memory (MB) of a fresh process that loads the file once.\n",
                 KD_BENCH_SCENES_DIR);
}

double now_s()
{
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool ends_with(const std::string &s, const char *suffix)
{
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

std::string base_name(const std::string &path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dir_name(const std::string &path)
{
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// Decompresses path into a new temporary file; returns its name ("" on failure).
std::string gunzip_to_temp(const std::string &path)
{
#ifdef KD_HAVE_ZLIB
    const char *tmpdir = std::getenv("TMPDIR");
    std::string tmp = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/bench_obj_XXXXXX";
    std::vector<char> name(tmp.begin(), tmp.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0)
        return "";
    gzFile gz = gzopen(path.c_str(), "rb");
    bool ok = gz != nullptr;
    std::vector<char> chunk(1 << 20);
    while (ok) {
        int got = gzread(gz, chunk.data(), (unsigned)chunk.size());
        if (got < 0)
            ok = false;
        if (got <= 0)
            break;
        ok = write(fd, chunk.data(), (size_t)got) == got;
    }
    if (gz)
        gzclose(gz);
    close(fd);
    if (!ok) {
        unlink(name.data());
        return "";
    }
    return std::string(name.data());
#else
    (void)path;
    return "";
#endif
}

long file_size(const std::string &path)
{
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return -1;
    std::fseek(f, 0, SEEK_END);
    long size = std::ftell(f);
    std::fclose(f);
    return size;
}

bool run_scankd(const std::string &path, uint64_t *triangles, double *seconds)
{
    kd_mesh mesh;
    kd_error err;
    double start = now_s();
    kd_status st = kd_mesh_load_file(path.c_str(), &mesh, nullptr, &err);
    *seconds = now_s() - start;
    if (st != KD_OK) {
        std::fprintf(stderr, "bench_obj: scankd: %s\n", err.message);
        return false;
    }
    *triangles = mesh.num_triangles_read;
    kd_mesh_free(&mesh);
    return true;
}

bool run_tiny(const std::string &path, const std::string &mtl_dir, uint64_t *triangles,
              double *seconds)
{
    tinyobj::attrib_t attrib;
    std::vector<tinyobj::shape_t> shapes;
    std::vector<tinyobj::material_t> materials;
    std::string warn, err;
    double start = now_s();
    bool ok = tinyobj::LoadObj(&attrib, &shapes, &materials, &warn, &err, path.c_str(),
                               mtl_dir.c_str(), true);
    *seconds = now_s() - start;
    if (!ok) {
        std::fprintf(stderr, "bench_obj: tinyobjloader: %s\n", err.c_str());
        return false;
    }
    uint64_t n = 0;
    for (const auto &shape : shapes)
        n += shape.mesh.num_face_vertices.size();
    *triangles = n;
    return true;
}

// A line of /proc/self/status in kB ("VmRSS:", "VmHWM:"); -1 if absent.
long status_kb(const char *key)
{
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, key, std::strlen(key)) == 0)
            kb = std::atol(line + std::strlen(key));
    std::fclose(f);
    return kb;
}

// The peak resident memory, in MB, of a fresh process (this program again, with
// --peak) that loads path once with one loader; -1 when it fails. A fresh process,
// because memory an allocator keeps after a free hides what a later load takes.
double fresh_peak_mb(const char *loader, const std::string &path, const std::string &mtl_dir)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl("/proc/self/exe", "bench_obj", "--peak", loader, path.c_str(), mtl_dir.c_str(), (char *)nullptr);
        _exit(127);
    }
    close(fds[1]);
    char text[64] = {0};
    ssize_t got = pid > 0 ? read(fds[0], text, sizeof text - 1) : -1;
    close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    long kb = got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? std::atol(text) : -1;
    return kb > 0 ? (double)kb * 1024.0 / 1e6 : -1;
}

// --peak LOADER PATH MTL_DIR: loads once and prints the process's peak resident kB.
int peak_main(const char *loader, const char *path, const char *mtl_dir)
{
    uint64_t n;
    double s;
    bool ok = std::strcmp(loader, "scankd") == 0 ? run_scankd(path, &n, &s) : run_tiny(path, mtl_dir, &n, &s);
    std::printf("%ld\n", status_kb("VmHWM:"));
    return ok ? 0 : 1;
}

bool bench_file(const std::string &path, const Options &opt, Row *row)
{
    std::string plain = path, temp;
    if (ends_with(path, ".gz")) {
        temp = gunzip_to_temp(path);
        if (temp.empty()) {
            std::fprintf(stderr, "bench_obj: %s: cannot decompress (built without zlib?); skipped\n",
                         path.c_str());
            return false;
        }
        plain = temp;
    }
    row->name = base_name(path);
    row->mb = (double)file_size(plain) / 1e6;
    std::string mtl_dir = dir_name(path) + "/";

    std::vector<double> ours, theirs;
    bool ok = true;
    double s;
    // Warm-up: page cache, allocator, lazy binding.
    ok = ok && run_scankd(plain, &row->triangles, &s);
    ok = ok && run_tiny(plain, mtl_dir, &row->tiny_triangles, &s);
    for (int r = 0; ok && r < opt.repeats; r++) {
        uint64_t n;
        ok = run_scankd(plain, &n, &s);
        ours.push_back(s);
        ok = ok && run_tiny(plain, mtl_dir, &n, &s);
        theirs.push_back(s);
    }
    if (ok) {
        row->scankd_peak_mb = fresh_peak_mb("scankd", plain, mtl_dir);
        row->tiny_peak_mb = fresh_peak_mb("tinyobj", plain, mtl_dir);
    }
    if (!temp.empty())
        unlink(temp.c_str());
    if (!ok)
        return false;
    row->scankd_s = median(ours);
    row->tiny_s = median(theirs);
    return true;
}

std::string cpu_model()
{
    FILE *f = std::fopen("/proc/cpuinfo", "r");
    if (!f)
        return "unknown CPU";
    char line[512];
    std::string model = "unknown CPU";
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "model name", 10) == 0) {
            const char *colon = std::strchr(line, ':');
            if (colon) {
                model = colon + 2;
                model.erase(model.find_last_not_of("\n") + 1);
            }
            break;
        }
    }
    std::fclose(f);
    return model;
}

std::vector<std::string> default_files(const std::string &dir)
{
    std::vector<std::string> files;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return files;
    while (dirent *e = readdir(d)) {
        std::string name = e->d_name;
        if (ends_with(name, ".obj") || ends_with(name, ".obj.gz"))
            files.push_back(dir + "/" + name);
    }
    closedir(d);
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

int main(int argc, char **argv)
{
    Options opt;
    if (argc == 5 && std::strcmp(argv[1], "--peak") == 0)
        return peak_main(argv[2], argv[3], argv[4]);
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            usage(stdout);
            return 0;
        } else if (arg == "--csv") {
            opt.csv = true;
        } else if (arg == "--no-pin") {
            opt.pin = false;
        } else if ((arg == "--repeats" || arg == "--scenes") && i + 1 < argc) {
            if (arg == "--scenes") {
                opt.scenes_dir = argv[++i];
            } else {
                opt.repeats = std::atoi(argv[++i]);
                if (opt.repeats < 1 || opt.repeats > 1000) {
                    std::fprintf(stderr, "bench_obj: --repeats wants 1..1000\n");
                    return 2;
                }
            }
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "bench_obj: unknown option '%s'\n", arg.c_str());
            usage(stderr);
            return 2;
        } else {
            opt.files.push_back(arg);
        }
    }
    if (opt.files.empty())
        opt.files = default_files(opt.scenes_dir);
    if (opt.files.empty()) {
        std::fprintf(stderr, "bench_obj: no OBJ files given and none in %s\n", opt.scenes_dir.c_str());
        return 1;
    }
    if (opt.pin) {
        // One core: both loaders are single-threaded; pinning keeps the scheduler
        // from moving the process between cores mid-run.
        cpu_set_t set;
        CPU_ZERO(&set);
        int cpu = sched_getcpu();
        CPU_SET(cpu < 0 ? 0 : cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }

    FILE *info = opt.csv ? stderr : stdout;
    std::fprintf(info, "bench_obj: %s; median of %d runs after 1 warm-up; one core%s\n",
                 cpu_model().c_str(), opt.repeats, opt.pin ? " (pinned)" : "");
    if (opt.csv)
        std::printf("file,mb,triangles,scankd_ms,scankd_mb_s,tinyobj_ms,tinyobj_mb_s,ratio,"
                    "scankd_peak_mb,tinyobj_peak_mb\n");
    else
        std::printf("%-30s %8s %10s %10s %11s %11s %12s %7s %12s %12s\n", "file", "MB", "triangles",
                    "scankd ms", "scankd MB/s", "tinyobj ms", "tinyobj MB/s", "ratio", "scankd peak",
                    "tinyobj peak");

    int failures = 0;
    double total_mb = 0, total_ours = 0, total_theirs = 0, most_ours = -1, most_theirs = -1;
    for (const std::string &path : opt.files) {
        Row row;
        if (!bench_file(path, opt, &row)) {
            failures++;
            continue;
        }
        double ours_mbs = row.mb / row.scankd_s, tiny_mbs = row.mb / row.tiny_s;
        double ratio = row.tiny_s / row.scankd_s;
        total_mb += row.mb;
        total_ours += row.scankd_s;
        total_theirs += row.tiny_s;
        most_ours = std::max(most_ours, row.scankd_peak_mb);
        most_theirs = std::max(most_theirs, row.tiny_peak_mb);
        if (opt.csv)
            std::printf("%s,%.3f,%llu,%.3f,%.1f,%.3f,%.1f,%.2f,%.1f,%.1f\n", row.name.c_str(), row.mb,
                        (unsigned long long)row.triangles, row.scankd_s * 1e3, ours_mbs,
                        row.tiny_s * 1e3, tiny_mbs, ratio, row.scankd_peak_mb, row.tiny_peak_mb);
        else
            std::printf("%-30s %8.2f %10llu %10.2f %11.1f %11.2f %12.1f %6.2fx %9.1f MB %9.1f MB\n",
                        row.name.c_str(), row.mb, (unsigned long long)row.triangles, row.scankd_s * 1e3,
                        ours_mbs, row.tiny_s * 1e3, tiny_mbs, ratio, row.scankd_peak_mb, row.tiny_peak_mb);
        if (row.tiny_triangles != row.triangles)
            std::fprintf(stderr, "bench_obj: note: %s: tinyobjloader made %llu triangles, scankd %llu\n",
                         row.name.c_str(), (unsigned long long)row.tiny_triangles,
                         (unsigned long long)row.triangles);
        std::fflush(stdout);
    }
    if (!opt.csv && total_ours > 0)
        std::printf("%-30s %8.2f %10s %10.2f %11.1f %11.2f %12.1f %6.2fx %9.1f MB %9.1f MB (largest)\n",
                    "all files", total_mb, "", total_ours * 1e3, total_mb / total_ours, total_theirs * 1e3,
                    total_mb / total_theirs, total_theirs / total_ours, most_ours, most_theirs);
    return failures ? 1 : 0;
}
