// `wavepath bench` on the CPU backend: the JSON it writes, the SVG plot, and the ptxas resource-report parser
// (on ptxas output captured from this project's own build, tests/data/ptxas-sample.txt).
#include <gtest/gtest.h>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include "host/app/bench.h"
#include "host/app/cli_support.h"
#include "host/image/image_io.h"
#include "host/image/image_stats.h"
#include "tests/cornell_scene.h"
using namespace wp;
using json = nlohmann::json;

namespace {
std::string read_file(const std::string& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
const PtxasKernel* find(const std::vector<PtxasKernel>& v, const std::string& name) {
    for (const PtxasKernel& k : v)
        if (k.name == name) return &k;
    return nullptr;
}
}  // namespace

TEST(Bench, PtxasReportParsesEveryEntryFunction) {
    std::vector<PtxasKernel> ks = parse_ptxas(read_file(wp_test::source_dir() + "/tests/data/ptxas-sample.txt"));
    ASSERT_EQ(ks.size(), 16u);  // 7 wavepath kernels and 9 CUB kernels (radix sort, select) in the captured build
    const PtxasKernel* ext = find(ks, "extend");
    ASSERT_NE(ext, nullptr);
    EXPECT_EQ(ext->registers, 61);
    EXPECT_EQ(ext->stack_bytes, 256);
    EXPECT_EQ(ext->spill_stores, 0);
    EXPECT_EQ(ext->arch, "sm_90");
    EXPECT_EQ(ext->mangled, "_ZN2wp6extendENS_9SceneViewENS_15WavefrontQueuesEj");
    ASSERT_NE(find(ks, "megakernel"), nullptr);
    EXPECT_EQ(find(ks, "megakernel")->registers, 117);
    EXPECT_EQ(find(ks, "shade")->registers, 81);
    EXPECT_EQ(find(ks, "shade")->stack_bytes, 32);
    for (const char* k : {"generate", "shadow", "compact", "diffuse_bounce"}) EXPECT_NE(find(ks, k), nullptr) << k;
    const PtxasKernel* sel = find(ks, "DeviceSelectSweepKernel");
    ASSERT_NE(sel, nullptr);
    EXPECT_EQ(sel->shared_bytes, 23040);
    EXPECT_EQ(sel->barriers, 1);
}

TEST(Bench, PtxasSpillsAndNamesOfHandWrittenReport) {
    const char* text =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function '_ZN2wp5shadeENS_9SceneViewEj' for 'sm_90'\n"
        "ptxas info    : Function properties for _ZN2wp10helper_fnEv\n"  // a device function's block: not the entry's
        "    999 bytes stack frame, 999 bytes spill stores, 999 bytes spill loads\n"
        "ptxas info    : Function properties for _ZN2wp5shadeENS_9SceneViewEj\n"
        "    40 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
        "ptxas info    : Used 255 registers, used 2 barriers, 4096 bytes smem, 532 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'plain_c_kernel' for 'sm_80'\n"
        "ptxas info    : Function properties for plain_c_kernel\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 10 registers, used 0 barriers\n";
    std::vector<PtxasKernel> ks = parse_ptxas(text);
    ASSERT_EQ(ks.size(), 2u);
    EXPECT_EQ(ks[0].name, "shade");
    EXPECT_EQ(ks[0].registers, 255);
    EXPECT_EQ(ks[0].stack_bytes, 40);
    EXPECT_EQ(ks[0].spill_stores, 8);
    EXPECT_EQ(ks[0].spill_loads, 12);
    EXPECT_EQ(ks[0].barriers, 2);
    EXPECT_EQ(ks[0].shared_bytes, 4096);
    EXPECT_EQ(ks[0].cmem0_bytes, 532);
    EXPECT_EQ(ks[1].name, "plain_c_kernel");
    EXPECT_EQ(ks[1].arch, "sm_80");
    EXPECT_EQ(kernel_short_name("_ZN3cub17CUB_300001_SM_9006detail11EmptyKernelIvEEvv"), "EmptyKernel");
    EXPECT_TRUE(parse_ptxas("garbage\nUsed x registers\n").empty());
}

namespace {
// A small scene of a Lambert floor, a glass ball and a small emitter, at 2 spp, written as dir + name.
std::string small_scene(const std::string& dir, const std::string& name, int width, int height, int max_depth) {
    const std::string scene = dir + name;
    std::ofstream(scene) << R"({"render": {"width": )" << width << R"(, "height": )" << height
                         << R"(, "spp": 2, "max_depth": )" << max_depth << R"(},
      "camera": {"position": [0, 1, 4], "target": [0, 0.5, 0]},
      "materials": {"white": {"type": "lambert", "albedo": 0.7}, "glass": {"type": "dielectric", "ior": 1.5}},
      "objects": [{"type": "quad", "material": "white", "transform": {"matrix": [3,0,0,0, 0,0,3,0, 0,-3,0,0, 0,0,0,1]}},
                  {"type": "sphere", "material": "glass", "center": [0, 0.5, 0], "radius": 0.5},
                  {"type": "sphere", "material": "white", "center": [1, 2, 1], "radius": 0.2, "emission": 20}]})";
    return scene;
}
}  // namespace

TEST(Bench, CpuBenchWritesJsonWithEveryField) {
    std::string dir = wp_test::temp_dir();
    std::string scene = small_scene(dir, "bench-scene.json", 24, 16, 6);
    BenchOptions o;
    o.scenes = {scene};
    o.settings.backend = "cpu";
    o.repeat = 3;
    o.warmup = 1;
    o.raycast_spp = 3;
    o.settings.options.threads = 2;
    o.resources_path = wp_test::source_dir() + "/tests/data/ptxas-sample.txt";
    o.json_path = dir + "bench.json";
    o.plot_path = dir + "bench.svg";
    o.command = "wavepath bench (test)";
    run_bench(o);
    json d = json::parse(read_file(o.json_path));  // throws (fails the test) if the file is not valid JSON
    for (const char* k :
         {"tool", "command", "backend", "device", "repeat", "warmup", "timing", "kernel_resources", "scenes"})
        EXPECT_TRUE(d.contains(k)) << k;
    EXPECT_EQ(d["backend"], "cpu");
    ASSERT_EQ(d["kernel_resources"].size(), 16u);  // every instance of the report
    for (const json& r : d["kernel_resources"])
        for (const char* k : {"kernel", "registers", "spill_stores", "spill_loads", "stack_bytes", "shared_bytes"})
            EXPECT_TRUE(r.contains(k)) << k;
    ASSERT_EQ(d["scenes"].size(), 1u);
    const json& s = d["scenes"][0];
    EXPECT_EQ(s["width"], 24);
    EXPECT_EQ(s["spp"], 2);
    ASSERT_EQ(s["modes"].size(), 2u);
    EXPECT_TRUE(s.contains("speedup_wavefront_over_megakernel"));
    uint64_t ext[2], shadow[2];
    for (int m = 0; m < 2; ++m) {
        const json& jm = s["modes"][m];
        EXPECT_EQ(jm["mode"], m == 0 ? "wavefront" : "megakernel");
        for (const char* k : {"render_ms", "render_ms_runs", "samples", "extension_rays", "shadow_rays",
                              "msamples_per_s", "mrays_per_s", "extension_mrays_per_s", "shadow_mrays_per_s",
                              "peak_device_bytes", "queue_capacity", "sorted_shading", "kernels", "queue_fill"})
            EXPECT_TRUE(jm.contains(k)) << k;
        EXPECT_GT(jm["render_ms"].get<double>(), 0.0);
        EXPECT_EQ(jm["render_ms_runs"].size(), 3u);
        EXPECT_EQ(jm["samples"], 24u * 16u * 2u);
        ext[m] = jm["extension_rays"];
        shadow[m] = jm["shadow_rays"];
        EXPECT_GE(ext[m], 24u * 16u * 2u);  // at least the camera rays
        EXPECT_GT(shadow[m], 0u);
        double rate = jm["extension_mrays_per_s"].get<double>() + jm["shadow_mrays_per_s"].get<double>();
        EXPECT_NEAR(rate, jm["mrays_per_s"].get<double>(), 1e-6 * rate);
        std::set<std::string> names;
        double pct = 0;
        for (const json& k : jm["kernels"]) {
            names.insert(k["kernel"]);
            for (const char* f : {"launches", "ms", "percent_of_frame", "avg_ms"}) EXPECT_TRUE(k.contains(f)) << f;
            pct += k["percent_of_frame"].get<double>();
        }
        EXPECT_LE(pct, 100.0 + 1e-6);  // the median run's kernels, nested in its frame
        if (m == 0) {
            // the tail drain runs when the last live paths fit under its threshold (the default, 524288)
            // compaction by push (the default) has no kernel of its own
            // (two material families, no coated one: the whole set's shade kernel, LOG entry 66)
            EXPECT_EQ(names, (std::set<std::string>{"generate", "extend", "shade", "shadow", "drain"}));
            EXPECT_TRUE(jm["push_compaction"].get<bool>());
            for (const char* gone : {"index_compaction", "pipelined", "graphs", "l2_persist"})  // options removed
                EXPECT_FALSE(jm.contains(gone)) << gone;
            EXPECT_GT(jm["drained_paths"].get<uint64_t>(), 0u);
            EXPECT_EQ(jm["drain_below"].get<uint32_t>(), RenderOptions::kDefaultDrainBelow);
            EXPECT_GT(jm["peak_device_bytes"].get<uint64_t>(), 0u);
            ASSERT_FALSE(jm["queue_fill"].empty());
            EXPECT_EQ(jm["queue_fill"][0]["depth"], 0);
            EXPECT_EQ(jm["queue_fill"][0]["paths"], 24u * 16u * 2u);
            EXPECT_DOUBLE_EQ(jm["queue_fill"][0]["fraction_of_camera_paths"].get<double>(), 1.0);
            for (const json& k : jm["kernels"])  // ptxas describes the GPU's kernels, not the CPU's stages
                for (const char* f : {"registers", "spill_stores", "spill_loads", "stack_bytes", "symbol"})
                    EXPECT_FALSE(k.contains(f)) << k["kernel"] << " " << f;
        } else {
            EXPECT_EQ(names, (std::set<std::string>{"megakernel"}));
        }
    }
    EXPECT_EQ(ext[0], ext[1]);  // same estimator, same random numbers: the same rays
    EXPECT_EQ(shadow[0], shadow[1]);
    const json& rc = s["raycast"];
    EXPECT_EQ(rc["primary_rays"], 24u * 16u * 3u);
    EXPECT_GT(rc["diffuse_rays"].get<uint64_t>(), 0u);
    EXPECT_LT(rc["diffuse_rays"].get<uint64_t>(), rc["primary_rays"].get<uint64_t>());  // some camera rays miss
    EXPECT_GT(rc["primary_grays_per_s"].get<double>(), 0.0);
    EXPECT_GT(rc["diffuse_grays_per_s"].get<double>(), 0.0);

    std::string svg = read_file(o.plot_path);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    size_t rects = 0;
    for (size_t i = svg.find("<rect"); i != std::string::npos; i = svg.find("<rect", i + 1)) ++rects;
    // background, the wavefront's five kernel bars, the megakernel's bar, two frame outlines, six legend entries
    EXPECT_GE(rects, 1u + 5u + 1u + 2u + 6u);
    EXPECT_NE(svg.find("<title>extend "), std::string::npos);
    // the title names the CPU once: "(cpu, 2 threads)", not "(cpu, 2 threads, cpu)"
    EXPECT_NE(svg.find("wavepath bench: time per stage, stacked (cpu, 2 threads)</text>"), std::string::npos)
        << svg.substr(0, 400);
}

TEST(Bench, SvgTitleOfAGpuRunNamesBackendAndDevice) {
    json doc{{"backend", "gpu"}, {"device", "NVIDIA H100 80GB HBM3"}, {"scenes", json::array()}};
    EXPECT_NE(bench_plot_svg(doc).find("time per kernel, stacked (gpu: NVIDIA H100 80GB HBM3)</text>"),
              std::string::npos);
}

TEST(CliSupport, IgnoredOptionsCountedWithTheirReasons) {
    const std::vector<std::string> all = {"--capacity",          "--sort-materials", "--sort-rays",       "--drain",
                                          "--select-compaction", "--refill",         "--general-kernels", "--threads",
                                          "--no-kernel-timing",  "--no-queue-stats", "--raycast-spp"};
    auto names = [](const std::vector<IgnoredOption>& v) {
        std::vector<std::string> n;
        for (const IgnoredOption& o : v) n.push_back(o.option);
        return n;
    };
    OptionUse cpu_mk;  // the CPU's default: the megakernel
    cpu_mk.megakernel = true;
    EXPECT_EQ(names(ignored_options(all, cpu_mk)),
              (std::vector<std::string>{"--capacity", "--sort-materials", "--sort-rays", "--drain",
                                        "--select-compaction", "--refill", "--general-kernels", "--no-kernel-timing",
                                        "--no-queue-stats", "--raycast-spp"}));
    OptionUse cpu_wf = cpu_mk;
    cpu_wf.wavefront = true;
    cpu_wf.raycast = true;
    EXPECT_EQ(names(ignored_options(all, cpu_wf)),
              (std::vector<std::string>{"--refill", "--general-kernels", "--no-kernel-timing"}));
    OptionUse gpu_wf;
    gpu_wf.gpu = gpu_wf.wavefront = true;
    EXPECT_EQ(names(ignored_options(all, gpu_wf)), (std::vector<std::string>{"--threads", "--raycast-spp"}));
    OptionUse gpu_mk;
    gpu_mk.gpu = gpu_mk.megakernel = gpu_mk.raycast = true;  // bench: the ray-cast pass uses --capacity, --refill
    EXPECT_EQ(names(ignored_options({"--capacity", "--refill", "--drain"}, gpu_mk)),
              (std::vector<std::string>{"--drain"}));
    EXPECT_EQ(ignored_options_text({}, "x"), "");
    const std::string t = ignored_options_text(ignored_options({"--drain", "--refill", "--capacity"}, cpu_mk),
                                               "this render (cpu megakernel)");
    EXPECT_EQ(t,
              "warning: 3 options do nothing in this render (cpu megakernel) and are ignored: --drain, --refill, "
              "--capacity\n"
              "  --drain, --capacity: wavefront only; the cpu runs the megakernel here (--mode wavefront runs the "
              "wavefront)\n"
              "  --refill: GPU backend only; this runs on the cpu\n");
}

TEST(CliSupport, SceneOutputNames) {
    const std::string dir = ::testing::TempDir();
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir + name) << text;
        return dir + name;
    };
    std::string d;
    EXPECT_EQ(scene_output_name(wp_test::source_dir() + "/scenes/cornell-box.pbrt", &d), "cornell-box.exr");
    EXPECT_EQ(d, "Film \"filename\"");
    EXPECT_EQ(scene_output_name(wp_test::source_dir() + "/scenes/cornell-box/scene.json", &d), "cornell-box.exr");
    EXPECT_EQ(d, "renderer.hdr_output_file");
    EXPECT_EQ(scene_output_name(wp_test::source_dir() + "/scenes/water-caustic/scene.json", &d), "TungstenRender.png");
    EXPECT_EQ(d, "renderer.output_file");
    EXPECT_EQ(scene_output_name(wp_test::source_dir() + "/scenes/cornell-box.json"), "");  // native: none
    // pbrt: the filename of Film alone, in brackets or not, comments skipped, not after WorldBegin
    EXPECT_EQ(scene_output_name(write("a.pbrt",
                                      "# Film \"rgb\" \"string filename\" \"no.exr\"\n"
                                      "Film \"rgb\" \"integer xresolution\" [ 8 ]\n"
                                      "  \"string filename\" [ \"out/a.png\" ]  # the image\n"
                                      "Sampler \"independent\"\nWorldBegin\n")),
              "out/a.png");
    EXPECT_EQ(scene_output_name(write("b.pbrt",
                                      "Film \"rgb\" \"integer xresolution\" [ 8 ]\n"
                                      "Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.png\"\n"
                                      "WorldBegin\n")),
              "");
    EXPECT_EQ(scene_output_name(write("c.pbrt", "WorldBegin\nFilm \"rgb\" \"string filename\" \"late.exr\"\n")), "");
    EXPECT_EQ(scene_output_name(dir + "missing.pbrt"), "");
}

TEST(Bench, BadArgumentsThrow) {
    BenchOptions o;
    EXPECT_THROW(run_bench(o), std::runtime_error);  // no scenes
    o.scenes = {"/nonexistent/scene.json"};
    o.settings.backend = "cpu";
    EXPECT_THROW(run_bench(o), std::exception);
}

// The default benchmark set: the five native scenes, then the four published pbrt-v4 scenes, which the build folder
// holds (extracted from tests/parity/published.tar.xz at configure time); every file is there.
TEST(Bench, DefaultSetHoldsTheNativeAndThePublishedScenes) {
    const std::string dir = find_bench_scenes();
    ASSERT_FALSE(dir.empty()) << bench_scene_places();
    std::string missing;
    const std::vector<std::string> v = default_bench_scenes(dir, missing);
    EXPECT_EQ(missing, "");
    ASSERT_EQ(v.size(), 9u);
    for (size_t k = 0; k < v.size(); ++k) {
        EXPECT_TRUE(bool(std::ifstream(v[k]))) << v[k];
        const std::string ext = k < 5 ? ".json" : ".pbrt";
        EXPECT_EQ(v[k].substr(v[k].size() - ext.size()), ext) << v[k];
    }
    EXPECT_NE(v[5].find("published/veach-ajar/veach-ajar.pbrt"), std::string::npos) << v[5];
}

// relMSE as pbrt-v4's and Mitsuba's tools define it: the mean over pixels and channels of (x - ref)^2 / (ref^2 +
// 1e-2), beside the plain MSE, on a pair of 2x1 images worked out by hand; non-finite pairs left out; sizes checked.
TEST(Bench, RelMseIsTheMeanOfSquaredErrorOverReferenceSquaredPlusOneHundredth) {
    Image a, ref;
    a.width = ref.width = 2;
    a.height = ref.height = 1;
    a.rgb = {1.0f, 0.0f, 0.5f, 2.0f, 2.0f, 2.0f};
    ref.rgb = {0.0f, 0.0f, 0.5f, 1.0f, 2.0f, 4.0f};
    // squared errors 1, 0, 0, 1, 0, 4; over ref^2 + 0.01: 1/0.01, 0, 0, 1/1.01, 0, 4/16.01
    const ReferenceError e = reference_error(a, ref);
    EXPECT_DOUBLE_EQ(e.mse, 6.0 / 6.0);
    EXPECT_NEAR(e.relmse, (100.0 + 1.0 / 1.01 + 4.0 / 16.01) / 6.0, 1e-12);
    EXPECT_EQ(e.skipped, 0u);
    EXPECT_EQ(reference_error(ref, ref).relmse, 0.0);
    a.rgb[3] = std::numeric_limits<float>::quiet_NaN();  // the pair (NaN, 1) left out: the others' mean
    const ReferenceError f = reference_error(a, ref);
    EXPECT_EQ(f.skipped, 1u);
    EXPECT_DOUBLE_EQ(f.mse, 5.0 / 5.0);
    EXPECT_NEAR(f.relmse, (100.0 + 4.0 / 16.01) / 5.0, 1e-12);
    Image small = ref;
    small.width = 1;
    small.rgb.resize(3);
    EXPECT_THROW(reference_error(a, small), std::invalid_argument);
}

// The time to a target error, in log-log: a power law between two points is followed exactly (not a straight line
// in linear time), the last segment's slope carries beyond the list, the first's before it (both said to be
// extrapolations), and a curve that does not fall gives no time.
TEST(Bench, TimeToTargetRelMseInterpolatesInLogLog) {
    const std::vector<uint32_t> spp{16, 64, 256};
    const std::vector<double> ms{10, 40, 160};
    // error 0.1 x (ms/10)^-1 from 16 to 64 spp, then (ms/40)^-2 from 64 to 256
    const std::vector<double> err{0.1, 0.025, 0.025 / 16};
    TargetTime t = time_to_target(spp, ms, err, 0.05);  // (0.1 -> 0.05: twice the time)
    EXPECT_NEAR(t.ms, 20.0, 1e-9);
    EXPECT_FALSE(t.extrapolated);
    EXPECT_EQ(t.how, "interpolated between 16 and 64 spp");
    t = time_to_target(spp, ms, err, 0.025 / 4);  // slope -2: a quarter of the error in twice the time
    EXPECT_NEAR(t.ms, 80.0, 1e-9);                // (linear interpolation in time would give 130)
    EXPECT_FALSE(t.extrapolated);
    t = time_to_target(spp, ms, err, 0.025 / 64);  // beyond 256 spp along the last segment's slope, -2
    EXPECT_NEAR(t.ms, 320.0, 1e-9);
    EXPECT_TRUE(t.extrapolated);
    EXPECT_NE(t.how.find("extrapolated beyond 256 spp along 64-256 spp"), std::string::npos) << t.how;
    t = time_to_target(spp, ms, err, 0.2);  // before 16 spp along the first segment's slope, -1
    EXPECT_NEAR(t.ms, 5.0, 1e-9);
    EXPECT_TRUE(t.extrapolated);
    EXPECT_TRUE(std::isnan(time_to_target({16, 64}, {10, 40}, {0.1, 0.2}, 0.01).ms));  // the error grows
    EXPECT_TRUE(std::isnan(time_to_target({16}, {10}, {0.1}, 0.01).ms));               // one point
    EXPECT_TRUE(std::isnan(time_to_target({16, 64}, {10, 40}, {0.1, 0.0}, 0.01).ms));  // an error of 0
}

namespace {
// The error bench's scene (noisy at a few samples).
std::string error_scene(const std::string& dir) { return small_scene(dir, "error-scene.json", 16, 16, 4); }
BenchOptions error_bench(const std::string& scene) {
    BenchOptions o;
    o.scenes = {scene};
    o.settings.backend = "cpu";
    o.settings.options.threads = 2;
    o.modes = {Mode::Megakernel};
    o.repeat = 1;
    o.warmup = 0;
    o.raycast = false;
    o.spp_list = {16, 64};
    return o;
}
}  // namespace

// bench --reference auto --spp-list 16,64 on the CPU: the reference rendered first (megakernel, 16x the largest
// count, the next seed), the error at 64 spp below the error at 16, each count's time, the time to the target in the
// JSON, and the error panel in the plot.
TEST(Bench, ErrorFallsWithSamplesAgainstAnAutoReference) {
    const std::string dir = wp_test::temp_dir();
    BenchOptions o = error_bench(error_scene(dir));
    o.reference = "auto";
    o.json_path = dir + "error-bench.json";
    o.plot_path = dir + "error-bench.svg";
    run_bench(o);
    const json d = json::parse(read_file(o.json_path));
    EXPECT_EQ(d["reference"], "auto");
    EXPECT_DOUBLE_EQ(d["target_relmse"].get<double>(), 0.01);
    const json& s = d["scenes"][0];
    EXPECT_EQ(s["reference"]["spp"], 16 * 64);
    EXPECT_NE(s["reference"]["seed"], 0);  // not the measured renders' seed
    const json& m = s["modes"][0];
    ASSERT_EQ(m["error"].size(), 2u);
    const json &e16 = m["error"][0], &e64 = m["error"][1];
    EXPECT_EQ(e16["spp"], 16);
    EXPECT_EQ(e64["spp"], 64);
    for (const json& p : {e16, e64}) {
        EXPECT_GT(p["ms"].get<double>(), 0.0);
        EXPECT_GT(p["mse"].get<double>(), 0.0);
        EXPECT_GT(p["relmse"].get<double>(), 0.0);
    }
    std::printf("MSE 16 spp %.4g, 64 spp %.4g; relMSE %.4g, %.4g\n", e16["mse"].get<double>(), e64["mse"].get<double>(),
                e16["relmse"].get<double>(), e64["relmse"].get<double>());
    EXPECT_LT(e64["mse"].get<double>(), e16["mse"].get<double>());
    EXPECT_LT(e64["relmse"].get<double>(), e16["relmse"].get<double>());
    ASSERT_TRUE(m.contains("ms_to_target_relmse"));
    ASSERT_TRUE(m["ms_to_target_relmse"].is_number()) << m["ms_to_target_relmse_how"];
    EXPECT_GT(m["ms_to_target_relmse"].get<double>(), 0.0);
    const std::string svg = read_file(o.plot_path);
    EXPECT_NE(svg.find("relMSE against render time (log-log)"), std::string::npos);
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
    EXPECT_NE(svg.find("<title>megakernel 64 spp: "), std::string::npos);
    EXPECT_NE(svg.find("target relMSE 0.01"), std::string::npos);
}

// A reference file of another size than the render is refused, naming both sizes and the file.
TEST(Bench, ReferenceOfAnotherSizeIsRefusedNamingBothSizes) {
    const std::string dir = wp_test::temp_dir();
    Image ref;
    ref.width = ref.height = 8;
    ref.rgb.assign(8 * 8 * 3, 0.5f);
    const std::string path = dir + "ref-8x8.pfm";
    write_image(path, ref);
    BenchOptions o = error_bench(error_scene(dir));
    o.reference = path;
    try {
        run_bench(o);
        FAIL() << "a reference of 8x8 against a render of 16x16 was taken";
    } catch (const SceneError& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("ref-8x8.pfm is 8x8"), std::string::npos) << m;
        EXPECT_NE(m.find("renders 16x16"), std::string::npos) << m;
    }
    o.settings.scene.width = 8;  // of the render's size: taken
    o.settings.scene.height = 8;
    EXPECT_NO_THROW(run_bench(o));
}

// A reference file is one scene's image: with two scenes it is refused before any work ("auto" is not).
TEST(Bench, ReferenceFileWithTwoScenesIsRefused) {
    const std::string dir = wp_test::temp_dir();
    BenchOptions o = error_bench(error_scene(dir));
    o.scenes.push_back(o.scenes[0]);
    o.reference = dir + "does-not-matter.exr";
    EXPECT_NE(bench_reference_problem(o).find("2 scenes are given"), std::string::npos) << bench_reference_problem(o);
    try {  // refused for the two scenes, before the file is looked for
        run_bench(o);
        FAIL() << "a reference file was taken for two scenes";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("is the image of one scene, and 2 scenes are given"), std::string::npos)
            << e.what();
    }
    o.reference = "auto";
    EXPECT_EQ(bench_reference_problem(o), "");
    o.scenes.pop_back();
    o.reference = dir + "does-not-matter.exr";
    EXPECT_EQ(bench_reference_problem(o), "");
    EXPECT_THROW(run_bench(o), SceneError);  // one scene, a file that is not there: the input's error
}

// The error's options without their partners do nothing, and are said to.
TEST(CliSupport, ErrorOptionsWithoutTheirPartnersAreIgnored) {
    const std::vector<std::string> all = {"--spp-list", "--reference", "--reference-spp", "--target-relmse"};
    auto names = [](const std::vector<IgnoredOption>& v) {
        std::vector<std::string> n;
        for (const IgnoredOption& o : v) n.push_back(o.option);
        return n;
    };
    OptionUse u;
    u.megakernel = true;
    EXPECT_EQ(names(ignored_options(all, u)), all);
    u.reference = true;  // a file, no list
    EXPECT_EQ(names(ignored_options(all, u)),
              (std::vector<std::string>{"--reference", "--reference-spp", "--target-relmse"}));
    u.spp_list = true;
    EXPECT_EQ(names(ignored_options(all, u)), (std::vector<std::string>{"--reference-spp"}));
    u.auto_reference = true;
    EXPECT_TRUE(ignored_options(all, u).empty());
}

// A coated scene shades by material family (LOG entry 66): the wavefront's kernel table has a row per family the
// scene has, each with the paths its kernel shaded, which add up to at most the extension rays.
TEST(Bench, CoatedSceneHasARowPerFamilyWithItsPaths) {
    const std::string dir = wp_test::temp_dir();
    BenchOptions o;
    o.scenes = {wp_test::source_dir() + "/tests/parity/scenes/mat_coatedconductor_rough.pbrt"};
    o.settings.backend = "cpu";
    o.repeat = 1;
    o.warmup = 0;
    o.raycast = false;
    o.modes = {Mode::Wavefront};
    o.settings.options.threads = 2;
    o.json_path = dir + "bench.json";
    o.command = "wavepath bench (test)";
    run_bench(o);
    const json d = json::parse(read_file(o.json_path));
    const json& jm = d["scenes"][0]["modes"][0];
    std::set<std::string> rows;
    uint64_t shaded = 0;
    for (const json& k : jm["kernels"]) {
        const std::string name = k["kernel"];
        rows.insert(name);
        if (name.rfind("shade_", 0) == 0) {
            ASSERT_TRUE(k.contains("paths")) << name;
            shaded += k["paths"].get<uint64_t>();
        }
    }
    for (const char* r : {"shade_lambert", "shade_layered"}) EXPECT_TRUE(rows.count(r)) << r;
    EXPECT_FALSE(rows.count("shade"));
    EXPECT_GT(shaded, 0u);
    EXPECT_LE(shaded, jm["extension_rays"].get<uint64_t>());
}
