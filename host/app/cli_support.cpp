#include "host/app/cli_support.h"
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <type_traits>
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

std::string scene_output_name(const std::string& path, std::string* directive) {
    const std::string ext = extension_of(path);
    std::ifstream f(path, std::ios::binary);
    if (!f) return "";
    if (ext == ".pbrt") {
        // the header, comments dropped (a '#' outside a string), up to WorldBegin: Film is a header directive
        std::string text, line;
        while (std::getline(f, line)) {
            bool in_string = false;
            for (size_t i = 0; i < line.size(); ++i) {
                if (line[i] == '"') in_string = !in_string;
                if (line[i] == '#' && !in_string) {
                    line.resize(i);
                    break;
                }
            }
            static const std::regex world(R"((^|\s)WorldBegin(\s|$))");
            if (std::regex_search(line, world)) break;
            text += line + "\n";
        }
        // Film "type" and its parameters, up to the next directive (a bare word outside strings)
        static const std::regex film(R"((^|\s)Film\s+"[^"]*")");
        std::smatch m;
        if (!std::regex_search(text, m, film)) return "";
        std::string params = m.suffix().str();
        bool in_string = false;
        for (size_t i = 0; i < params.size(); ++i) {
            if (params[i] == '"') in_string = !in_string;
            if (!in_string && std::isupper(static_cast<unsigned char>(params[i])) &&
                (i == 0 || std::isspace(static_cast<unsigned char>(params[i - 1])))) {
                params.resize(i);
                break;
            }
        }
        static const std::regex filename(R"re("string\s+filename"\s*\[?\s*"([^"]*)")re");
        if (!std::regex_search(params, m, filename)) return "";
        if (directive) *directive = "Film \"filename\"";
        return m[1].str();
    }
    if (ext == ".json") {
        f.seekg(0, std::ios::end);
        const auto size = f.tellg();
        if (size <= 0 || size > (64 << 20)) return "";
        f.seekg(0);
        std::stringstream ss;
        ss << f.rdbuf();
        const std::string text = ss.str();
        if (text.find("\"primitives\"") == std::string::npos) return "";  // Tungsten's; the native format has none
        for (const char* key : {"hdr_output_file", "output_file"}) {
            const std::string quoted = "\"" + std::string(key) + "\"";
            size_t at = text.find(quoted);
            if (at == std::string::npos) continue;
            at = text.find_first_not_of(" \t\r\n", at + quoted.size());
            if (at == std::string::npos || text[at] != ':') continue;
            at = text.find_first_not_of(" \t\r\n", at + 1);
            if (at == std::string::npos || text[at] != '"') continue;
            const size_t end = text.find('"', at + 1);
            if (end == std::string::npos || end == at + 1) continue;
            if (directive) *directive = "renderer." + std::string(key);
            return text.substr(at + 1, end - at - 1);
        }
    }
    return "";
}

const std::vector<ScheduleOption>& schedule_options() {
#define WP_OPTION_ROW(K, type, member, init, flag, scope, lo, hi, def, help) \
    {#member, #K, flag, scope, lo, hi, def, help, [](const RenderOptions& o) { return uint64_t(o.member); }},
    static const std::vector<ScheduleOption> list{WP_RENDER_OPTIONS(WP_OPTION_ROW)};
#undef WP_OPTION_ROW
    return list;
}

std::vector<std::string> option_spellings(const ScheduleOption& o) {
    std::vector<std::string> names;
    std::stringstream ss(o.flag);
    for (std::string n; std::getline(ss, n, ',');) names.push_back(n[0] == '!' ? n.substr(1) : n);
    return names;
}

bool option_applies(const ScheduleOption& o, bool gpu, bool wavefront) {
    if (((o.scope & kOptGpu) && !gpu) || ((o.scope & kOptCpu) && gpu)) return false;
    return !(o.scope & kOptWavefront) || wavefront;
}

namespace {
// Why a schedule option does nothing in `u` ("" when it does something there), by its scope.
std::string scope_problem(unsigned scope, const OptionUse& u) {
    if ((scope & kOptGpu) && !u.gpu) return "GPU backend only; this runs on the cpu";
    if ((scope & kOptCpu) && u.gpu) return "CPU backend only; this runs on the gpu";
    if ((scope & kOptWavefront) && !u.wavefront && !((scope & kOptRaycast) && u.raycast))
        return "wavefront only; " + std::string(u.gpu ? "the gpu" : "the cpu") + " runs the megakernel here (" +
               u.wavefront_hint + " runs the wavefront)";
    return "";
}

std::string scope_text(unsigned scope) {
    std::string t;
    if (scope & kOptGpu) t += "GPU";
    if (scope & kOptCpu) t += "CPU";
    if (scope & kOptWavefront) t += std::string(t.empty() ? "" : ", ") + "wavefront";
    if (scope & kOptRaycast) t += " (and bench's ray-cast pass)";
    if (scope & kOptBench) t += std::string(t.empty() ? "" : "; ") + "`bench` only";
    return t;
}
}  // namespace

std::string schedule_options_markdown() {
    std::string t =
        "| option | does something in | default | range | help |\n"
        "|--------|-------------------|---------|-------|------|\n";
    for (const ScheduleOption& o : schedule_options()) {
        std::string flags;
        for (const std::string& n : option_spellings(o)) flags += (flags.empty() ? "`" : ", `") + n + "`";
        const std::string def = o.def.empty() ? std::to_string(o.value(RenderOptions{})) : o.def;
        const std::string range = std::string(o.kind) == "VALUE" ? std::to_string(o.lo) + " to " + std::to_string(o.hi)
                                                                 : std::string("a switch");
        t += "| " + flags + " | " + scope_text(o.scope) + " | " + def + " | " + range + " | " + o.help + " |\n";
    }
    return t;
}

std::vector<IgnoredOption> ignored_options(const std::vector<std::string>& given, const OptionUse& u) {
    std::vector<IgnoredOption> out;
    for (const std::string& o : given) {
        std::string why;
        for (const ScheduleOption& so : schedule_options())
            for (const std::string& n : option_spellings(so))
                if (n == o) why = scope_problem(so.scope, u);
        if (o == "--raycast-spp") {
            if (!u.raycast) why = "the ray-cast pass only, which --no-raycast turns off";
        } else if (o == "--spp-list") {
            if (!u.reference) why = "the sample counts the error is measured at: give --reference PATH or auto";
        } else if (o == "--reference") {
            if (!u.spp_list)
                why = "the error is measured at the sample counts of --spp-list (e.g. --spp-list 16,64,256)";
        } else if (o == "--reference-spp") {
            if (!u.auto_reference) why = "the samples of the reference the bench renders: --reference auto only";
        } else if (o == "--target-relmse") {
            if (!u.reference || !u.spp_list) why = "the error's measurement only (--reference with --spp-list)";
        }
        if (!why.empty() && std::none_of(out.begin(), out.end(), [&](const IgnoredOption& x) { return x.option == o; }))
            out.push_back({o, why});
    }
    return out;
}

std::string ignored_options_text(const std::vector<IgnoredOption>& ig, const std::string& what) {
    if (ig.empty()) return "";
    std::vector<std::string> all, reasons;
    std::map<std::string, std::vector<std::string>> by_reason;
    for (const IgnoredOption& o : ig) {
        all.push_back(o.option);
        if (!by_reason.count(o.why)) reasons.push_back(o.why);
        by_reason[o.why].push_back(o.option);
    }
    std::string s = "warning: " + std::to_string(ig.size()) + (ig.size() == 1 ? " option does" : " options do") +
                    " nothing in " + what + " and " + (ig.size() == 1 ? "is" : "are") + " ignored: " + join(all) + "\n";
    for (const std::string& r : reasons) s += "  " + join(by_reason[r]) + ": " + r + "\n";
    return s;
}

namespace {
// "123", "64K", "2M", "1G" (powers of 1024): bytes; 0 when it is not that
uint64_t parse_bytes(const char* v) {
    char* end = nullptr;
    const double x = std::strtod(v, &end);
    if (end == v || !(x > 0)) return 0;
    double m = 1;
    if (*end == 'K' || *end == 'k') m = 1024.0;
    if (*end == 'M' || *end == 'm') m = 1048576.0;
    if (*end == 'G' || *end == 'g') m = 1073741824.0;
    if (m != 1 || *end == 'B' || *end == 'b') ++end;
    return *end ? 0 : uint64_t(x * m);
}
}  // namespace

// ulimit -v (RLIMIT_AS): the address space left under it bounds what this process can allocate, whatever the host
// has free (an allocation past it is a std::bad_alloc, not swap): total and available cut to it.
void address_space_limit(HostMemory& m) {
    rlimit rl{};
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    std::ifstream f("/proc/self/statm");
    uint64_t pages = 0;
    f >> pages;  // the address space in use (0 where unknown: the whole limit counted as free)
    const uint64_t limit = uint64_t(rl.rlim_cur), used = pages * uint64_t(sysconf(_SC_PAGESIZE));
    m.total = std::min(m.total, limit);
    m.available = std::min(m.available, limit > used ? limit - used : 0);
    m.address_limit = limit;
}

HostMemory host_memory() {
    HostMemory m;
    if (const char* e = std::getenv("WP_HOST_MEMORY_LIMIT"))
        if (uint64_t limit = parse_bytes(e)) {
            const uint64_t used = process_resident_bytes();
            m.total = limit;
            m.available = limit > used ? limit - used : 0;
            m.limited = true;
            address_space_limit(m);
            return m;
        }
    std::ifstream f("/proc/meminfo");
    std::string key, unit;
    uint64_t kib = 0;
    bool have_total = false, have_avail = false;
    while (f >> key >> kib) {
        std::getline(f, unit);
        if (key == "MemTotal:") m.total = kib * 1024, have_total = true;
        if (key == "MemAvailable:") m.available = kib * 1024, have_avail = true;
    }
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    if (!have_total) m.total = uint64_t(sysconf(_SC_PHYS_PAGES)) * page;
    if (!have_avail) m.available = uint64_t(sysconf(_SC_AVPHYS_PAGES)) * page;
    address_space_limit(m);
    return m;
}

namespace {
// A knob's text: a whole number (an int or bool knob) or a number in [lo, hi]; "" or what is wrong.
std::string knob_problem(const char* text, bool whole, double lo, double hi, double& x) {
    char range[64];
    std::snprintf(range, sizeof range, whole ? "(%.0f to %.0f)" : "(%g to %g)", lo, hi);
    const std::string v = text;
    char* end = nullptr;
    errno = 0;
    x = whole ? double(std::strtoll(v.c_str(), &end, 10)) : std::strtod(v.c_str(), &end);
    if (v.empty() || *end || errno == ERANGE || !std::isfinite(x) ||
        (whole && v.find_first_of(".eE") != std::string::npos))
        return "'" + v + "' is not " + (whole ? "a whole number " : "a number ") + range;
    if (x < lo || x > hi) return v + " is out of range " + range;
    return "";
}
template <class T>
void read_knob(const char* variable, bool whole, double lo, double hi, std::optional<T>& to) {
    double x = 0;
    if (const char* e = std::getenv(variable); e && knob_problem(e, whole, lo, hi, x).empty()) to = T(x);
}
}  // namespace

std::string bvh_knobs_problem() {
    std::string p;
#define WP_BVH_KNOB_CHECK(type, member, variable, lo, hi, help)                                          \
    if (const char* e = std::getenv(variable); e && p.empty()) {                                         \
        double x = 0;                                                                                    \
        if (std::string why = knob_problem(e, !std::is_floating_point_v<type>, lo, hi, x); !why.empty()) \
            p = std::string(variable) + ": " + why;                                                      \
    }
    WP_BVH_KNOBS(WP_BVH_KNOB_CHECK)
#undef WP_BVH_KNOB_CHECK
    return p;
}

std::string bvh_knobs_text(const SceneBuildOptions& o) {
    std::string t;
    auto text = [](double x) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", x);
        return std::string(b);
    };
#define WP_BVH_KNOB_TEXT(type, member, variable, ...) \
    if (o.member) t += (t.empty() ? "" : ", ") + std::string(variable) + "=" + text(double(*o.member));
    WP_BVH_KNOBS(WP_BVH_KNOB_TEXT)
#undef WP_BVH_KNOB_TEXT
    return t;
}

std::string bvh_knobs_markdown() {
    std::string t = "| variable | range | what |\n|----------|-------|------|\n";
    char range[80];
#define WP_BVH_KNOB_ROW(type, member, variable, lo, hi, help)                                                       \
    std::snprintf(range, sizeof range,                                                                              \
                  std::is_floating_point_v<type> ? "a number %g to %g" : "a whole number %.0f to %.0f", double(lo), \
                  double(hi));                                                                                      \
    t += "| `" + std::string(variable) + "` | " + range + " | " + help + " |\n";
    WP_BVH_KNOBS(WP_BVH_KNOB_ROW)
#undef WP_BVH_KNOB_ROW
    return t;
}

SceneBuildOptions build_options_from_env() {
    SceneBuildOptions o;
    // (each as checked by bvh_knobs_problem, which the command line calls first: a bad value is left unset here)
#define WP_BVH_KNOB_READ(type, member, variable, lo, hi, help) \
    read_knob(variable, !std::is_floating_point_v<type>, lo, hi, o.member);
    WP_BVH_KNOBS(WP_BVH_KNOB_READ)
#undef WP_BVH_KNOB_READ
    // the memory the tree may take, asked as its build starts (after the parse, whose arrays are then resident)
    o.memory_available = [] { return host_memory().available; };
    const HostMemory hm = host_memory();
    if (hm.limited) o.memory_what = "available under WP_HOST_MEMORY_LIMIT=" + bytes_text(hm.total);
    if (hm.address_limit) o.memory_what += " under ulimit -v (RLIMIT_AS) " + bytes_text(hm.address_limit);
    return o;
}

LoadOptions load_options_from_env() {
    LoadOptions lo;
    lo.build = build_options_from_env();
    return lo;
}

std::string bytes_text(uint64_t b) {
    char s[32];
    if (b >= (1ull << 30))
        std::snprintf(s, sizeof s, "%.1f GiB", double(b) / double(1ull << 30));
    else if (b >= (1ull << 20))
        std::snprintf(s, sizeof s, "%.1f MiB", double(b) / double(1ull << 20));
    else
        std::snprintf(s, sizeof s, "%.1f KiB", double(b) / 1024.0);
    return s;
}

}  // namespace wp
