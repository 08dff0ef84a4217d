// The list of render settings (kernels/render_params.h): every place a setting lives walks it, so a setting is
// checked, overridden, read from a scene file, recorded in a film and compared the same way by its name. And the
// crop, the setting added through the list: its pixels are the whole render's bit for bit.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <fstream>
#include <string>
#include "host/app/render_setup.h"
#include "host/render/film_file.h"
#include "host/render/render.h"
#include "host/scene/render_settings.h"
#include "kernels/aov.h"
#include "tests/cornell_scene.h"
using namespace wp;
using wp_test::source_dir;
using wp_test::temp_dir;

namespace {
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) { return e.what(); }
    return "";
}
std::string write_scene(const std::string& name, const std::string& render_block) {
    const std::string path = temp_dir() + name;
    std::ofstream(path) << "{\"render\": " << render_block
                        << ", \"camera\": {\"position\": [0, 0, 4], \"target\": [0, 0, 0]},"
                           " \"materials\": {\"m\": {\"type\": \"lambert\", \"albedo\": 0.5}},"
                           " \"objects\": [{\"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 1,"
                           " \"material\": \"m\", \"emission\": [1, 1, 1]}]}";
    return path;
}
}  // namespace

// Each setting by its name: found, its default as text, and a value out of its range refused in the command
// line's words, naming the range.
TEST(Settings, EverySettingHasANameARangeAndADefault) {
    EXPECT_EQ(setting_names(),
              "width, height, spp, max_depth, rr_depth, seed, light_sampling, filter, clamp, crop, sampler");
    const RenderParams d = default_settings();
    EXPECT_EQ(setting_text(d, *find_setting("spp")), "16");
    EXPECT_EQ(setting_text(d, *find_setting("filter")), "box 0.5");
    EXPECT_EQ(setting_text(d, *find_setting("crop")), "none");
    EXPECT_EQ(setting_text(d, *find_setting("sampler")), "sobol");
    EXPECT_EQ(RenderParams{}.sampler, uint32_t(kSamplerSobol));  // (code that fills a struct itself: the default too)
    EXPECT_EQ(setting_value_problem(*find_setting("sampler"), "independent"), "");
    EXPECT_EQ(setting_value_problem(*find_setting("sampler"), "halton"),
              "'halton' is not one of (independent or sobol)");
    EXPECT_EQ(setting_value_problem(*find_setting("sampler"), "1"), "'1' is not one of (independent or sobol)");
    EXPECT_EQ(find_setting("nope"), nullptr);
    EXPECT_EQ(setting_value_problem(*find_setting("rr_depth"), "5000"), "5000 is out of range (1 to 1024)");
    EXPECT_EQ(setting_value_problem(*find_setting("rr_depth"), "x"), "'x' is not a whole number (1 to 1024)");
    EXPECT_EQ(setting_value_problem(*find_setting("clamp"), "-1"), "-1 is out of range (0 to 1e+30; 0: off)");
    EXPECT_EQ(setting_value_problem(*find_setting("light_sampling"), "true"), "");
    EXPECT_NE(setting_value_problem(*find_setting("crop"), "4,4,2,8").find("empty rectangle"), std::string::npos);
    // the limits' check walks the list: any setting out of its range is named with its range
    RenderParams rp = d;
    rp.rr_depth = 0;
    EXPECT_EQ(render_limits_problem(rp), "rr_depth 0 out of range (1 to 1024)");
    rp = d;
    rp.crop_x0 = 10, rp.crop_y0 = 0, rp.crop_x1 = 600, rp.crop_y1 = 4;
    EXPECT_EQ(render_limits_problem(rp),
              "crop 10,0,600,4 is not inside the 512x512 image (0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height)");
}

// Each kind's text and JSON forms (render_settings.cpp, one struct per kind): a render block written from settings
// reads back into the same settings (the film header's round trip); a setting by name from text or JSON (the
// entry point of callers that hold names) names the setting in its errors; the JSON reader names the pointer below
// the setting's.
TEST(Settings, EachKindsTextAndJsonFormsRoundTrip) {
    RenderParams rp = default_settings();
    ASSERT_EQ(apply_setting(rp, "max_depth", "8"), "");
    ASSERT_EQ(apply_setting(rp, "filter", "gaussian:1.25"), "");
    ASSERT_EQ(apply_setting(rp, "clamp", "0.1"), "");
    ASSERT_EQ(apply_setting(rp, "crop", "1,2,30,40"), "");
    ASSERT_EQ(apply_setting(rp, "light_sampling", "false"), "");
    ASSERT_EQ(apply_setting(rp, "sampler", "independent"), "");
    const nlohmann::json block = render_block(rp);
    EXPECT_EQ(block["light_sampling"], false);
    EXPECT_EQ(block["sampler"], "independent");
    EXPECT_EQ(block["crop"], nlohmann::json({1, 2, 30, 40}));
    EXPECT_EQ(block["filter"]["type"], "gaussian");
    RenderParams back;
    read_render_block(block, "/render", back,
                      [](const std::string& p, const std::string& w) { throw std::runtime_error(p + ": " + w); });
    EXPECT_EQ(settings_difference(rp, back), "");
    for (const SettingInfo& s : render_settings()) {  // text out, text in: the same value
        RenderParams t;
        EXPECT_EQ(set_setting(t, s, setting_text(rp, s)), "") << s.name;
        if (s.kind != SettingKind::Filter)
            EXPECT_TRUE(same_setting(t, rp, s)) << s.name;  // ("gaussian 1.25 (sigma 0.5)")
    }
    EXPECT_FALSE(render_block(default_settings()).contains("crop"));  // (none: not written)
    RenderParams j;
    EXPECT_EQ(apply_setting_json(j, "filter", {{"type", "tent"}, {"radius", 2}}), "");
    EXPECT_EQ(filter_text(j), "tent 2");
    EXPECT_EQ(apply_setting_json(j, "filter", {{"type", "tent"}, {"radius", -2}}), "filter/radius: must be > 0");
    EXPECT_EQ(apply_setting_json(j, "crop", {1, 2, 3}), "crop: expected [x0, y0, x1, y1] (pixels)");
    EXPECT_EQ(apply_setting_json(j, "crop", {1, 2, 3, "4"}), "crop/3: expected an integer from 0 to 32768");
    EXPECT_EQ(apply_setting_json(j, "spp", 0), "spp: 0 is out of range (an integer from 1 to 16777216)");
    EXPECT_EQ(apply_setting(j, "spp", "x"), "spp: 'x' is not a whole number (1 to 16777216)");
    EXPECT_EQ(apply_setting(j, "sp", "1").rfind("unknown setting 'sp' (settings: width, height, spp", 0), 0u);
    std::string problem;
    try {
        read_render_block({{"spq", 1}}, "/render", j,
                          [](const std::string& p, const std::string& w) { throw std::runtime_error(p + ": " + w); });
    } catch (const std::exception& e) { problem = e.what(); }
    EXPECT_EQ(problem, "/render/spq: unknown key 'spq' (did you mean 'spp'?)");
}

// --set NAME=VALUE: any setting by its name, into the same overrides as its own option; an unknown name lists the
// names, a bad value names the setting and its range, and a setting given twice is refused.
TEST(Settings, SetByNameFillsTheOverrides) {
    SceneOverrides o;
    EXPECT_EQ(set_override(o, "rr_depth=3"), "");
    EXPECT_EQ(set_override(o, "filter=tent:1"), "");
    EXPECT_EQ(set_override(o, "crop=1,2,3,4"), "");
    EXPECT_EQ(set_override(o, "light_sampling=false"), "");
    EXPECT_EQ(o.rr_depth, 3u);
    EXPECT_EQ(o.filter, "tent:1");
    EXPECT_EQ(o.crop, "1,2,3,4");
    EXPECT_EQ(o.light_sampling, 0u);
    EXPECT_EQ(set_override(o, "sampler=independent"), "");
    EXPECT_EQ(o.sampler, uint32_t(kSamplerIndependent));
    EXPECT_EQ(set_override(o, "sampler=zsobol"), "sampler: 'zsobol' is not one of (independent or sobol)");
    EXPECT_TRUE(override_given(o, "rr_depth"));
    EXPECT_FALSE(override_given(o, "seed"));
    EXPECT_EQ(set_override(o, "rr_depth=4"), "rr_depth is given twice (by --set and --rr-depth, or two --set)");
    EXPECT_EQ(set_override(o, "max_depth=0"), "max_depth: 0 is out of range (1 to 1024)");
    EXPECT_EQ(set_override(o, "depth=3"),
              "unknown setting 'depth' (settings: width, height, spp, max_depth, rr_depth, seed, light_sampling, "
              "filter, clamp, crop, sampler)");
    EXPECT_NE(set_override(o, "rr_depth").find("is not NAME=VALUE"), std::string::npos);
}

// The native scene file's render block: every key of the list, each checked against the list's range and named
// by its JSON pointer; a key the list does not have is refused.
TEST(Settings, SceneRenderBlockTakesEverySettingByItsName) {
    const std::string ok =
        write_scene("all-settings.json",
                    "{\"width\": 40, \"height\": 30, \"spp\": 2, \"max_depth\": 4, \"rr_depth\": 2, \"seed\": 9, "
                    "\"light_sampling\": false, \"filter\": \"tent\", \"clamp\": 3.5, \"crop\": [4, 2, 20, 12], "
                    "\"sampler\": \"independent\"}");
    LoadedScene ls = load_render_scene(ok, {});
    const RenderParams rp = crop_settings(ls.params);
    EXPECT_EQ(rp.width, 40u);
    EXPECT_EQ(rp.rr_depth, 2u);
    EXPECT_EQ(rp.seed, 9u);
    EXPECT_EQ(rp.light_sampling, 0u);
    EXPECT_EQ(rp.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(rp.clamp_indirect, 3.5f);
    EXPECT_EQ(setting_text(rp, *find_setting("crop")), "4,2,20,12");
    EXPECT_EQ(rp.sampler, uint32_t(kSamplerIndependent));
    EXPECT_EQ(load_scene_json(write_scene("no-sampler.json", "{}")).params.sampler, uint32_t(kSamplerSobol));
    const std::string sampler = write_scene("sampler.json", "{\"sampler\": 1}");
    EXPECT_EQ(error_of([&] { load_scene_json(sampler); }),
              sampler + ": /render/sampler: expected one of (independent or sobol), got 1");
    EXPECT_EQ(ls.params.width, 16u);  // (the renderers' form: the crop's size)
    EXPECT_EQ(ls.params.full_width, 40u);
    const std::string deep = write_scene("deep.json", "{\"max_depth\": 5000}");
    EXPECT_EQ(error_of([&] { load_scene_json(deep); }),
              deep + ": /render/max_depth: 5000 is out of range (an integer from 1 to 1024)");
    const std::string clamp = write_scene("clamp.json", "{\"clamp\": -2}");
    EXPECT_EQ(error_of([&] { load_scene_json(clamp); }),
              clamp + ": /render/clamp: -2 is out of range (0 to 1e+30; 0: off)");
    const std::string crop = write_scene("crop.json", "{\"crop\": [4, 2, 70000, 12]}");
    EXPECT_EQ(error_of([&] { load_scene_json(crop); }),
              crop + ": /render/crop/2: 70000 is out of range (an integer from 0 to 32768)");
    const std::string outside =
        write_scene("outside.json", "{\"width\": 16, \"height\": 16, \"crop\": [4, 2, 20, 12]}");
    EXPECT_EQ(
        error_of([&] { load_render_scene(outside, {}); }),
        outside + ": crop 4,2,20,12 is not inside the 16x16 image (0 <= x0 < x1 <= width, 0 <= y0 < y1 <= height)");
    const std::string unknown = write_scene("unknown.json", "{\"rr_dpeth\": 3}");
    EXPECT_NE(error_of([&] { load_scene_json(unknown); }).find("/render/rr_dpeth"), std::string::npos);
}

// The crop: camera samples only inside it, the image the crop's size, and its pixels the whole render's bit for
// bit (the camera and the random numbers see the whole image's pixel), in both schedules, with Mitchell's second
// film and with the AOVs.
TEST(Settings, CropPixelsAreTheWholeRendersBitForBit) {
    const std::string scene = source_dir() + "/scenes/cornell-box.json";
    SceneOverrides whole;
    whole.width = 40, whole.height = 32, whole.spp = 2, whole.filter = "mitchell";
    SceneOverrides cropped = whole;
    cropped.crop = "6,4,31,29";
    const LoadedScene a = load_render_scene(scene, whole), b = load_render_scene(scene, cropped);
    ASSERT_EQ(b.params.width, 25u);
    ASSERT_EQ(b.params.height, 25u);
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        RenderOptions opt;
        opt.threads = 2;
        opt.aovs = kAovAlbedo | kAovDepth;
        const Image full = render_cpu(a.data, a.params, m, opt), crop = render_cpu(b.data, b.params, m, opt);
        ASSERT_EQ(crop.width, 25u);
        ASSERT_EQ(crop.rgb.size(), 3u * 25 * 25);
        EXPECT_EQ(crop.samples, 2u * 25 * 25);  // camera samples only inside the crop
        int differ = 0;
        for (uint32_t y = 0; y < 25; ++y)
            for (uint32_t x = 0; x < 25; ++x) {
                const size_t c = size_t(y) * 25 + x, f = size_t(y + 4) * 40 + x + 6;
                for (int k = 0; k < 3; ++k) differ += crop.rgb[3 * c + k] != full.rgb[3 * f + k];
                for (int k = 0; k < 3; ++k) differ += crop.albedo[3 * c + k] != full.albedo[3 * f + k];
                differ += crop.depth[c] != full.depth[f];
            }
        EXPECT_EQ(differ, 0) << mode_name(m);
    }
}

// A film of a crop records it: its header's "crop", read back; merge and resume refuse a film of another crop. A
// film without "crop" (every film written before it) is the whole image.
TEST(Settings, FilmRecordsTheCrop) {
    const std::string scene = source_dir() + "/scenes/cornell-box.json";
    SceneOverrides o;
    o.width = 24, o.height = 16, o.spp = 1, o.crop = "2,2,10,14";
    const LoadedScene ls = load_render_scene(scene, o);
    RenderOptions opt;
    opt.threads = 1;
    const Image img = render_cpu(ls.data, ls.params, Mode::Megakernel, opt);
    const PartialFilm f = film_of(img, ls.params, 42, scene, img.samples);
    const std::string path = temp_dir() + "crop.wpfilm";
    write_film(path, f);
    const PartialFilm g = read_film(path);
    EXPECT_EQ(g.width, 8u);
    EXPECT_EQ(g.full_width, 24u);
    EXPECT_EQ(film_settings_difference(f, g), "");
    EXPECT_EQ(film_image(g).rgb, img.rgb);
    PartialFilm other = g;
    other.crop_x1 = 9;
    other.width = 7;
    EXPECT_EQ(film_settings_difference(g, other), "crop 2,2,10,14 and 2,2,9,14");
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(bytes.find("\"crop\":[2,2,10,14]"), std::string::npos);
    // a crop outside the film's image: named by its key
    std::string bad = bytes;
    bad.replace(bad.find("\"crop\":[2,2,10,14]"), 18, "\"crop\":[2,2,30,14]");
    std::ofstream(temp_dir() + "bad-crop.wpfilm", std::ios::binary) << bad;
    EXPECT_NE(error_of([&] {
                  read_film(temp_dir() + "bad-crop.wpfilm");
              }).find("bad film header: \"render/crop\": crop 2,2,30,14 is not inside the 24x16 image"),
              std::string::npos);
}
