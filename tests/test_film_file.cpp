// Partial films (host/render/film_file.h): shards of sample ranges, their merge and the resume of an interrupted
// render equal the single render bit for bit on the CPU, both schedules (the GPU's in tests/test_gpu.cpp); the file
// round trip; the merge's refusals of other scenes, other settings and overlapping ranges, and its missing ranges.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <fstream>
#include "host/render/film_file.h"
#include "host/scene/render_settings.h"
#include "tests/cornell_scene.h"
#include "kernels/aov.h"
#include "kernels/film.h"
#include "kernels/filter.h"
#include "tests/shard_checks.h"

using namespace wp;
using namespace wp_test;

namespace {
Image cpu(const SceneData& s, const RenderParams& rp, Mode m, const RenderOptions& o) {
    RenderOptions x = o;
    x.threads = 2;
    return render_cpu(s, rp, m, x);
}
PartialFilm part(uint64_t b, uint64_t e, uint32_t seed = 7, uint64_t hash = 42) {
    PartialFilm f;
    f.scene = "cornell.json";
    f.scene_hash = hash;
    RenderParams rp = shard_params();
    rp.seed = seed;
    set_film_settings(f, rp);
    f.begin = b;
    f.end = f.target_end = e;
    f.sum.assign(3 * f.pixels(), b + 1);
    return f;
}
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const FilmError& e) { return e.what(); }
    return "(no error)";
}
}  // namespace

TEST(Shards, MegakernelMergeIsBitIdentical) { check_shards_merge_bit_identical(cpu, Mode::Megakernel); }
TEST(Shards, WavefrontMergeIsBitIdentical) { check_shards_merge_bit_identical(cpu, Mode::Wavefront); }
TEST(Shards, MegakernelResumeIsBitIdentical) { check_resume_bit_identical(cpu, Mode::Megakernel); }
TEST(Shards, WavefrontResumeIsBitIdentical) { check_resume_bit_identical(cpu, Mode::Wavefront); }

TEST(Shards, RangeOutsideTheRenderThrows) {
    SceneData sd = cornell();
    RenderParams rp = shard_params();
    RenderOptions o;
    o.sample_begin = 10;
    o.sample_end = uint64_t(rp.num_pixels()) * rp.spp + 1;
    EXPECT_THROW(render_cpu(sd, rp, Mode::Megakernel, o), std::invalid_argument);
    o.sample_end = 5;
    EXPECT_THROW(render_cpu(sd, rp, Mode::Wavefront, o), std::invalid_argument);
}

TEST(FilmFile, RoundTripIsExact) {
    PartialFilm f = part(660, 1980);
    f.sum[0] = 0xfedcba9876543210ull;  // every byte of a word
    f.nonfinite = 3;
    f.first_nonfinite_pixel = 17;
    f.target_end = 5280;
    const std::string path = temp_dir() + "roundtrip.wpfilm";
    write_film(path, f);
    PartialFilm g = read_film(path);
    EXPECT_EQ(g.sum, f.sum);
    EXPECT_EQ(g.scene_hash, f.scene_hash);
    EXPECT_EQ(g.begin, 660u);
    EXPECT_EQ(g.end, 1980u);
    EXPECT_EQ(g.target_end, 5280u);
    EXPECT_EQ(g.nonfinite, 3u);
    EXPECT_EQ(g.first_nonfinite_pixel, 17u);
    EXPECT_EQ(film_settings_difference(f, g), "");
    PartialFilm h = f;  // the filter and clamp round-trip too
    h.filter = 3;
    h.filter_radius = 1.5f;
    h.filter_sigma = 0.6f;
    h.clamp_indirect = 2.5f;
    write_film(path, h);
    EXPECT_EQ(film_settings_difference(h, read_film(path)), "");
    EXPECT_NE(film_settings_difference(f, read_film(path)), "");
    write_film(path, f);
    // truncated, and not a film at all
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(temp_dir() + "short.wpfilm", std::ios::binary) << bytes.substr(0, bytes.size() - 1);
    EXPECT_NE(error_of([&] { read_film(temp_dir() + "short.wpfilm"); }).find("truncated"), std::string::npos);
    std::ofstream(temp_dir() + "text.wpfilm") << "hello\n";
    EXPECT_NE(error_of([&] { read_film(temp_dir() + "text.wpfilm"); }).find("not a wavepath film"), std::string::npos);
}

// Every header field checked for its type and range on read: a bad one is an error naming the file and the key (a
// film whose "spp" is -4 once resumed as 4294967292 spp), never the JSON library's exception text.
TEST(FilmFile, EveryHeaderFieldIsCheckedAndABadOneNamed) {
    PartialFilm f = part(0, 1980);
    f.clamped = 5;  // the clamp count round-trips
    const std::string good = temp_dir() + "header.wpfilm";
    write_film(good, f);
    EXPECT_EQ(read_film(good).clamped, 5u);
    std::ifstream in(good, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t h0 = bytes.find('\n') + 1, h1 = bytes.find('\n', h0);
    const std::string header = bytes.substr(h0, h1 - h0);
    // the film with `from` in its header replaced by `to`; the message of reading it
    auto with = [&](const std::string& from, const std::string& to) {
        const size_t at = header.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        std::string h = header;
        h.replace(at, from.size(), to);
        const std::string p = temp_dir() + "bad-header.wpfilm";
        std::ofstream(p, std::ios::binary) << bytes.substr(0, h0) << h << bytes.substr(h1);
        return error_of([&] { read_film(p); });
    };
    const std::string bad = temp_dir() + "bad-header.wpfilm: bad film header: ";
    const std::string spp = "\"spp\":" + std::to_string(f.spp);
    // the settings: the header's render block, read as a scene file's (render/NAME)
    EXPECT_EQ(with(spp, "\"spp\":-4"), bad + "\"render/spp\": -4 is out of range (an integer from 1 to 16777216)");
    EXPECT_EQ(with(spp, "\"spp\":\"4\""), bad + "\"render/spp\": expected an integer from 1 to 16777216");
    EXPECT_EQ(with(spp, "\"spp\":4.5"), bad + "\"render/spp\": expected an integer from 1 to 16777216");
    EXPECT_EQ(with("\"width\":" + std::to_string(f.width), "\"width\":40000"),
              bad + "\"render/width\": 40000 is out of range (an integer from 1 to 32768)");
    EXPECT_EQ(with(spp + ",", ""), bad + "\"render/spp\": missing");
    EXPECT_EQ(with("\"render\":{", "\"render\":{\"spq\":1,"),
              bad + "\"render/spq\": unknown key 'spq' (did you mean 'spp'?)");
    EXPECT_EQ(with("\"format\":\"wavepath partial film\"", "\"format\":\"other\""),
              bad + "\"format\": \"other\" is not \"wavepath partial film\"");
    EXPECT_EQ(with("\"scene\":\"cornell.json\"", "\"scene\":7"),
              bad + "\"scene\": expected a string, got the number 7");
    EXPECT_EQ(with("\"scene_fingerprint\":\"", "\"scene_fingerprint\":\"xyz"),
              bad + "\"scene_fingerprint\": \"xyz000000000000002a\" is not a fingerprint (1 to 16 hexadecimal digits)");
    EXPECT_EQ(with("\"light_sampling\":true", "\"light_sampling\":[1]"),
              bad + "\"render/light_sampling\": expected true or false");
    EXPECT_EQ(with("\"end\":1980", "\"end\":-1980"),
              bad + "\"end\": -1980 is out of range (an integer from 0 to 18446744073709551615)");
    EXPECT_EQ(with("\"clamp\":0.0", "\"clamp\":-1"), bad + "\"render/clamp\": -1 is out of range (0 to 1e+30; 0: off)");
    EXPECT_EQ(with("\"filter\":{", "\"filter\":{\"radus\":1,"),
              bad + "\"render/filter/radus\": unknown key 'radus' (did you mean 'radius'?)");
    EXPECT_EQ(with("\"nonfinite\":0", "\"nonfinite\":null"),
              bad + "\"nonfinite\": expected an integer from 0 to 18446744073709551615, got null");
    EXPECT_EQ(with("\"clamped\":5", "\"clamped\":-5"),
              bad + "\"clamped\": -5 is out of range (an integer from 0 to 18446744073709551615)");
    // the sampler by its name (a film without one, made before the setting: FilmFile.ReadsFilmsBeforeTheRenderBlock)
    EXPECT_EQ(with("\"sampler\":\"sobol\"", "\"sampler\":\"halton\""),
              bad + "\"render/sampler\": expected one of (independent or sobol), got \"halton\"");
    EXPECT_EQ(with("\"sampler\":\"sobol\"", "\"sampler\":1"),
              bad + "\"render/sampler\": expected one of (independent or sobol), got 1");
    EXPECT_EQ(read_film(good).sampler, uint32_t(kSamplerSobol));
    // not JSON, a number out of range, a duplicate key: the place in the header (line 2 of the file), in our words
    const std::string file = temp_dir() + "bad-header.wpfilm";
    std::string m = with(spp, "\"spp\":1e309");
    EXPECT_EQ(m.rfind(file + ":2:", 0), 0u) << m;
    EXPECT_NE(m.find("the number 1e309 is out of range"), std::string::npos) << m;
    EXPECT_EQ(
        with(spp, spp + ",\"spp\":5"),
        file +
            ": /render/spp: duplicate key 'spp' (given twice in one object: which one is meant is unknown) (in the "
            "film header)");
    m = with(spp, "\"spp\":");
    EXPECT_EQ(m.rfind(file + ":2:", 0), 0u) << m;
    EXPECT_NE(m.find("JSON syntax error"), std::string::npos) << m;
    for (const std::string& s : {with(spp, "\"spp\":-4"), with(spp, "\"spp\":\"4\""), m})
        EXPECT_EQ(s.find("json.exception"), std::string::npos) << s;
    EXPECT_NO_THROW(read_film(good));
}

// A forged header (16384x16384 pixels on a small film's sums) is refused against the file's size before the sums are
// allocated (they would take 6 GiB): the message names the header's keys and both sizes. In a child process under a
// 512 MiB address-space limit, so that an allocation made first would end in std::bad_alloc, not this FilmError.
TEST(FilmFile, HeaderCheckedAgainstTheFileSizeBeforeAllocating) {
    PartialFilm f = part(0, 1980);
    const std::string good = temp_dir() + "forged-size.wpfilm";
    write_film(good, f);
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string w = "\"width\":" + std::to_string(f.width), h = "\"height\":" + std::to_string(f.height);
    ASSERT_NE(bytes.find(w), std::string::npos);
    bytes.replace(bytes.find(w), w.size(), "\"width\":16384");
    bytes.replace(bytes.find(h), h.size(), "\"height\":16384");
    const std::string forged = temp_dir() + "forged.wpfilm";
    std::ofstream(forged, std::ios::binary) << bytes;
    const std::string m = error_of([&] { read_film(forged); });
    EXPECT_EQ(
        m.rfind(forged + ": bad film header: \"width\" x \"height\" 16384x16384 need 6442450944 bytes of sums", 0), 0u)
        << m;
    EXPECT_NE(m.find("(truncated"), std::string::npos) << m;
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        rlimit rl{512ull << 20, 512ull << 20};
        setrlimit(RLIMIT_AS, &rl);
        try {
            read_film(forged);
        } catch (const FilmError&) { _exit(0); } catch (...) {
            _exit(2);
        }
        _exit(1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status << " (2: not a FilmError)";
}

// A film written before the header's render block (its settings at the header's top level, the filter as a number
// with "filter_radius" and "filter_sigma", a flag as 0 or 1): tests/data/film-before-render-block.wpfilm, written by
// main 86241ac (4x3, crop 1,0,3,3, tent filter, clamp 2, max_depth 65), reads through the shim into the same
// settings; one without "sampler" (before that setting) as the independent sampler's; a bad value named by its key.
TEST(FilmFile, ReadsFilmsBeforeTheRenderBlock) {
    const std::string older = source_dir() + "/tests/data/film-before-render-block.wpfilm";
    const PartialFilm f = read_film(older);
    EXPECT_EQ(f.full_width, 4u);
    EXPECT_EQ(f.width, 2u);  // (the crop's)
    EXPECT_EQ(f.height, 3u);
    EXPECT_EQ(f.spp, 2u);
    EXPECT_EQ(f.max_depth, 65u);
    EXPECT_EQ(f.light_sampling, 1u);
    EXPECT_EQ(f.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(f.filter_radius, 1.0f);
    EXPECT_EQ(f.clamp_indirect, 2.0f);
    EXPECT_EQ(f.sampler, uint32_t(kSamplerSobol));
    EXPECT_EQ(setting_text(crop_settings(f), *find_setting("crop")), "1,0,3,3");
    EXPECT_EQ(f.end, 6u);
    // written again: the render block, the same settings
    const std::string again = temp_dir() + "older-again.wpfilm";
    write_film(again, f);
    EXPECT_EQ(film_settings_difference(f, read_film(again)), "");
    std::ifstream in(older, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto edited = [&](const std::string& from, const std::string& to) {
        std::string b = bytes;
        const size_t at = b.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        b.replace(at, from.size(), to);
        const std::string p = temp_dir() + "older-edited.wpfilm";
        std::ofstream(p, std::ios::binary) << b;
        return p;
    };
    EXPECT_EQ(read_film(edited("\"sampler\":\"sobol\",", "")).sampler, uint32_t(kSamplerIndependent));
    const std::string p = edited("\"spp\":2", "\"spp\":-4");
    EXPECT_EQ(error_of([&] { read_film(p); }),
              p + ": bad film header: \"spp\": -4 is out of range (an integer from 1 to 16777216)");
    const std::string q = edited("\"spp\":2,", "");
    EXPECT_EQ(error_of([&] { read_film(q); }), q + ": bad film header: \"spp\": missing");
}

TEST(Merge, RefusesOtherScenesSettingsAndOverlaps) {
    std::vector<std::pair<uint64_t, uint64_t>> missing;
    const uint64_t np = shard_params().num_pixels();
    std::string e = error_of([&] { merge_films({part(0, np), part(np, 2 * np, 7, 43)}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("b does not belong with a: they differ in the scene"), std::string::npos) << e;
    e = error_of([&] { merge_films({part(0, np), part(np, 2 * np, 8)}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("differ in seed 7 and 8"), std::string::npos) << e;
    // the filter and the clamp change every sample: shards of another filter or clamp do not belong
    PartialFilm tent = part(np, 2 * np);
    tent.filter = 2;  // kFilterTriangle
    tent.filter_radius = 1.0f;
    e = error_of([&] { merge_films({part(0, np), tent}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("differ in filter box 0.5 and tent 1"), std::string::npos) << e;
    PartialFilm clamped = part(np, 2 * np);
    clamped.clamp_indirect = 4.0f;
    e = error_of([&] { merge_films({part(0, np), clamped}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("clamp 0 and 4"), std::string::npos) << e;
    PartialFilm independent = part(np, 2 * np);  // another sampler: other numbers for every sample
    independent.sampler = kSamplerIndependent;
    e = error_of([&] { merge_films({part(0, np), independent}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("differ in sampler sobol and independent"), std::string::npos) << e;
    e = error_of([&] { merge_films({part(0, 2 * np), part(np, 3 * np)}, {"a", "b"}, missing); });
    EXPECT_NE(e.find("a (samples 0:2) and b (samples 1:2) overlap in samples 1:1"), std::string::npos) << e;
}

// AOV sums (and Mitchell's second film) round-trip through the file after the beauty's sums; a film without AOVs
// has no "aovs" in its header (as films written before them, which read as holding none).
TEST(FilmFile, AovSumsAndMitchellsTwoFilmsRoundTrip) {
    PartialFilm f = part(0, 660);
    f.filter = kFilterMitchell;
    f.filter_radius = 2.0f;
    f.sum.assign(f.film_words(), 5);
    ASSERT_EQ(f.sum.size(), 6 * f.pixels());
    f.sum.back() = 0x0123456789abcdefull;
    f.aovs = kAovNormal | kAovDepth;
    f.aov_sum.assign(4 * f.pixels(), 0);
    for (size_t k = 0; k < f.aov_sum.size(); ++k) f.aov_sum[k] = (unsigned long long)(-(long long)(k * 977));
    const std::string path = temp_dir() + "aovs.wpfilm";
    write_film(path, f);
    PartialFilm g = read_film(path);
    EXPECT_EQ(g.sum, f.sum);
    EXPECT_EQ(g.aovs, f.aovs);
    EXPECT_EQ(g.aov_sum, f.aov_sum);
    {
        std::ifstream in(path);
        std::string magic, header;
        std::getline(in, magic);
        std::getline(in, header);
        EXPECT_NE(header.find("\"aovs\":[\"normal\",\"depth\"]"), std::string::npos) << header;
    }
    EXPECT_EQ(aov_names(f.aovs), "normal,depth");
    // the image: negative sums divided back (depth of pixel 0: -0 / 1; normal[1]: -977 units)
    Image img = film_image(g);
    ASSERT_EQ(img.normal.size(), 3 * f.pixels());
    ASSERT_EQ(img.depth.size(), f.pixels());
    EXPECT_TRUE(img.albedo.empty());
    EXPECT_FLOAT_EQ(img.normal[1], float(-977.0 / kAovScale));
    PartialFilm plain = part(0, 660);
    write_film(path, plain);
    std::ifstream in(path);
    std::string magic, header;
    std::getline(in, magic);
    std::getline(in, header);
    EXPECT_EQ(header.find("aovs"), std::string::npos) << header;
    EXPECT_EQ(read_film(path).aovs, 0u);
    PartialFilm bad = f;  // a buffer of the wrong size is not written
    bad.aov_sum.pop_back();
    EXPECT_THROW(write_film(path, bad), std::runtime_error);
}

// Parts that hold other AOVs do not belong together: their sums could not make the AOVs of the whole.
TEST(Merge, RefusesPartsWithOtherAovs) {
    std::vector<std::pair<uint64_t, uint64_t>> missing;
    const uint64_t np = shard_params().num_pixels();
    PartialFilm a = part(0, np), b = part(np, 2 * np);
    a.aovs = kAovAlbedo | kAovNormal;
    a.aov_sum.assign(6 * np, 1);
    std::string e = error_of([&] { merge_films({a, b}, {"a.wpfilm", "b.wpfilm"}, missing); });
    EXPECT_NE(e.find("b.wpfilm does not belong with a.wpfilm: they hold different AOVs (none and albedo,normal)"),
              std::string::npos)
        << e;
    b.aovs = kAovAlbedo;
    b.aov_sum.assign(3 * np, 2);
    e = error_of([&] { merge_films({a, b}, {"a.wpfilm", "b.wpfilm"}, missing); });
    EXPECT_NE(e.find("different AOVs (albedo and albedo,normal)"), std::string::npos) << e;
    b.aovs = a.aovs;
    b.aov_sum.assign(6 * np, 2);
    PartialFilm m = merge_films({a, b}, {"a.wpfilm", "b.wpfilm"}, missing);
    EXPECT_EQ(m.aovs, a.aovs);
    EXPECT_EQ(m.aov_sum, std::vector<unsigned long long>(6 * np, 3));  // the sums added
}

TEST(Merge, ReportsMissingRanges) {
    std::vector<std::pair<uint64_t, uint64_t>> missing;
    const uint64_t np = shard_params().num_pixels();
    PartialFilm m = merge_films({part(2 * np, 3 * np), part(0, np)}, {"c", "a"}, missing);
    ASSERT_EQ(missing.size(), 2u);
    EXPECT_EQ(range_text(missing[0].first, missing[0].second, np), "samples 1:1");
    EXPECT_EQ(range_text(missing[1].first, missing[1].second, np), "samples 3:5");
    EXPECT_EQ(m.sum[0], 1u + (2 * np + 1));  // the sums added
    // the image of what is there: each pixel divided by the samples it holds (2)
    Image img = film_image(m, {{0, np}, {2 * np, 3 * np}});
    EXPECT_EQ(img.samples, 2 * np);
    EXPECT_FLOAT_EQ(img.rgb[0], film_value(m.sum[0], 2));
}

// A scene with every array of kernels/scene_tables.h filled: every material type, an image texture, corner
// attributes, an area and a delta light, an environment map.
SceneData every_table_scene() {
    SceneBuilder b;
    const uint32_t tex = b.texture({F4{0.2f, 0.4f, 0.6f, 1.0f}, F4{0.8f, 0.6f, 0.4f, 1.0f}}, 2, 1);
    const MatHandle l = b.lambert(vec3(0.5f), tex), c = b.conductor(vec3(0.9f), 0.1f), d = b.dielectric(1.5f);
    const MatHandle p = b.principled(vec3(0.3f), 0.5f, 0.5f);
    LayeredData ld{};
    ld.reflectance = vec3(0.5f);
    ld.reflectance_tex = kNoTexture;
    ld.coat_eta = 1.5f;
    ld.max_depth = 10;
    ld.nsamples = 1;
    const MatHandle y = b.layered(ld);
    TriAttr ta;
    ta.has_normals = true;
    for (int k = 0; k < 3; ++k) ta.n[k] = vec3(0, 0, 1), ta.uv[k] = vec2(0.5f * float(k));
    b.triangle(vec3(0, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0), l, ta);
    b.triangle(vec3(0, 0, 1), vec3(1, 0, 1), vec3(0, 1, 1), b.bumped(l, tex, 0.1f, 0.25f, 0.5f), ta);
    b.sphere(vec3(2, 0, 0), 0.5f, c);
    b.sphere(vec3(-2, 0, 0), 0.5f, d);
    b.sphere(vec3(0, 2, 0), 0.5f, p);
    b.sphere(vec3(0, -2, 0), 0.5f, y);
    b.quad(vec3(-1, 3, -1), vec3(2, 0, 0), vec3(0, 0, 2), l, vec3(4.0f));
    b.point_light(vec3(0, 5, 0), vec3(10.0f));
    b.set_environment({F4{1, 1, 1, 1}, F4{0.5f, 0.5f, 0.5f, 1}, F4{0.2f, 0.2f, 0.2f, 1}, F4{1, 0, 0, 1}}, 2, 2);
    b.set_camera(make_camera(vec3(0, 0, 8), vec3(0), vec3(0, 1, 0), 40.0f, 1.0f));
    return b.build();
}

// The fingerprint covers every array of kernels/scene_tables.h: one more element in any of them, or another value
// in its first element, is another scene (a table left out would let --resume take a film of a changed scene).
TEST(FilmFile, FingerprintCoversEveryTable) {
    const SceneData base = every_table_scene();
    const uint64_t h = scene_fingerprint(base);
    EXPECT_EQ(scene_fingerprint(every_table_scene()), h) << "the same scene, the same fingerprint";
    int tables = 0;
#define WP_CHECK_TABLE(T, field, view, cat)                                                               \
    {                                                                                                     \
        ++tables;                                                                                         \
        SceneData longer = base;                                                                          \
        longer.field.push_back(T{});                                                                      \
        EXPECT_NE(scene_fingerprint(longer), h) << #field " with one more element";                       \
        EXPECT_FALSE(base.field.empty()) << #field ": the test scene fills every table";                  \
        if (!base.field.empty()) {                                                                        \
            SceneData changed = base;                                                                     \
            uint32_t w;                                                                                   \
            std::memcpy(&w, &changed.field[0], 4); /* the first word: every element type's first field */ \
            w ^= 0x00400001u;                                                                             \
            std::memcpy(&changed.field[0], &w, 4);                                                        \
            EXPECT_NE(scene_fingerprint(changed), h) << #field "[0] changed";                             \
        }                                                                                                 \
    }
    WP_SCENE_TABLES(WP_CHECK_TABLE)
#undef WP_CHECK_TABLE
    EXPECT_EQ(tables, 17);
    // and what is not an array
    auto differs = [&](auto&& change) {
        SceneData s = base;
        change(s);
        return scene_fingerprint(s) != h;
    };
    EXPECT_TRUE(differs([](SceneData& s) { s.background.y += 1.0f; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.env_width += 1; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.env_height += 1; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.env_rotation_deg += 1.0f; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.env_select_prob *= 0.5f; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.camera.pos.z += 1.0f; }));
    EXPECT_TRUE(differs([](SceneData& s) { s.camera.focus_dist += 1.0f; }));
}
