// Bitterli's Cornell box, built from the to_world matrices of its Mitsuba 3 file
// (scenes/cornell-box/scene-mitsuba.xml). Shared by the CPU and GPU tests.
#pragma once
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdlib>
#include <string>
#include "host/scene/scene_build.h"
namespace wp_test {
using namespace wp;
// A folder of this test process's own under gtest's temporary folder (ctest -j runs the tests of one file as
// parallel processes, which would otherwise write the same temporary files at once). Ends with '/'.
inline std::string temp_dir() {
    static const std::string d = [] {
        std::string t = ::testing::TempDir() + "wp-" + std::to_string(::getpid()) + "/";
        ::mkdir(t.c_str(), 0755);
        return t;
    }();
    return d;
}
inline std::string source_dir() {
    const char* e = std::getenv("WP_SOURCE_DIR");
    return e ? e : WP_SOURCE_DIR;
}
inline mat4 rows(std::initializer_list<float> v) {  // Mitsuba writes matrices row by row
    mat4 m;
    auto it = v.begin();
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) m[c][r] = *it++;
    return m;
}
inline void rectangle(SceneBuilder& b, const mat4& M, MatHandle m, vec3 Le = vec3(0)) {
    auto P = [&](float x, float y) { return vec3(M * vec4(x, y, 0, 1)); };
    vec3 c = P(-1, -1);
    b.quad(c, P(1, -1) - c, P(-1, 1) - c, m, Le);
}
inline SceneData cornell() {
    SceneBuilder b;
    MatHandle white = b.lambert(vec3(0.725f, 0.71f, 0.68f));
    MatHandle red = b.lambert(vec3(0.63f, 0.065f, 0.05f));
    MatHandle green = b.lambert(vec3(0.14f, 0.45f, 0.091f));
    MatHandle black = b.lambert(vec3(0.0f));
    rectangle(b,
              rows({-4.37114e-008f, 1, 4.37114e-008f, 0, 0, -8.74228e-008f, 2, 0, 1, 4.37114e-008f, 1.91069e-015f, 0, 0,
                    0, 0, 1}),
              white);
    rectangle(b,
              rows({-1, 7.64274e-015f, -1.74846e-007f, 0, 8.74228e-008f, 8.74228e-008f, -2, 2, 0, -1, -4.37114e-008f, 0,
                    0, 0, 0, 1}),
              white);
    rectangle(b,
              rows({1.91069e-015f, 1, 1.31134e-007f, 0, 1, 3.82137e-015f, -8.74228e-008f, 1, -4.37114e-008f,
                    1.31134e-007f, -2, -1, 0, 0, 0, 1}),
              white);
    rectangle(b,
              rows({4.37114e-008f, -1.74846e-007f, 2, 1, 1, 3.82137e-015f, -8.74228e-008f, 1, 3.82137e-015f, 1,
                    2.18557e-007f, 0, 0, 0, 0, 1}),
              green);
    rectangle(b,
              rows({-4.37114e-008f, 8.74228e-008f, -2, -1, 1, 3.82137e-015f, -8.74228e-008f, 1, 0, -1, -4.37114e-008f,
                    0, 0, 0, 0, 1}),
              red);
    b.cube(rows({0.0851643f, 0.289542f, 1.31134e-008f, 0.328631f, 3.72265e-009f, 1.26563e-008f, -0.3f, 0.3f, -0.284951f,
                 0.0865363f, 5.73206e-016f, 0.374592f, 0, 0, 0, 1}),
           white);
    b.cube(rows({0.286776f, 0.098229f, -2.29282e-015f, -0.335439f, -4.36233e-009f, 1.23382e-008f, -0.6f, 0.6f,
                 -0.0997984f, 0.282266f, 2.62268e-008f, -0.291415f, 0, 0, 0, 1}),
           white);
    rectangle(b,
              rows({0.235f, -1.66103e-008f, -7.80685e-009f, -0.005f, -2.05444e-008f, 3.90343e-009f, -0.0893f, 1.98f,
                    2.05444e-008f, 0.19f, 8.30516e-009f, -0.03f, 0, 0, 0, 1}),
              black, vec3(17, 12, 4));
    b.set_camera(make_camera(vec3(0, 1, 6.8f), vec3(0, 1, 0), vec3(0, 1, 0), 19.5f, 1.0f));
    return b.build();
}
}  // namespace wp_test
