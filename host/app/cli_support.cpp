#include "host/app/cli_support.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include "host/render/render.h"

#ifndef WP_VERSION
#define WP_VERSION "unknown"
#endif
#ifndef WP_GIT_COMMIT
#define WP_GIT_COMMIT "unknown"
#endif
#ifndef WP_CUDA_ARCHITECTURES
#define WP_CUDA_ARCHITECTURES ""
#endif

namespace wp {

const std::vector<std::string>& image_extensions() {
    static const std::vector<std::string> e{".exr", ".png", ".pfm"};
    return e;
}

std::string extension_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot + 1 == path.size() ||
        dot == (slash == std::string::npos ? 0 : slash + 1))
        return "";
    std::string e = path.substr(dot);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

namespace {
std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}
std::string folder_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace

std::string parse_devices(const std::string& spec, int count, std::vector<int>& out) {
    out.clear();
    const std::string visible =
        count == 0   ? std::string("no CUDA GPU is visible")
        : count == 1 ? std::string("1 CUDA GPU is visible (device 0)")
                     : std::to_string(count) + " CUDA GPUs are visible (0 to " + std::to_string(count - 1) + ")";
    if (spec == "all") {
        if (count == 0) return "--devices all: " + visible;
        for (int d = 0; d < count; ++d) out.push_back(d);
        return "";
    }
    const std::string form = "--devices '" + spec +
                             "': give 'all' or CUDA device indices, e.g. 0,1 (0,0: two workers "
                             "on GPU 0)";
    if (spec.empty() || spec.front() == ',' || spec.back() == ',') return form;
    size_t at = 0;
    while (at <= spec.size()) {
        size_t comma = spec.find(',', at);
        if (comma == std::string::npos) comma = spec.size();
        const std::string t = spec.substr(at, comma - at);
        if (t.empty() || t.size() > 4 || t.find_first_not_of("0123456789") != std::string::npos) return form;
        out.push_back(std::stoi(t));
        at = comma + 1;
    }
    for (int d : out)  // (the form first, then the devices)
        if (d >= count) {
            out.clear();
            return "--devices: device " + std::to_string(d) + " does not exist: " + visible;
        }
    if (out.size() > 256) return "--devices: " + std::to_string(out.size()) + " workers (at most 256)";
    return "";
}

std::string output_problem(const std::string& path, const std::vector<std::string>& exts, const std::string& what) {
    const std::string head = what + " '" + path + "': ";
    if (path.empty()) return what + ": empty file name";
    struct stat st;
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return head + "is a folder (give a file name, e.g. " + path + (path.back() == '/' ? "" : "/") + "NAME" +
               exts.front() + ")";
    std::string e = extension_of(path);
    if (std::find(exts.begin(), exts.end(), e) == exts.end())
        return head + (e.empty() ? "no file extension" : "unknown format '" + e + "'") + " (supported: " + join(exts) +
               ")";
    const std::string dir = folder_of(path);
    struct stat ds;
    if (::stat(dir.c_str(), &ds) != 0) return head + "folder '" + dir + "' does not exist";
    if (!S_ISDIR(ds.st_mode)) return head + "'" + dir + "' is not a folder";
    if (exists) {
        if (!S_ISREG(st.st_mode)) return head + "exists and is not a regular file";
        if (::access(path.c_str(), W_OK) != 0) return head + "exists and cannot be written: " + std::strerror(errno);
    }
    // the only sure test of a folder: create a file in it (and remove it again)
    std::string probe = dir + "/.wavepath-probe-" + std::to_string(::getpid());
    int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        if (errno == EEXIST) return "";  // a concurrent call's probe: the folder takes files
        return head + "cannot write in folder '" + dir + "': " + std::strerror(errno);
    }
    ::close(fd);
    ::unlink(probe.c_str());
    return "";
}

std::string scene_name(const std::string& scene_path) {
    size_t s = scene_path.find_last_of('/');
    std::string f = s == std::string::npos ? scene_path : scene_path.substr(s + 1);
    size_t d = f.find_last_of('.');
    return d == std::string::npos || d == 0 ? f : f.substr(0, d);
}

std::string output_for(const std::string& pattern, const std::string& output_dir, const std::string& scene_path) {
    std::string p = pattern.empty() ? "{name}.exr" : pattern;
    std::string dir = folder_of(scene_path);
    size_t s = dir.find_last_of('/');
    std::string dir_name = dir == "." ? "." : (s == std::string::npos ? dir : dir.substr(s + 1));
    if (dir == ".") {  // a scene in the current folder: the current folder's own name
        char cwd[4096];
        if (::getcwd(cwd, sizeof cwd)) {
            std::string c = cwd;
            size_t k = c.find_last_of('/');
            dir_name = k == std::string::npos ? c : c.substr(k + 1);
        }
    }
    for (const auto& [key, value] : {std::make_pair(std::string("{name}"), scene_name(scene_path)),
                                     std::make_pair(std::string("{dir}"), dir_name)})
        for (size_t at; (at = p.find(key)) != std::string::npos;) p.replace(at, key.size(), value);
    if (!output_dir.empty() && p[0] != '/') p = output_dir + (output_dir.back() == '/' ? "" : "/") + p;
    return p;
}

std::string with_tag(const std::string& path, const std::string& tag) {
    std::string e = extension_of(path);
    return path.substr(0, path.size() - e.size()) + "." + tag + path.substr(path.size() - e.size());
}

std::string with_extension(const std::string& path, const std::string& ext) {
    return path.substr(0, path.size() - extension_of(path).size()) + ext;
}

std::string version_short() { return std::string("wavepath ") + WP_VERSION + " (" + WP_GIT_COMMIT + ")"; }

std::string version_text() {
    std::string archs = WP_CUDA_ARCHITECTURES;
    std::string dev;
    bool gpu = gpu_available(&dev);
    return version_short() + "\n" +
           "CUDA architectures: " + (archs.empty() ? std::string("none (a CPU-only build)") : archs) + "\n" +
           "GPU: " + (gpu ? dev : std::string("none found (the CPU backend renders)"));
}

}  // namespace wp
