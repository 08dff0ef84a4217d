// Participating media's device math (kernels/media.h): Henyey-Greenstein sampling against its density (chi-square),
// its normalisation and mean cosine; free-flight sampling against exp(-sigma_maj t) in a homogeneous medium and
// through a majorant grid; delta and ratio tracking's transmittance against exp(-tau), with and without null
// collisions, channel 0 or a random hero channel; the DDA's voxels and t ranges against brute force; the majorant
// grid's bound; the trilinear lookup of a linear field. Random numbers are kernels/rng.h's hash of a counter.
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>
#include "kernels/media.h"
#include "kernels/rng.h"
#include "tests/chi2.h"
using namespace wp;
using wp_test::chi2_crit;

namespace {

// Deterministic uniform numbers in [0,1): the project's hash of (stream, counter).
struct HashRng {
    uint32_t key, n = 0;
    explicit HashRng(uint32_t k) : key(hash32(k * 0x9e3779b9u + 0x1234567u)) {}
    float operator()() { return u01(hash32(key ^ hash32(n++ + 0x2545f491u))); }
};

// The mean and standard error of a set of samples.
struct Stat {
    double sum = 0, sum2 = 0;
    long n = 0;
    void add(double x) {
        sum += x;
        sum2 += x * x;
        ++n;
    }
    double mean() const { return sum / n; }
    double se() const { return std::sqrt(std::max(0.0, sum2 / n - mean() * mean()) / (n - 1)); }
};

// ---- Henyey-Greenstein ----

// The integral of hg_phase over [mu0, mu1] (mu = dot(wo, wi)) times 2 pi: the probability of that band of cosines.
double hg_band(double mu0, double mu1, float g, int steps = 400) {
    double s = 0, h = (mu1 - mu0) / steps;
    for (int i = 0; i < steps; ++i) s += hg_phase(float(mu0 + (i + 0.5) * h), g);
    return s * h * 2 * M_PI;
}

class HgChi2 : public ::testing::TestWithParam<float> {};

// hg_sample's directions, binned by cosine to wo and azimuth around it (a frame of the test's own), against the
// bands' probabilities from hg_phase; each sample's pdf is hg_phase's and hg_pdf's.
TEST_P(HgChi2, PhaseSamplingFollowsHgPhase) {
    const float g = GetParam();
    const vec3 wo = glm::normalize(vec3(0.3f, -0.5f, 0.8f));
    const vec3 s = glm::normalize(glm::cross(wo, vec3(1, 0, 0))), t = glm::cross(wo, s);
    const int nmu = 40, nphi = 16, n = 400000;
    std::vector<double> obs(nmu * nphi, 0.0), expect(nmu * nphi, 0.0);
    HashRng r(uint32_t(1000 + 100 * g));
    double max_pdf_err = 0;
    for (int i = 0; i < n; ++i) {
        float pdf;
        const float u0 = r(), u1 = r();
        const vec3 wi = hg_sample(wo, g, vec2(u0, u1), pdf);
        const float mu = glm::clamp(glm::dot(wo, wi), -1.0f, 1.0f);
        max_pdf_err = std::max(max_pdf_err, double(std::fabs(pdf - hg_pdf(wo, wi, g)) / std::max(1.0f, pdf)));
        float phi = std::atan2(glm::dot(wi, t), glm::dot(wi, s));
        if (phi < 0) phi += 2 * kPi;
        const int im = std::min(nmu - 1, int((mu + 1) * 0.5f * nmu)),
                  ip = std::min(nphi - 1, int(phi / (2 * kPi) * nphi));
        obs[im * nphi + ip] += 1;
    }
    double total = 0;
    for (int im = 0; im < nmu; ++im) {
        const double p = hg_band(-1.0 + 2.0 * im / nmu, -1.0 + 2.0 * (im + 1) / nmu, g);
        total += p;
        for (int ip = 0; ip < nphi; ++ip) expect[im * nphi + ip] = p / nphi * n;
    }
    EXPECT_NEAR(total, 1.0, 2e-3) << "g " << g;
    EXPECT_LT(max_pdf_err, 2e-3) << "g " << g;
    const wp_test::Chi2 c = wp_test::pearson_chi2(obs, expect);
    ASSERT_GT(c.dof, 15) << "g " << g;
    EXPECT_LT(c.stat, chi2_crit(c.dof)) << "g " << g << " dof " << c.dof;
}
INSTANTIATE_TEST_SUITE_P(Phase, HgChi2, ::testing::Values(-0.9f, -0.3f, 0.0f, 0.5f, 0.95f));

// hg_phase integrates to 1 over the sphere, and the mean cosine between the incident direction (-wo) and wi is g.
TEST(Phase, HgNormalisedWithMeanCosineG) {
    for (float g : {-0.9f, -0.3f, 0.0f, 0.5f, 0.95f}) {
        const int steps = 400000;
        double sum = 0, mean = 0;
        const double h = 2.0 / steps;
        for (int i = 0; i < steps; ++i) {
            const double mu = -1 + (i + 0.5) * h;
            const double p = hg_phase(float(mu), g) * 2 * M_PI * h;
            sum += p;
            mean += -mu * p;  // cosine to the forward direction -wo
        }
        EXPECT_NEAR(sum, 1.0, 1e-4) << "g " << g;
        EXPECT_NEAR(mean, g, 1e-4) << "g " << g;
    }
    // and so do the samples' cosines
    HashRng r(77);
    for (float g : {-0.6f, 0.8f}) {
        Stat c;
        for (int i = 0; i < 100000; ++i) {
            float pdf;
            c.add(-glm::dot(vec3(0, 0, 1), hg_sample(vec3(0, 0, 1), g, vec2(r(), r()), pdf)));
        }
        EXPECT_NEAR(c.mean(), g, 4 * c.se()) << "g " << g;
    }
}

// ---- free-flight sampling ----

// Chi-square of the first event's distance (nb bins over [0, tmax) and the exit) against a cumulative optical depth.
template <class MakeTracker, class Tau>
wp_test::Chi2 first_event_chi2(MakeTracker make, Tau tau_at, float tmax, int n, uint32_t seed, int nb = 30) {
    std::vector<double> obs(nb + 1, 0.0), expect(nb + 1, 0.0);
    HashRng r(seed);
    for (int i = 0; i < n; ++i) {
        auto tr = make();
        const MajorantEvent e = tr.next(r());
        if (e.type == kMajorantExit)
            obs[nb] += 1;
        else
            obs[std::min(nb - 1, int(e.t / tmax * nb))] += 1;
    }
    for (int b = 0; b < nb; ++b)
        expect[b] = n * (std::exp(-tau_at(tmax * b / nb)) - std::exp(-tau_at(tmax * (b + 1) / nb)));
    expect[nb] = n * std::exp(-tau_at(tmax));
    return wp_test::pearson_chi2(obs, expect);
}

// The first collision's distance in a homogeneous medium follows exp(-sigma_maj t) in the hero channel, its T_maj
// is exp(-sigma_maj t) in every channel, and a ray that gets through reports exp(-sigma_maj tmax).
TEST(Media, HomogeneousFreeFlightIsExponential) {
    const HomogeneousMedium m =
        HomogeneousMedium::make(vec3(0.2f, 0.5f, 0.1f), vec3(0.6f, 0.3f, 1.2f), 1.5f, vec3(0.0f), 1.0f, 0.0f);
    const float tmax = 2.0f;
    for (uint32_t ch = 0; ch < 3; ++ch) {
        const float s = channel(m.sigma_t(), ch);
        const wp_test::Chi2 c = first_event_chi2([&] { return majorant_tracker(m.sample_ray(tmax), ch); },
                                                 [&](float t) { return s * t; }, tmax, 200000, 10 + ch);
        ASSERT_GT(c.dof, 20);
        EXPECT_LT(c.stat, chi2_crit(c.dof)) << "channel " << ch;
    }
    HashRng r(5);
    for (int i = 0; i < 1000; ++i) {
        auto tr = majorant_tracker(m.sample_ray(tmax), 1);
        const MajorantEvent e = tr.next(r());
        const float t = e.type == kMajorantExit ? tmax : e.t;
        const vec3 want = exp3(-m.sigma_t() * t);
        for (uint32_t c = 0; c < 3; ++c) ASSERT_NEAR(channel(e.T_maj, c), channel(want, c), 1e-5f);
        if (e.type == kMajorantCollision) {
            ASSERT_LT(e.t, tmax);
            ASSERT_EQ(e.sigma_maj, m.sigma_t());
            // after a collision the next event starts from it
            const MajorantEvent e2 = tr.next(r());
            const float t2 = e2.type == kMajorantExit ? tmax : e2.t;
            ASSERT_GE(t2, e.t);
            ASSERT_NEAR(e2.T_maj.x, std::exp(-m.sigma_t().x * (t2 - e.t)), 1e-5f);
        }
    }
}

// A test density: a smooth bump plus a gradient, sampled on an n^3 grid (values >= 0).
std::vector<float> bump_density(int nx, int ny, int nz) {
    std::vector<float> v(size_t(nx) * ny * nz);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x) {
                const float px = (x + 0.5f) / nx, py = (y + 0.5f) / ny, pz = (z + 0.5f) / nz;
                const float r2 = sqr(px - 0.4f) + sqr(py - 0.6f) + sqr(pz - 0.5f);
                v[(size_t(z) * ny + y) * nx + x] = 3.0f * std::exp(-r2 / 0.05f) + 0.5f * px + 0.1f;
            }
    return v;
}

struct TestGrid {
    std::vector<float> dens, maj;
    GridMedium m;
    TestGrid(int nx, int ny, int nz, vec3 sigma_a, vec3 sigma_s) : dens(bump_density(nx, ny, nz)) {
        maj.resize(kMajorantRes * kMajorantRes * kMajorantRes);
        const DensityGrid d{dens.data(), nx, ny, nz};
        build_majorant_grid(d, kMajorantRes, kMajorantRes, kMajorantRes, maj.data());
        const vec3 p0(-1.0f, 0.0f, 0.5f), p1(1.0f, 1.5f, 2.0f);
        m = GridMedium{p0,
                       p1,
                       sigma_a,
                       sigma_s,
                       vec3(0.0f),
                       0.0f,
                       d,
                       DensityGrid{nullptr, 0, 0, 0},
                       MajorantGrid{maj.data(), kMajorantRes, kMajorantRes, kMajorantRes, p0, p1}};
    }
    // The optical depth of channel c from 0 to t along o + s d (midpoint rule, fine steps).
    double tau(vec3 o, vec3 d, double t, uint32_t c, int steps = 4000) const {
        double s = 0;
        for (int i = 0; i < steps; ++i) {
            const vec3 p = o + d * float((i + 0.5) * t / steps), q = m.offset(p);
            if (glm::min(q, vec3(1.0f) - q) != glm::max(glm::min(q, vec3(1.0f) - q), vec3(0.0f))) continue;  // outside
            const MediumProperties mp = m.props(p);
            s += channel(mp.sigma_a + mp.sigma_s, c);
        }
        return s * t / steps;
    }
};

// Through a grid medium's DDA, the first collision's distance follows exp(-integral of the piecewise majorant):
// the optical depth carried across voxel boundaries.
TEST(Media, GridFreeFlightFollowsPiecewiseMajorant) {
    const TestGrid g(24, 20, 28, vec3(0.3f), vec3(0.9f));
    const vec3 o(-1.3f, 0.2f, 0.4f), d = glm::normalize(vec3(1.0f, 0.5f, 0.6f));
    const float tmax = 3.0f;
    std::vector<MajorantSegment> segs;
    DDAMajorantIterator it = g.m.sample_ray(o, d, tmax);
    MajorantSegment s;
    while (it.next(s)) segs.push_back(s);
    ASSERT_GT(segs.size(), 10u);
    auto tau = [&](float t) {
        double a = 0;
        for (const MajorantSegment& q : segs) a += q.sigma_maj.x * std::max(0.0f, std::min(t, q.t1) - q.t0);
        return a;
    };
    const wp_test::Chi2 c =
        first_event_chi2([&] { return majorant_tracker(g.m.sample_ray(o, d, tmax), 0); }, tau, tmax, 200000, 99);
    ASSERT_GT(c.dof, 20);
    EXPECT_LT(c.stat, chi2_crit(c.dof));
}

// Transmittance by delta tracking (the fraction of rays with no real collision: a collision is real with
// probability sigma_t / sigma_maj) and by ratio tracking (every collision null for a shadow ray), against
// exp(-tau) within 4 standard errors. With the majorant sigma_t (no null collisions) and with a majorant 2.5 times
// sigma_t, in channel 0 always and with a random hero channel (ratio tracking divided by average(r_l)).
template <class MakeTracker, class Props>
void check_transmittance(MakeTracker make, Props props, vec3 want, uint32_t seed, const char* what) {
    const int n = 200000;
    for (int hero = 0; hero < 2; ++hero) {
        Stat delta, ratio[3];
        HashRng r(seed + hero);
        for (int i = 0; i < n; ++i) {
            const uint32_t ch = hero ? hero_channel(r()) : 0u;
            // delta tracking: estimates the hero channel alone; with a fixed channel 0, only x
            auto tr = make(ch);
            bool absorbed = false;
            for (MajorantEvent e = tr.next(r()); e.type == kMajorantCollision; e = tr.next(r())) {
                const MediumProperties mp = props(e.t);
                if (r() * channel(e.sigma_maj, ch) < channel(mp.sigma_a + mp.sigma_s, ch)) {
                    absorbed = true;
                    break;
                }
            }
            if (!hero) delta.add(absorbed ? 0.0 : 1.0);
            // ratio tracking
            RatioTracking rt = ratio_tracking();
            auto tr2 = make(ch);
            bool alive = true;
            MajorantEvent e = tr2.next(r());
            for (; e.type == kMajorantCollision; e = tr2.next(r()))
                if (!(alive = ratio_collision(rt, props(e.t), e.sigma_maj, e.T_maj, ch, r()))) break;
            if (alive) ratio_exit(rt, e.T_maj, ch);
            if (alive && i < 1000) {  // volpath's light weight: a delta light's (pdf 1) is the transmittance's
                const vec3 lw = ratio_light_weight(rt, vec3(1.0f), 1.0f, 0.7f, true);
                const vec3 rt_w = ratio_transmittance(rt);
                for (uint32_t c = 0; c < 3; ++c)
                    ASSERT_NEAR(channel(lw, c), channel(rt_w, c), 1e-6f * channel(rt_w, c));
                // with MIS against the phase function's pdf, the weight is smaller
                const vec3 mis = ratio_light_weight(rt, vec3(1.0f), 1.0f, 0.7f, false);
                for (uint32_t c = 0; c < 3; ++c) ASSERT_LE(channel(mis, c), channel(lw, c));
            }
            const vec3 est = alive ? (hero ? ratio_transmittance(rt) : rt.T_ray) : vec3(0.0f);
            for (uint32_t c = 0; c < 3; ++c) ratio[c].add(channel(est, c));
        }
        if (!hero) {
            EXPECT_NEAR(delta.mean(), want.x, 4 * delta.se()) << what << " delta tracking";
            EXPECT_LT(delta.se(), 0.005) << what;
        }
        for (uint32_t c = 0; c < 3; ++c) {
            EXPECT_NEAR(ratio[c].mean(), channel(want, c), 4 * ratio[c].se())
                << what << " ratio tracking, channel " << c << (hero ? " (random hero)" : " (channel 0)");
            EXPECT_LT(ratio[c].se(), 0.01) << what << " channel " << c;
        }
    }
}

TEST(Media, HomogeneousTransmittanceByDeltaAndRatioTracking) {
    const HomogeneousMedium m =
        HomogeneousMedium::make(vec3(0.2f, 0.4f, 0.1f), vec3(0.5f, 0.3f, 0.8f), 1.0f, vec3(0.0f), 1.0f, 0.3f);
    const float dist = 1.3f;
    const vec3 want = exp3(-m.sigma_t() * dist);
    auto props = [&](float) { return m.props(vec3(0.0f)); };
    check_transmittance([&](uint32_t ch) { return majorant_tracker(m.sample_ray(dist), ch); }, props, want, 300,
                        "majorant sigma_t");
    // a majorant above sigma_t: null collisions, the estimates unchanged on average
    const vec3 big = 2.5f * vec3(max_comp(m.sigma_t()));
    check_transmittance([&](uint32_t ch) { return majorant_tracker(majorant_segment(0.0f, dist, big), ch); }, props,
                        want, 400, "majorant 2.5 max sigma_t");
}

// Ratio tracking through a grid medium (DDA majorants, trilinear density) averages exp(-tau), tau by quadrature.
TEST(Media, GridTransmittanceByRatioTracking) {
    const TestGrid g(12, 16, 10, vec3(0.2f, 0.1f, 0.3f), vec3(0.4f, 0.6f, 0.2f));
    const vec3 o(-1.2f, 1.4f, 0.9f), d = glm::normalize(vec3(1.0f, -0.4f, 0.3f));
    const float tmax = 2.2f;
    vec3 want;
    for (uint32_t c = 0; c < 3; ++c) want[c] = float(std::exp(-g.tau(o, d, tmax, c)));
    ASSERT_LT(want.x, 0.8f);  // the ray does cross the medium
    ASSERT_GT(want.x, 0.05f);
    auto props = [&](float t) { return g.m.props(o + d * t); };
    check_transmittance([&](uint32_t ch) { return majorant_tracker(g.m.sample_ray(o, d, tmax), ch); }, props, want, 500,
                        "grid");
}

// volpath's camera-path weights through an absorbing medium with null collisions: absorption ends the path, a null
// collision and the exit reweight it; beta / average(r_u) averages exp(-sigma_t d) per channel with a random hero
// channel (and beta alone with channel 0).
TEST(Media, VolpathWeightsEstimateTransmittance) {
    const HomogeneousMedium m = HomogeneousMedium::make(vec3(0.6f, 0.2f, 1.1f), vec3(0.0f), 1.0f, vec3(0.0f), 1.0f, 0);
    const float dist = 1.0f;
    const vec3 maj(1.5f), want = exp3(-m.sigma_t() * dist);
    for (int hero = 0; hero < 2; ++hero) {
        Stat est[3];
        HashRng r(700 + hero);
        for (int i = 0; i < 200000; ++i) {
            const uint32_t ch = hero ? hero_channel(r()) : 0u;
            VolpathWeights w{vec3(1.0f), vec3(1.0f), vec3(1.0f)};
            auto tr = majorant_tracker(majorant_segment(0.0f, dist, maj), ch);
            bool alive = true;
            MajorantEvent e = tr.next(r());
            for (; alive && e.type == kMajorantCollision; e = tr.next(r())) {
                const MediumProperties mp = m.props(vec3(0.0f));
                const uint32_t kind = sample_medium_event(medium_event_probs(mp, e.sigma_maj, ch), r());
                ASSERT_NE(kind, uint32_t(kMediumScatter));  // sigma_s is 0
                alive = kind == kMediumNull && volpath_null(w, mp, e.sigma_maj, e.T_maj, ch);
            }
            if (alive) volpath_exit(w, e.T_maj, ch);
            const vec3 v = alive ? (hero ? w.beta / average(w.r_u) : w.beta) : vec3(0.0f);
            for (uint32_t c = 0; c < 3; ++c) est[c].add(channel(v, c));
        }
        for (uint32_t c = 0; c < 3; ++c) {
            EXPECT_NEAR(est[c].mean(), channel(want, c), 4 * est[c].se()) << "channel " << c << " hero " << hero;
            EXPECT_LT(est[c].se(), 0.01);
        }
    }
}

// The event probabilities are pbrt-v4's: sigma_a / sigma_maj, sigma_s / sigma_maj and the rest, in the hero channel.
TEST(Media, EventProbabilities) {
    const MediumProperties mp{vec3(0.1f, 0.2f, 0.3f), vec3(0.4f, 0.2f, 0.5f), vec3(0.0f), 0.0f};
    const MediumEventProbs p = medium_event_probs(mp, vec3(1.0f, 2.0f, 0.8f), 1);
    EXPECT_FLOAT_EQ(p.absorb, 0.1f);
    EXPECT_FLOAT_EQ(p.scatter, 0.1f);
    EXPECT_FLOAT_EQ(p.null_, 0.8f);
    int counts[3] = {0, 0, 0};
    HashRng r(3);
    for (int i = 0; i < 100000; ++i) ++counts[sample_medium_event(p, r())];
    EXPECT_NEAR(counts[0] / 1e5, 0.1, 0.005);
    EXPECT_NEAR(counts[1] / 1e5, 0.1, 0.005);
    EXPECT_NEAR(counts[2] / 1e5, 0.8, 0.005);
    // a majorant equal to sigma_t: never null
    const MediumEventProbs q = medium_event_probs(mp, mp.sigma_a + mp.sigma_s, 2);
    EXPECT_NEAR(q.null_, 0.0f, 1e-6f);
    EXPECT_NEAR(q.absorb + q.scatter, 1.0f, 1e-6f);
}

// ---- grids ----

// The cell of [0,1]^3 coordinates q in an n^3-voxel grid, as one index.
int cell_of(vec3 q, glm::ivec3 n) {
    const int x = std::clamp(int(std::floor(q.x * n.x)), 0, n.x - 1);
    const int y = std::clamp(int(std::floor(q.y * n.y)), 0, n.y - 1);
    const int z = std::clamp(int(std::floor(q.z * n.z)), 0, n.z - 1);
    return (z * n.y + y) * n.x + x;
}

// The DDA visits exactly the voxels the ray crosses: its segments tile the ray's overlap with the bounds, each
// segment's voxel (read back from a grid whose values are the voxel's index + 1) holds the segment's middle, the
// voxels step to a face neighbour, and every voxel hit by dense points along the ray is among them.
TEST(Media, DdaVisitsTheCellsTheRayCrosses) {
    const glm::ivec3 n(kMajorantRes, 9, 5);
    std::vector<float> ids(size_t(n.x) * n.y * n.z);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = float(i + 1);
    const vec3 p0(-0.5f, 1.0f, -2.0f), p1(1.5f, 2.0f, 1.0f);
    const MajorantGrid grid{ids.data(), n.x, n.y, n.z, p0, p1};
    HashRng r(2024);
    int rays_inside = 0;
    for (int k = 0; k < 400; ++k) {
        // origins inside and outside the bounds; some directions along an axis or a plane
        const vec3 o = p0 + (p1 - p0) * vec3(r() * 1.6f - 0.3f, r() * 1.6f - 0.3f, r() * 1.6f - 0.3f);
        vec3 d(r() - 0.5f, r() - 0.5f, r() - 0.5f);
        if (k % 10 == 1) d.y = 0.0f;
        if (k % 10 == 2) d = vec3(0.0f, 0.0f, d.z < 0 ? -1.0f : 1.0f);
        if (k % 10 == 3) d.x = -0.0f;
        d = glm::normalize(d);
        const float tmax = 1.0f + 4.0f * r();
        float t0, t1;
        if (!box_overlap(o, d, tmax, p0, p1, t0, t1)) continue;
        ++rays_inside;
        DDAMajorantIterator it = dda_majorant_iterator(grid, o, d, t0, t1, vec3(1.0f));
        MajorantSegment s;
        std::vector<MajorantSegment> segs;
        while (it.next(s)) {
            segs.push_back(s);
            ASSERT_LT(segs.size(), 1000u);
        }
        if (t1 - t0 < 1e-6f) continue;
        ASSERT_FALSE(segs.empty()) << "ray " << k;
        EXPECT_EQ(segs.front().t0, t0) << "ray " << k;
        EXPECT_NEAR(segs.back().t1, t1, 1e-5f * (1 + t1)) << "ray " << k;  // to the rounding of the last crossing
        std::set<int> dda_cells;
        for (size_t i = 0; i < segs.size(); ++i) {
            const int cell = int(segs[i].sigma_maj.x) - 1;
            ASSERT_GE(cell, 0);
            dda_cells.insert(cell);
            ASSERT_LE(segs[i].t0, segs[i].t1) << "ray " << k;
            if (i + 1 < segs.size()) {
                ASSERT_EQ(segs[i].t1, segs[i + 1].t0) << "ray " << k << " segment " << i;
                const int c2 = int(segs[i + 1].sigma_maj.x) - 1;
                const int dx = std::abs(c2 % n.x - cell % n.x), dy = std::abs(c2 / n.x % n.y - cell / n.x % n.y),
                          dz = std::abs(c2 / (n.x * n.y) - cell / (n.x * n.y));
                ASSERT_EQ(dx + dy + dz, 1) << "ray " << k << " segment " << i;
            }
            if (segs[i].t1 - segs[i].t0 > 1e-4f) {
                const vec3 q = (o + d * (0.5f * (segs[i].t0 + segs[i].t1)) - p0) / (p1 - p0);
                EXPECT_EQ(cell_of(q, n), cell) << "ray " << k << " segment " << i;
            }
        }
        // brute force: dense points along [t0, t1], away from the voxel faces
        std::set<int> brute;
        const int m = 20000;
        for (int i = 0; i < m; ++i) {
            const float t = t0 + (t1 - t0) * (i + 0.5f) / m;
            const vec3 q = (o + d * t - p0) / (p1 - p0);
            const vec3 f = q * vec3(n);
            const vec3 frac = f - glm::floor(f);
            if (glm::min(glm::min(frac.x, 1 - frac.x), glm::min(frac.y, 1 - frac.y)) < 1e-4f ||
                glm::min(frac.z, 1 - frac.z) < 1e-4f)
                continue;
            brute.insert(cell_of(q, n));
        }
        for (int c : brute) EXPECT_TRUE(dda_cells.count(c)) << "ray " << k << " misses voxel " << c;
        // and the DDA's voxels with a stretch of the ray are the brute force's
        for (const MajorantSegment& q : segs) {
            if (q.t1 - q.t0 > 1e-3f * (t1 - t0)) {
                EXPECT_TRUE(brute.count(int(q.sigma_maj.x) - 1)) << "ray " << k << " extra voxel";
            }
        }
    }
    EXPECT_GT(rays_inside, 150);
}

// Every majorant voxel bounds the trilinear density at every point of its box (dense samples), and is attained:
// some sample the lookup interpolates there comes close.
TEST(Media, MajorantGridBoundsTheDensity) {
    const int nx = 37, ny = 23, nz = 30;
    const std::vector<float> dens = bump_density(nx, ny, nz);
    const DensityGrid d{dens.data(), nx, ny, nz};
    std::vector<float> maj(kMajorantRes * kMajorantRes * kMajorantRes);
    build_majorant_grid(d, kMajorantRes, kMajorantRes, kMajorantRes, maj.data());
    const MajorantGrid g{maj.data(), kMajorantRes, kMajorantRes, kMajorantRes, vec3(0.0f), vec3(1.0f)};
    HashRng r(31);
    float worst_gap = 0;
    for (int z = 0; z < kMajorantRes; ++z)
        for (int y = 0; y < kMajorantRes; ++y)
            for (int x = 0; x < kMajorantRes; ++x) {
                vec3 b0, b1;
                g.voxel_bounds(x, y, z, b0, b1);
                float seen = 0;
                for (int i = 0; i < 64; ++i) {
                    // corners, faces and the inside
                    const vec3 u = i < 8 ? vec3(i & 1, (i >> 1) & 1, (i >> 2) & 1) : vec3(r(), r(), r());
                    const float v = d.lookup(b0 + (b1 - b0) * u);
                    seen = std::max(seen, v);
                    ASSERT_LE(v, g.lookup(x, y, z) * (1 + 1e-6f)) << x << " " << y << " " << z;
                }
                worst_gap = std::max(worst_gap, g.lookup(x, y, z) - seen);
            }
    EXPECT_LT(worst_gap, 0.6f);  // a bound, not far above the density (the bump's largest step between samples)
}

// The trilinear lookup reproduces a linear field between the outermost samples' centres, and reads the samples
// themselves at their centres; outside the samples it fades to 0, as pbrt-v4's.
TEST(Media, TrilinearLookupOfLinearField) {
    const int nx = 7, ny = 5, nz = 9;
    auto f = [](vec3 p) { return 0.3f + 1.5f * p.x - 0.7f * p.y + 2.25f * p.z; };
    std::vector<float> v(nx * ny * nz);
    for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
            for (int x = 0; x < nx; ++x)
                v[(z * ny + y) * nx + x] = f(vec3((x + 0.5f) / nx, (y + 0.5f) / ny, (z + 0.5f) / nz));
    const DensityGrid d{v.data(), nx, ny, nz};
    HashRng r(8);
    for (int i = 0; i < 5000; ++i) {
        const vec3 u(r(), r(), r());
        const vec3 p = vec3(0.5f / nx, 0.5f / ny, 0.5f / nz) + u * vec3(1 - 1.0f / nx, 1 - 1.0f / ny, 1 - 1.0f / nz);
        ASSERT_NEAR(d.lookup(p), f(p), 2e-5f) << p.x << " " << p.y << " " << p.z;
    }
    EXPECT_NEAR(d.lookup(vec3(2.5f / nx, 1.5f / ny, 6.5f / nz)), v[(6 * ny + 1) * nx + 2], 1e-5f);
    // half a sample outside the first one: halfway to 0
    EXPECT_NEAR(d.lookup(vec3(0.0f, 0.5f / ny, 0.5f / nz)), 0.5f * v[0], 1e-6f);
    EXPECT_EQ(d.lookup(vec3(-1.0f, 0.5f, 0.5f)), 0.0f);
}

// pbrt-v4's Bounds3::IntersectP: the overlap of a ray segment with a box.
TEST(Media, BoxOverlap) {
    float t0, t1;
    ASSERT_TRUE(box_overlap(vec3(-1, 0.5f, 0.5f), vec3(1, 0, 0), 10.0f, vec3(0), vec3(1), t0, t1));
    EXPECT_FLOAT_EQ(t0, 1.0f);
    EXPECT_NEAR(t1, 2.0f, 1e-6f);
    ASSERT_TRUE(box_overlap(vec3(0.5f), vec3(0, 0, -1), 0.25f, vec3(0), vec3(1), t0, t1));
    EXPECT_EQ(t0, 0.0f);
    EXPECT_EQ(t1, 0.25f);
    EXPECT_FALSE(box_overlap(vec3(-1, 2, 0.5f), vec3(1, 0, 0), 10.0f, vec3(0), vec3(1), t0, t1));
    EXPECT_FALSE(box_overlap(vec3(-1, 0.5f, 0.5f), vec3(1, 0, 0), 0.5f, vec3(0), vec3(1), t0, t1));
}

}  // namespace
