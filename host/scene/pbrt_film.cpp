#include "host/scene/pbrt_film.h"
#include <cmath>

namespace wp {
namespace {

// glm's matrices are column-major: m[col][row]. Rows as written here:
mat3 rows(float a, float b, float c, float d, float e, float f, float g, float h, float i) {
    return glm::transpose(mat3(a, b, c, d, e, f, g, h, i));
}
const mat3& xyz_from_srgb() {
    static const mat3 m = rows(0.4124564f, 0.3575761f, 0.1804375f, 0.2126729f, 0.7151522f, 0.0721750f, 0.0193339f,
                               0.1191920f, 0.9503041f);
    return m;
}
const mat3& bradford() {  // pbrt-v4's LMSFromXYZ
    static const mat3 m = rows(0.8951f, 0.2664f, -0.1614f, -0.7502f, 1.7135f, 0.0367f, 0.0389f, -0.0685f, 1.0296f);
    return m;
}
vec3 xyz_of_xy(vec2 xy) { return vec3(xy.x / xy.y, 1.0f, (1.0f - xy.x - xy.y) / xy.y); }

}  // namespace

CieXyz cie_xyz_bar(double l) {
    auto g = [](double x, double mu, double s1, double s2) {
        double t = (x - mu) / (x < mu ? s1 : s2);
        return std::exp(-0.5 * t * t);
    };
    return {1.056 * g(l, 599.8, 37.9, 31.0) + 0.362 * g(l, 442.0, 16.0, 26.7) - 0.065 * g(l, 501.1, 20.4, 26.2),
            0.821 * g(l, 568.8, 46.9, 40.5) + 0.286 * g(l, 530.9, 16.3, 31.1),
            1.217 * g(l, 437.0, 11.8, 36.0) + 0.681 * g(l, 459.0, 26.0, 13.8)};
}

vec2 pbrt_illuminant_xy(float kelvin) {
    const double cct = double(kelvin) * 1.4388 / 1.4380;
    if (cct < 4000.0) {
        // Planck's law against the CIE 1931 matching functions (the multi-lobe fit of Wyman, Sloan and Shirley
        // 2013), 360-830 nm
        double X = 0, Y = 0, Z = 0;
        for (int l = 360; l <= 830; ++l) {
            double lam = l * 1e-9;
            double B = 1.0 / (std::pow(lam, 5) * (std::exp(1.4387769e-2 / (lam * cct)) - 1.0));
            const CieXyz c = cie_xyz_bar(l);
            X += B * c.x;
            Y += B * c.y;
            Z += B * c.z;
        }
        const double s = X + Y + Z;
        return vec2(float(X / s), float(Y / s));
    }
    const double x = cct <= 7000.0 ? -4.607e9 / (cct * cct * cct) + 2.9678e6 / (cct * cct) + 0.09911e3 / cct + 0.244063
                                   : -2.0064e9 / (cct * cct * cct) + 1.9018e6 / (cct * cct) + 0.24748e3 / cct + 0.23704;
    return vec2(float(x), float(-3.0 * x * x + 2.870 * x - 0.275));
}

mat3 pbrt_white_balance(float kelvin) {
    const vec3 src = bradford() * xyz_of_xy(pbrt_illuminant_xy(kelvin));
    const vec3 dst = bradford() * xyz_of_xy(vec2(0.3127f, 0.3290f));  // sRGB's white, D65
    mat3 d(1.0f);
    for (int k = 0; k < 3; ++k) d[k][k] = dst[k] / src[k];
    const mat3 wb = glm::inverse(bradford()) * d * bradford();
    return glm::inverse(xyz_from_srgb()) * wb * xyz_from_srgb();
}

bool pbrt_sensor_matrix(const std::string& name, mat3& m) {
    if (name == "canon_eos_100d") {
        // Fitted to pbrt-v4 (tool/pbrt, 5f7a6068) renders of 24 diffuse patches of different colours (linear sRGB
        // albedos from 0.1 to 0.9 per channel) under a uniform infinite light "rgb L [1 1 1]", path maxdepth 1,
        // box filter, 48x32 pixels, once with the default sensor and once with this one:
        //   pbrt --nthreads 1 --spp 1024 --outfile cie.pfm patches_cie1931.pbrt
        //   pbrt --nthreads 1 --spp 1024 --outfile canon.pfm patches_canon_eos_100d.pbrt
        // then least squares of canon = M cie over the patches' mean colours (inner 4x4 pixels of each 8x8 patch);
        // largest residual 0.02 absolute (0.1 of a patch channel near 0.1). The scripts are in tests/data/sensor_fit/.
        m = rows(1.008449f, -0.012563f, -0.009504f, 0.000307f, 1.031353f, -0.043934f, 0.001660f, 0.028143f, 0.962654f);
        return true;
    }
    return false;
}

}  // namespace wp
