// Pearson's chi-square test of sampled counts against the counts a density predicts, shared by the sampling tests
// (BSDFs: tests/test_bsdf.cpp, lights: tests/test_lights_film.cpp, the environment: tests/test_materials.cpp,
// reconstruction filters: tests/test_filter_aov.cpp).
#pragma once
#include <cmath>
#include <vector>

namespace wp_test {

// Upper critical value of chi-square with dof degrees of freedom at significance ~1e-4 (z = 3.72), by the
// Wilson-Hilferty approximation.
inline double chi2_crit(int dof) {
    const double z = 3.72, k = dof;
    const double c = 1 - 2 / (9 * k) + z * std::sqrt(2 / (9 * k));
    return k * c * c * c;
}

struct Chi2 {
    double stat = 0;
    int dof = -1;  // cells used, less one
};

// The statistic over cells obs[i] against expected[i]. Cells expecting fewer than 5 samples are pooled into one (as
// Mitsuba's test does), which counts when it expects more than min_pooled.
inline Chi2 pearson_chi2(const std::vector<double>& obs, const std::vector<double>& expected, double min_pooled = 5) {
    Chi2 r;
    double pooled_o = 0, pooled_e = 0;
    for (size_t i = 0; i < obs.size(); ++i) {
        if (expected[i] < 5) {
            pooled_o += obs[i];
            pooled_e += expected[i];
        } else {
            r.stat += (obs[i] - expected[i]) * (obs[i] - expected[i]) / expected[i];
            ++r.dof;
        }
    }
    if (pooled_e > min_pooled) {
        r.stat += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
        ++r.dof;
    }
    return r;
}

}  // namespace wp_test
