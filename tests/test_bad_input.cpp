// The bad-input corpus (tests/bad_input/cases.tsv): every malformed scene throws a SceneError whose message names
// the scene file, the JSON pointer and the problem. The command line over the same corpus (exit code 1, one
// "error:" line, no crash) is the CTest cli_bad_input_corpus, also run under ASan/UBSan by CI.
#include <gtest/gtest.h>
#include <fstream>
#include <cmath>
#include <sstream>
#include "host/render/render.h"
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
        std::string file, ptr, what;
        std::getline(ss, file, '\t');
        std::getline(ss, ptr, '\t');
        std::getline(ss, what, '\t');
        ++n;
        std::string path = dir + file;
        try {
            load_scene_json(path);
            ADD_FAILURE() << file << ": loaded without an error";
        } catch (const SceneError& e) {
            std::string m = e.what();
            EXPECT_EQ(m.rfind(path + ": ", 0), 0u) << file << ": message does not start with the file: " << m;
            if (!ptr.empty()) EXPECT_NE(m.find(": " + ptr), std::string::npos) << file << ": no pointer " << ptr << " in: " << m;
            EXPECT_NE(m.find(what), std::string::npos) << file << ": no '" << what << "' in: " << m;
        } catch (const std::exception& e) {
            ADD_FAILURE() << file << ": not a SceneError: " << e.what();
        }
    }
    EXPECT_GE(n, 40);
}

TEST(BadInput, UnusedMaterialWarns) {
    std::string p = std::string(::testing::TempDir()) + "warn.json";
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
    EXPECT_EQ(m, "the scene does not fit in GPU memory: it needs 4.0 MiB (BVH 1.0 MiB; film and at least 1.0 MiB of "
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
