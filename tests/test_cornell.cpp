// Bitterli's Cornell box, built from the to_world matrices of its Mitsuba 3 file
// (scenes/cornell-box/scene-mitsuba.xml), rendered on the CPU and compared with Mitsuba's render.
#include <gtest/gtest.h>
#include "host/render/render.h"
#include "tests/cornell_reference.h"
#include "tests/cornell_scene.h"
using namespace wp;

using namespace wp_test;

TEST(Cornell, CpuMeanMatchesMitsubaReference) {
    RenderParams rp;
    rp.width = rp.height = 128;
    rp.spp = 64;
    rp.max_depth = 65;  // Mitsuba's max_depth for Tungsten's 64 bounces
    rp.seed = 1;
    expect_cornell_matches_reference(render_cpu_megakernel(cornell(), rp), 128, "wavepath");
}
