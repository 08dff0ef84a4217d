#include <gtest/gtest.h>
#include <algorithm>
#include <fstream>
#include "host/scene/scene_json.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
std::string write_tmp(const std::string& name, const std::string& text) {
    std::string p = wp_test::temp_dir() + name;
    std::ofstream(p) << text;
    return p;
}
const char* kGood = R"({"camera": {"position": [0,0,5], "target": [0,0,0]},
  "materials": {"m": {"type": "lambert", "albedo": [0.5,0.5,0.5]}},
  "objects": [{"type": "sphere", "material": "m", "radius": 1}]})";
// Replace the first occurrence of `from` in the good scene.
std::string bad(const std::string& from, const std::string& to) {
    std::string s = kGood;
    size_t i = s.find(from);
    EXPECT_NE(i, std::string::npos);
    return s.replace(i, from.size(), to);
}
void expect_error(const std::string& text, const std::string& ptr, const std::string& what) {
    std::string p = write_tmp("bad.json", text);
    try {
        load_scene_json(p);
        ADD_FAILURE() << "no error for " << text;
    } catch (const SceneError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(p), std::string::npos) << m;
        EXPECT_NE(m.find(ptr), std::string::npos) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    }
}
}  // namespace

TEST(SceneJson, DefaultSceneLoadsWithLightAndGeometry) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    EXPECT_EQ(ls.data.lights.size(), 1u);
    EXPECT_EQ(ls.data.info.size(), 5u + 12u + 1u);  // walls, two cubes of six faces, light
    EXPECT_EQ(ls.params.max_depth, 65u);
    EXPECT_NEAR(ls.data.lights[0].area, 0.47f * 0.38f, 1e-4f);
}

TEST(SceneJson, ErrorsNameFilePointerAndProblem) {
    EXPECT_NO_THROW(load_scene_json(write_tmp("good.json", kGood)));
    expect_error("{\"camera\": ", "", "JSON syntax error");
    expect_error(bad("\"radius\": 1", "\"radius\": -1"), "/objects/0/radius", "must be > 0");
    expect_error(bad("\"radius\": 1", "\"radius\": \"big\""), "/objects/0/radius", "expected a number");
    expect_error(bad("\"material\": \"m\"", "\"material\": \"nope\""), "/objects/0/material",
                 "no material named 'nope'");
    expect_error(bad("\"radius\"", "\"radios\""), "/objects/0/radios", "unknown key");
    expect_error(bad("\"lambert\"", "\"velvet\""), "/materials/m/type", "unknown material type");
    expect_error(bad("\"target\": [0,0,0]", "\"target\": [0,0]"), "/camera/target", "expected [x, y, z]");
    expect_error(bad("{\"camera\"", "{\"render\": {\"spp\": 0}, \"camera\""), "/render/spp",
                 "0 is out of range (an integer from 1 to 16777216)");
    expect_error(bad("{\"camera\"", "{\"render\": {\"width\": 0}, \"camera\""), "/render/width",
                 "0 is out of range (an integer from 1 to 32768)");
    expect_error(bad("\"position\": [0,0,5]", "\"position\": [0,0,0]"), "/camera", "degenerate");
    EXPECT_THROW(load_scene_json("/nonexistent/scene.json"), SceneError);
}

// The builder's leaf size by scene: leaves of 1 where every primitive is a sphere (RTIOW, profiling/LOG.md entry 44),
// up to 4 in other small scenes (the Cornell box's 18 quads).
TEST(SceneJson, SphereScenesGetLeavesOfOne) {
    auto largest_leaf = [](const SceneData& d) {
        uint32_t m = 0;
        for (const BVHNode& n : d.nodes) m = std::max({m, n.d.z, n.d.w});
        return m;
    };
    LoadedScene rtiow = load_scene_json(wp_test::source_dir() + "/scenes/rtiow.json");
    ASSERT_FALSE(rtiow.data.nodes.empty());
    EXPECT_EQ(largest_leaf(rtiow.data), 1u);
    LoadedScene cornell = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    ASSERT_FALSE(cornell.data.nodes.empty());
    EXPECT_GT(largest_leaf(cornell.data), 1u);
    EXPECT_LE(largest_leaf(cornell.data), 4u);
}
