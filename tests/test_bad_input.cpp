// The bad-input corpus (tests/bad_input/cases.tsv): every malformed scene, started as the command line starts a
// render (load_render_scene: load, overrides, render limits), throws a SceneError whose message names the scene
// file, the JSON pointer or, for a pbrt-v4 file or a JSON syntax error, FILE:LINE:COLUMN (where the problem is the file's syntax or schema; the limits are on the settings the
// render would use, whatever the format) and the problem. The command line over the same corpus (render and
// bench: exit code 1, one "error:" line, no crash) is the CTest cli_bad_input_corpus, also run under ASan/UBSan
// by CI.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cctype>
#include <fstream>
#include <functional>
#include <cmath>
#include <sstream>
#include "host/app/bench.h"
#include "host/app/cli_support.h"
#include "host/app/render_setup.h"
#include "host/render/film_file.h"
#include "host/render/multi_device.h"
#include "host/render/render.h"
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "host/scene/scene_json.h"
#include "tests/cornell_scene.h"
using namespace wp;

TEST(BadInput, EveryCorpusCaseFailsWithFilePointerAndProblem) {
    std::string dir = wp_test::source_dir() + "/tests/bad_input/";
    std::ifstream f(dir + "cases.tsv");
    ASSERT_TRUE(f.good());
    std::string line;
    int n = 0;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::stringstream ss(line);
        std::string file, ptr, what, opts;
        std::getline(ss, file, '\t');
        std::getline(ss, ptr, '\t');
        std::getline(ss, what, '\t');
        std::getline(ss, opts, '\t');  // "--strict": the case is a warning that --strict makes an error
        ++n;
        std::string path = dir + file;
        LoadOptions lo;
        lo.strict = opts == "--strict";
        try {
            load_render_scene(path, {}, lo);
            ADD_FAILURE() << file << ": loaded without an error";
        } catch (const SceneError& e) {
            std::string m = e.what();
            if (!ptr.empty() && std::isdigit((unsigned char)ptr[0])) {  // pbrt-v4, JSON syntax: "FILE:LINE:COL: ..."
                EXPECT_EQ(m.rfind(path + ":" + ptr + ": ", 0), 0u)
                    << file << ": does not start with FILE:" << ptr << ": " << m;
            } else {
                EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << file << ": message does not start with the file: " << m;
                if (!ptr.empty())
                    EXPECT_NE(m.find(": " + ptr), std::string::npos) << file << ": no pointer " << ptr << " in: " << m;
            }
            EXPECT_NE(m.find(what), std::string::npos) << file << ": no '" << what << "' in: " << m;
        } catch (const std::exception& e) { ADD_FAILURE() << file << ": not a SceneError: " << e.what(); }
    }
    EXPECT_GE(n, 40);
}

namespace {
// The message of the SceneError that f throws ("" and a test failure if none).
template <class F>
std::string scene_error(F&& f) {
    try {
        f();
        ADD_FAILURE() << "no SceneError";
    } catch (const SceneError& e) { return e.what(); }
    return "";
}
std::string tungsten_scene(const std::string& name, int max_bounces) {
    std::string p = wp_test::temp_dir() + name;
    std::ofstream(p) << R"({"bsdfs": [{"name": "white", "type": "lambert", "albedo": 0.5}],
      "primitives": [{"type": "quad", "bsdf": "white", "transform": {"scale": [4, 1, 4]}},
                     {"type": "sphere", "bsdf": "white", "emission": 1, "transform": {"position": [0, 2, 0], "scale": 0.5}}],
      "camera": {"resolution": 8, "reconstruction_filter": "box",
                 "transform": {"position": [0, 1, 4], "look_at": [0, 0, 0], "up": [0, 1, 0]}},
      "integrator": {"type": "path_tracer", "max_bounces": )" +
                            std::to_string(max_bounces) + R"(},
      "renderer": {"spp": 1}})";
    return p;
}
BenchOptions cpu_bench(const std::string& scene) {
    BenchOptions o;
    o.scenes = {scene};
    o.settings.backend = "cpu";
    o.repeat = 1;
    o.warmup = 0;
    o.raycast = false;
    return o;
}
}  // namespace

// The render limits (max_depth <= 1024: the path state packs the depth) hold for every scene format and for the
// command line's overrides, checked once where a render starts: a Tungsten scene's max_bounces 5000 and bench's
// --max-depth 5000 on a valid scene give the same message, naming the file.
TEST(BadInput, RenderLimitsCheckedAtRenderStartWhateverTheFormat) {
    const std::string deep = tungsten_scene("deep-5000.json", 5000);  // 5001 path segments
    EXPECT_EQ(scene_error([&] { load_render_scene(deep, {}); }), deep + ": max_depth 5001 out of range (1 to 1024)");
    EXPECT_EQ(scene_error([&] { run_bench(cpu_bench(deep)); }), deep + ": max_depth 5001 out of range (1 to 1024)");

    const std::string t4999 = tungsten_scene("deep-4999.json", 4999);  // 5000 segments
    const std::string native = wp_test::source_dir() + "/scenes/cornell-box.json";
    BenchOptions o = cpu_bench(native);
    o.settings.scene.max_depth = 5000;
    const std::string from_bench = scene_error([&] { run_bench(o); });
    const std::string from_tungsten = scene_error([&] { load_render_scene(t4999, {}); });
    EXPECT_EQ(from_bench, native + ": max_depth 5000 out of range (1 to 1024)");
    EXPECT_EQ(from_tungsten, t4999 + ": max_depth 5000 out of range (1 to 1024)");
    EXPECT_EQ(from_bench.substr(native.size()), from_tungsten.substr(t4999.size()));

    // the limit is on the settings the render uses: an override can bring a scene within it, or take it out
    SceneOverrides shallow;
    shallow.max_depth = 8;
    EXPECT_EQ(load_render_scene(deep, shallow).params.max_depth, 8u);
    SceneOverrides wide;
    wide.width = 40000;
    EXPECT_EQ(scene_error([&] { load_render_scene(native, wide); }),
              native + ": resolution 40000x512 is too large (at most 32768 per side)");
}

TEST(BadInput, OverridesReplaceOnlyWhatIsGiven) {
    const std::string native = wp_test::source_dir() + "/scenes/cornell-box.json";
    LoadedScene base = load_scene_json(native);
    LoadedScene same = load_render_scene(native, {});
    EXPECT_EQ(same.params.width, base.params.width);
    EXPECT_EQ(same.params.spp, base.params.spp);
    EXPECT_EQ(same.params.max_depth, base.params.max_depth);
    EXPECT_EQ(same.params.seed, base.params.seed);
    EXPECT_EQ(same.data.camera.aspect, base.data.camera.aspect);
    SceneOverrides o;
    o.width = 64;
    o.height = 32;
    o.spp = 3;
    o.max_depth = 7;
    o.seed = 0;  // given, even though 0
    base.params.seed = 99;
    apply_overrides(base, o);
    EXPECT_EQ(base.params.width, 64u);
    EXPECT_EQ(base.params.height, 32u);
    EXPECT_EQ(base.params.spp, 3u);
    EXPECT_EQ(base.params.max_depth, 7u);
    EXPECT_EQ(base.params.seed, 0u);
    EXPECT_FLOAT_EQ(base.data.camera.aspect, 2.0f);
}

TEST(BadInput, UnusedMaterialWarns) {
    std::string p = wp_test::temp_dir() + "warn.json";
    std::ofstream(p) << R"({"camera": {"position": [0,0,5], "target": [0,0,0]},
      "materials": {"m": {"type": "lambert"}, "spare": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m"}]})";
    LoadedScene ls = load_scene_json(p);
    ASSERT_EQ(ls.warnings.size(), 1u);
    EXPECT_EQ(ls.warnings[0], p + ": /materials/spare: defined but not used by any object");
}

// A scene whose finite input overflows in the estimator: an emissive factor of 10 times an emission texture of
// 3e38 (tests/data/overflow-emission.pfm) is Inf where the camera sees the sphere. Every such sample is
// counted, with the first pixel, and none reaches the film; both schedules count the same samples.
TEST(NonFinite, OverflowSceneIsCountedAndNeverReachesTheFilm) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/tests/data/overflow.json");
    unsigned long long counted[2];
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        RenderOptions o;
        o.threads = 2;
        Image img = render_cpu(ls.data, ls.params, m, o);
        EXPECT_GT(img.nonfinite, 0u) << mode_name(m);
        EXPECT_LT(img.first_nonfinite_pixel, ls.params.num_pixels());
        for (float v : img.rgb) ASSERT_TRUE(std::isfinite(v));
        double sum = 0;
        for (float v : img.rgb) sum += v;
        EXPECT_GT(sum, 0.0);  // the finite samples (camera rays seeing the light, clamped) are kept
        counted[m == Mode::Megakernel] = img.nonfinite;
    }
    EXPECT_EQ(counted[0], counted[1]);
}

TEST(DeviceMemory, ProblemMessageGivesNeededAndFree) {
    EXPECT_EQ(device_memory_problem(100, 50, 150, "x", "GPU"), "");
    std::string m = device_memory_problem(3u << 20, 1u << 20, 2u << 20, "BVH 1.0 MiB", "NVIDIA H200");
    EXPECT_EQ(m,
              "the scene does not fit in GPU memory: it needs 4.0 MiB (BVH 1.0 MiB; film and at least 1.0 MiB of "
              "path queues) and NVIDIA H200 has 2.0 MiB free");
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    std::string what;
    uint64_t b = scene_device_bytes(ls.data, &what);
    EXPECT_GT(b, ls.data.info.size() * 16);
    EXPECT_NE(what.find("BVH "), std::string::npos);
    EXPECT_EQ(film_device_bytes(ls.params), 3ull * 8 * 512 * 512 + 64);
}

TEST(Determinism, CpuWavefrontRerunsBitIdentical) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/glossy-glass.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 48;
    rp.spp = 4;
    RenderOptions a, b;
    a.threads = 1;
    b.threads = 2;
    b.capacity = 1000;  // a different queue size: different slots, same image
    Image x = render_cpu(ls.data, rp, Mode::Wavefront, a), y = render_cpu(ls.data, rp, Mode::Wavefront, b);
    EXPECT_TRUE(x.rgb == y.rgb);
    double sum = 0;
    for (float v : x.rgb) sum += v;
    EXPECT_GT(sum, 0.0);
}

// ------------------------------------------------------------------------------ nothing accepted silently
namespace {
std::string write_temp(const std::string& name, const std::string& text) {
    std::string p = wp_test::temp_dir() + name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
}
// A native scene of a sphere emitting `emission` (in front of the camera), 16x16 pixels, 2 spp.
std::string emitter_scene(const std::string& name, const std::string& emission) {
    return write_temp(name, R"({"render": {"width": 16, "height": 16, "spp": 2},
      "camera": {"position": [0, 0, 5], "target": [0, 0, 0], "fov": 30},
      "materials": {"m": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m", "radius": 1, "emission": )" +
                                emission + "}]}");
}
}  // namespace

// An emission of 1e38 is finite, and the film adds each sample clamped at 1e6 (kernels/film.h): every such sample is
// counted (Image::clamped, printed by the command line as a warning), the same count in both schedules, in a render
// split over workers and through a film file; the image is the clamped one (each pixel that sees only the emitter
// is 1e6). A scene within the range clamps nothing.
TEST(NothingSilent, EmissionBeyondTheFilmRangeIsClampedAndCounted) {
    LoadedScene ls = load_scene_json(emitter_scene("bright.json", "1e38"));
    unsigned long long counted[2];
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        RenderOptions o;
        o.threads = 2;
        Image img = render_cpu(ls.data, ls.params, m, o);
        EXPECT_GT(img.clamped, 0u) << mode_name(m);
        EXPECT_EQ(img.nonfinite, 0u) << mode_name(m);
        const uint32_t centre = 8 * 16 + 8;  // sees the sphere with every sample
        EXPECT_FLOAT_EQ(img.rgb[3 * centre], 1e6f) << mode_name(m);
        counted[m == Mode::Megakernel] = img.clamped;
    }
    EXPECT_EQ(counted[0], counted[1]);
    RenderOptions o;
    o.threads = 1;
    Image split = render_cpu_split(ls.data, ls.params, Mode::Megakernel, o, 3);
    EXPECT_EQ(split.clamped, counted[1]);
    PartialFilm f = film_of(split, ls.params.prepared(), 1, "bright.json", split.samples);
    const std::string film = wp_test::temp_dir() + "bright.wpfilm";
    write_film(film, f);
    EXPECT_EQ(read_film(film).clamped, counted[1]);

    LoadedScene dim = load_scene_json(emitter_scene("dim.json", "1000"));
    RenderOptions d;
    d.threads = 2;
    EXPECT_EQ(render_cpu(dim.data, dim.params, Mode::Wavefront, d).clamped, 0u);
}

// A key given twice in one object: the JSON library would keep the last silently; an error naming its pointer, in
// the native and the Tungsten format alike, at any depth.
TEST(NothingSilent, DuplicateKeyIsAnErrorNamingItsPointer) {
    const std::string native = write_temp("dup.json", R"({"camera": {"position": [0,0,5], "target": [0,0,0]},
      "materials": {"m": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m"}, {"type": "sphere", "material": "m", "radius": 1, "radius": 2}]})");
    EXPECT_EQ(scene_error([&] { load_scene_json(native); }),
              native +
                  ": /objects/1/radius: duplicate key 'radius' (given twice in one object: which one is meant is "
                  "unknown)");
    const std::string tungsten = write_temp("dup-tungsten.json", R"({"bsdfs": [{"name": "w", "type": "lambert"}],
      "primitives": [{"type": "sphere", "bsdf": "w"}], "renderer": {"spp": 4, "spp": 8},
      "camera": {"resolution": 8, "transform": {"position": [0, 0, 4], "look_at": [0, 0, 0], "up": [0, 1, 0]}}})");
    EXPECT_EQ(
        scene_error([&] { load_scene_json(tungsten); }).rfind(tungsten + ": /renderer/spp: duplicate key 'spp'", 0),
        0u);
    // the same key in two objects is no duplicate
    const std::string fine = write_temp("no-dup.json", R"({"camera": {"position": [0,0,5], "target": [0,0,0]},
      "materials": {"m": {"type": "lambert"}, "n": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m"}, {"type": "sphere", "material": "n", "center": [3, 0, 0]}]})");
    EXPECT_NO_THROW(load_scene_json(fine));
}

// ---------------------------------------------------------------- every error names the file and the place
// A JSON syntax error and a number out of range: FILE:LINE:COLUMN and the problem in the project's words, never the
// JSON library's exception text.
TEST(ErrorPlace, JsonSyntaxAndNumberOverflowGiveLineAndColumn) {
    const std::string big =
        write_temp("big.json", "{\"camera\": {\"position\": [0, 0, 5],\n  \"target\": [0, 1e309, 0]}}");
    std::string m = scene_error([&] { load_scene_json(big); });
    EXPECT_EQ(m, big + ":2:17: the number 1e309 is out of range (a number must be finite, at most about 1.8e308)");
    const std::string comma = write_temp("comma.json", "{\"camera\": {\"fov\": 40,}\n}");
    m = scene_error([&] { load_scene_json(comma); });
    EXPECT_EQ(m.rfind(comma + ":1:23: JSON syntax error: ", 0), 0u) << m;
    const std::string empty = write_temp("empty.json", "\n");
    EXPECT_EQ(scene_error([&] { load_scene_json(empty); }),
              empty + ":1:1: JSON syntax error: the file is empty (expected a JSON object)");
    // the JSON library would take a NUL byte for the end of the text and ignore what follows
    const std::string nul = write_temp("nul.json", std::string("{\"camera\": {}}\n\0{\"more\": 1}", 27));
    EXPECT_EQ(scene_error([&] { load_scene_json(nul); }),
              nul + ":2:1: JSON syntax error: byte 0x00 is not JSON text (a binary file?)");
    for (const std::string& p : {big, comma, empty, nul})
        EXPECT_EQ(scene_error([&] { load_scene_json(p); }).find("json.exception"), std::string::npos) << p;
}

// A folder given as the scene (or a mesh): "FILE: is a folder, not a scene file", whatever its extension.
TEST(ErrorPlace, AFolderIsSaidToBeAFolder) {
    for (const char* name : {"folder.json", "folder.gltf", "folder.glb", "folder.pbrt", "folder"}) {
        const std::string p = wp_test::temp_dir() + name;
        ::mkdir(p.c_str(), 0755);
        EXPECT_EQ(scene_error([&] { load_scene_json(p); }), p + ": is a folder, not a scene file");
        EXPECT_EQ(scene_error([&] { load_render_scene(p, {}); }), p + ": is a folder, not a scene file");
    }
    const std::string obj = wp_test::temp_dir() + "folder.obj", ply = wp_test::temp_dir() + "folder.ply";
    ::mkdir(obj.c_str(), 0755);
    ::mkdir(ply.c_str(), 0755);
    try {
        load_obj(obj);
        ADD_FAILURE() << "no error";
    } catch (const MeshError& e) { EXPECT_EQ(std::string(e.what()), obj + ": is a folder, not a mesh file"); }
    try {
        load_ply(ply);
        ADD_FAILURE() << "no error";
    } catch (const MeshError& e) { EXPECT_EQ(std::string(e.what()), ply + ": is a folder, not a mesh file"); }
}

// An integer out of its range says the range, in the native and the Tungsten format.
TEST(ErrorPlace, IntegerOutOfRangeSaysTheRange) {
    const std::string native = write_temp("spp-2-40.json", R"({"render": {"spp": 1099511627776},
      "camera": {"position": [0,0,5], "target": [0,0,0]}, "materials": {"m": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m"}]})");
    EXPECT_EQ(scene_error([&] { load_scene_json(native); }),
              native + ": /render/spp: 1099511627776 is out of range (an integer from 1 to 16777216)");
    const std::string huge = write_temp("spp-2-64.json", R"({"render": {"spp": 18446744073709551615},
      "camera": {"position": [0,0,5], "target": [0,0,0]}, "materials": {"m": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m"}]})");
    EXPECT_EQ(scene_error([&] { load_scene_json(huge); }),
              huge + ": /render/spp: 18446744073709551615 is out of range (an integer from 1 to 16777216)");
    const std::string tungsten = write_temp("tungsten-seed.json", R"({"bsdfs": [{"name": "w", "type": "lambert"}],
      "primitives": [{"type": "sphere", "bsdf": "w"}], "renderer": {"seed": -1},
      "camera": {"resolution": 8, "transform": {"position": [0, 0, 4], "look_at": [0, 0, 0], "up": [0, 1, 0]}}})");
    EXPECT_EQ(scene_error([&] { load_scene_json(tungsten); }),
              tungsten + ": /renderer/seed: -1 is out of range (an integer from 0 to 4294967295)");
}

// Issue 47's memory cases, each in a child process under an address-space limit (ulimit -v, RLIMIT_AS) `extra` bytes
// above what the child maps (the limit is its own): `load` returns the child's exit code, 0 when the load failed with
// a SceneMemoryError whose message `named` accepts (13: another message, printed; 14: another error; 15: it loaded;
// 10: setrlimit failed). The parent gets that code.
namespace {
int load_under_address_limit(uint64_t extra, const std::function<int(uint64_t limit)>& check_limit,
                             const std::function<void()>& load, const std::function<bool(const std::string&)>& named) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        std::ifstream statm("/proc/self/statm");
        uint64_t pages = 0;
        statm >> pages;
        const uint64_t limit = pages * uint64_t(sysconf(_SC_PAGESIZE)) + extra;
        rlimit rl{limit, limit};
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(10);
        if (const int c = check_limit(limit)) _exit(c);
        try {
            load();
        } catch (const SceneMemoryError& e) {
            const bool ok = named(e.what());
            if (!ok) std::fprintf(stderr, "message: %s\n", e.what());
            _exit(ok ? 0 : 13);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "not a SceneMemoryError: %s\n", e.what());
            _exit(14);
        }
        _exit(15);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + status;
}
}  // namespace

// ulimit -v bounds host_memory() as the host's free memory does (an allocation past it fails whatever the host has),
// and so every check that asks it: here the subdivision's estimate of 200 triangles at levels 10 (79 GiB), refused
// under a limit of 512 MiB above what the process maps, naming the file, the place, the estimate and the limit.
TEST(HostMemory, AddressSpaceLimitBoundsTheMemoryAvailable) {
    const std::string scene = wp_test::source_dir() + "/tests/data/loopsubdiv-levels10.pbrt";
    const int code = load_under_address_limit(
        512ull << 20,
        [](uint64_t limit) {
            const HostMemory hm = host_memory();
            if (hm.address_limit != limit) return 11;
            if (hm.total > limit || hm.available > (512ull << 20)) return 12;
            return 0;
        },
        [&] { load_render_scene(scene, {}, load_options_from_env()); },
        [&](const std::string& m) {
            return m.rfind(scene +
                               ":8:20: loopsubdiv: 10 levels of 200 triangles make 209715200 "
                               "triangles and 80506.1 MiB to subdivide and load (estimate)",
                           0) == 0 &&
                   m.find("under ulimit -v (RLIMIT_AS) ") != std::string::npos &&
                   m.find("nothing was subdivided") != std::string::npos;
        });
    EXPECT_EQ(code, 0) << "10: setrlimit, 11-12: host_memory ignores the limit, 13: the message, 14: another error, "
                          "15: loaded";
}

// A std::bad_alloc in a load is reported with the file and the phase (issue 47: a bare "error: std::bad_alloc"), as
// a SceneMemoryError (exit code 3): under a limit 48 MiB above what the child maps, with no memory check asked for
// (LoadOptions{}), so that the dragon's 500000 triangles run out while they are read.
TEST(HostMemory, OutOfMemoryInALoadNamesTheFileAndThePhase) {
    const std::string scene = wp_test::source_dir() + "/scenes/dragon.json";
    const int code = load_under_address_limit(
        48ull << 20, [](uint64_t) { return 0; }, [&] { load_scene_json(scene, LoadOptions{}); },
        [&](const std::string& m) {
            return m == scene +
                            ": out of memory while reading the scene (its parse, meshes, textures "
                            "and arrays, before the BVH is built)";
        });
    EXPECT_EQ(code, 0) << "10: setrlimit, 13: the message, 14: another error, 15: loaded";
}
