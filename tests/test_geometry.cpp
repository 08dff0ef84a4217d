#include <gtest/gtest.h>
#include "kernels/geometry.h"
using namespace wp;

TEST(Sphere, HitFromOutside) {
    float t;
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0, 0, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 4.0f, 1e-5f);
}
TEST(Sphere, OriginInsideReturnsFarRoot) {
    float t;
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0.2f, 0, 0), vec3(1, 0, 0)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 0.8f, 1e-5f);
}
TEST(Sphere, MissAndBehind) {
    float t;
    EXPECT_FALSE(intersect_sphere(Ray{vec3(0, 1.01f, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_FALSE(intersect_sphere(Ray{vec3(0, 0, 5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
}
TEST(Sphere, GrazingAndFarAway) {
    float t;
    EXPECT_TRUE(intersect_sphere(Ray{vec3(0, 0.9999f, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    // far origin: the chord form keeps precision where the naive quadratic loses it
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0, 0, -1e5f), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 1e5f - 1.0f, 1e-1f);
}
TEST(Triangle, HitBarycentricsAndEdges) {
    vec3 v0(0, 0, 0), v1(1, 0, 0), v2(0, 1, 0);
    float t, u, v;
    ASSERT_TRUE(intersect_triangle(Ray{vec3(0.25f, 0.5f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    EXPECT_NEAR(t, 1.0f, 1e-6f);
    EXPECT_NEAR(u, 0.25f, 1e-6f);
    EXPECT_NEAR(v, 0.5f, 1e-6f);
    EXPECT_FALSE(intersect_triangle(Ray{vec3(0.6f, 0.6f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    // parallel (grazing) ray in the plane: no hit, no NaN
    EXPECT_FALSE(intersect_triangle(Ray{vec3(-1, 0.2f, 0), vec3(1, 0, 0)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    // tmax clips
    EXPECT_FALSE(
        intersect_triangle(Ray{vec3(0.25f, 0.25f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, 0.5f, t, u, v));
}
TEST(Quad, HitInsideAndOutside) {
    vec3 p(-1, -1, 0), eu(2, 0, 0), ev(0, 2, 0);
    float t, a, b;
    ASSERT_TRUE(intersect_quad(Ray{vec3(0.5f, -0.5f, 3), vec3(0, 0, -1)}, p, eu, ev, 0, kInf, t, a, b));
    EXPECT_NEAR(t, 3.0f, 1e-6f);
    EXPECT_NEAR(a, 0.75f, 1e-6f);
    EXPECT_NEAR(b, 0.25f, 1e-6f);
    EXPECT_FALSE(intersect_quad(Ray{vec3(1.5f, 0, 3), vec3(0, 0, -1)}, p, eu, ev, 0, kInf, t, a, b));
    EXPECT_FALSE(intersect_quad(Ray{vec3(0, 0, 1), vec3(1, 0, 0)}, p, eu, ev, 0, kInf, t, a, b));  // grazing
    // from behind also hits (two-sided geometry)
    EXPECT_TRUE(intersect_quad(Ray{vec3(0, 0, -2), vec3(0, 0, 1)}, p, eu, ev, 0, kInf, t, a, b));
}
TEST(OffsetRay, MovesAlongNormal) {
    vec3 p(1.0f, 2.0f, -3.0f), n(0, 1, 0);
    vec3 q = offset_ray_origin(p, n);
    EXPECT_GT(q.y, p.y);
    EXPECT_EQ(q.x, p.x);
    EXPECT_LT(q.y - p.y, 1e-4f);
}

// surface_point on spheres: the point is re-projected onto the surface in both precision paths (float up to
// kSphereFloatMaxRadius, double above), and texture_uv gives the spherical coordinates only computed on demand.
TEST(Sphere, SurfacePointOnSurfaceAndTextureUv) {
    struct Case {
        vec3 c;
        float radius;
    };
    for (Case k : {Case{vec3(10.0f, 0.2f, -3.0f), 0.2f}, Case{vec3(0.0f, -4.0f, 0.0f), kSphereFloatMaxRadius},
                   Case{vec3(0.0f, -4.5f, 0.0f), 4.5f}, Case{vec3(0.0f, -1000.0f, 0.0f), 1000.0f}}) {
        F4 geom[3] = {F4{k.c.x, k.c.y, k.c.z, bits_float(uint32_t(ShapeType::Sphere))}, F4{k.radius, 0, 0, 0},
                      F4{0, 0, 0, 0}};
        PrimArrays P;
        P.geom = geom;
        P.count = 1;
        // rays from outside toward the centre along +x, +z and -y: they meet the surface at c - r * dir
        for (vec3 dir : {vec3(-1, 0, 0), vec3(0, 0, -1), vec3(0, -1, 0)}) {
            Ray r{k.c - 3.0f * k.radius * dir, dir};
            Hit h{kInf, kInvalid, 0, 0};
            ASSERT_TRUE(intersect_prim(P, 0, r, 0.0f, h)) << k.radius;
            SurfacePoint sp = surface_point(P, h, r);
            double dist = glm::length(glm::dvec3(sp.p) - glm::dvec3(k.c));
            EXPECT_NEAR(dist, k.radius, 1e-6 * k.radius + 1e-7) << "radius " << k.radius;
            EXPECT_NEAR(glm::dot(sp.ng, -dir), 1.0f, 1e-5f);
            EXPECT_TRUE(sp.sphere_uv);
            vec2 uv = texture_uv(sp);
            vec3 n = -dir;
            float u_expect = n.x > 0.5f ? 0.5f : n.z > 0.5f ? 0.75f : uv.x;  // longitude undefined at the pole
            EXPECT_NEAR(uv.x, u_expect, 1e-5f);
            EXPECT_NEAR(uv.y, n.y > 0.5f ? 0.0f : 0.5f, 1e-3f);  // acos is steep at the pole
        }
    }
}
