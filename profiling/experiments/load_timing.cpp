// The load's phases of scenes (LOG entry 54): parse and tree build, wall clock and CPU time (this process's, all
// threads: the machine is shared, so CPU time is the steadier figure), and the tree's SAH cost. Each scene is loaded
// REPEAT times (default 1); the fastest load is printed. From the repository root with a CPU build in build-cpu/:
//     g++ -std=c++17 -O2 -I. -isystem /usr/local/cuda/include \
//         profiling/experiments/load_timing.cpp build-cpu/libwp_app.a build-cpu/libwp_host.a \
//         -ltinyobjloader -ltinyexr -lstb -lpthread -ldl -o /tmp/load_timing && /tmp/load_timing [-r REPEAT] SCENES...
// (the tree's knobs, e.g. WP_BVH_SPLITS=0, WP_BVH_THREADS=1, apply: read as the command line reads them)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "host/app/cli_support.h"
#include "host/scene/scene_json.h"
using namespace wp;

// FNV-1a over the scene's tree and leaf-slot arrays: equal hashes, the same tree and primitive order (the same image)
template <class T>
uint64_t fnv(const std::vector<T>& v, uint64_t h = 1469598103934665603ull) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
    for (size_t i = 0; i < v.size() * sizeof(T); ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char** argv) {
    int repeat = 1, first = 1;
    if (argc > 2 && std::strcmp(argv[1], "-r") == 0) repeat = std::max(1, std::atoi(argv[2])), first = 3;
    std::printf("%-28s %9s %9s | %13s | %13s | %6s %6s | %8s %16s\n", "scene", "prims", "refs", "parse wall/cpu",
                "BVH wall/cpu", "M/s", "M/s*", "SAH", "tree hash");
    for (int a = first; a < argc; ++a) {
        LoadedScene best;
        for (int r = 0; r < repeat; ++r) {
            LoadedScene ls = load_scene_json(argv[a], load_options_from_env());
            if (r == 0 || ls.data.bvh_stats.cpu_seconds < best.data.bvh_stats.cpu_seconds) best = std::move(ls);
        }
        const BVHBuildStats& b = best.data.bvh_stats;
        const double pw = best.load_seconds - b.seconds, pc = best.load_cpu_seconds - b.cpu_seconds;
        const char* name = std::strrchr(argv[a], '/') ? std::strrchr(argv[a], '/') + 1 : argv[a];
        // M/s: primitives per CPU second of the tree alone; M/s*: of parse and tree together
        std::printf("%-28s %9u %9zu | %6.2f %6.2f | %6.2f %6.2f | %6.2f %6.2f | %8.2f %016llx\n", name, b.primitives,
                    b.references, pw, pc, b.seconds, b.cpu_seconds, 1e-6 * b.primitives / std::max(1e-9, b.cpu_seconds),
                    1e-6 * b.primitives / std::max(1e-9, best.load_cpu_seconds), b.sah_cost,
                    (unsigned long long)fnv(best.data.info, fnv(best.data.geom, fnv(best.data.nodes))));
    }
}
