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

// The CIE 1931 2-degree colour matching functions x, y, z from 360 to 830 nm in 5 nm steps (the CIE's own
// tabulation, CIE 015:2004 table T.4; pbrt-v4's 1 nm table holds these values at every fifth entry). The white of
// white balance is projected with them, as pbrt-v4 projects it with its table: the multi-lobe fit of cie_xyz_bar
// puts the white of a 3200 K blackbody 0.0009 off in x (0.42236 against 0.42324), which made red 3% high after
// white balance (tests/parity scene film_whitebalance).
const float (&cie1931_5nm())[95][3] {
    static const float t[95][3] = {
        {0.0001299f, 3.917e-6f, 0.0006061f},
        {0.0002321f, 6.965e-6f, 0.001086f},
        {0.0004149f, 1.239e-5f, 0.001946f},
        {0.0007416f, 2.202e-5f, 0.003486f},
        {0.001368f, 3.9e-5f, 0.00645f},
        {0.002236f, 6.4e-5f, 0.01055f},
        {0.004243f, 0.00012f, 0.02005f},
        {0.00765f, 0.000217f, 0.03621f},
        {0.01431f, 0.000396f, 0.06785f},
        {0.02319f, 0.00064f, 0.1102f},
        {0.04351f, 0.00121f, 0.2074f},
        {0.07763f, 0.00218f, 0.3713f},
        {0.13438f, 0.004f, 0.6456f},
        {0.21477f, 0.0073f, 1.03905f},
        {0.2839f, 0.0116f, 1.3856f},
        {0.3285f, 0.01684f, 1.62296f},
        {0.34828f, 0.023f, 1.74706f},
        {0.34806f, 0.0298f, 1.7826f},
        {0.3362f, 0.038f, 1.77211f},
        {0.3187f, 0.048f, 1.7441f},
        {0.2908f, 0.06f, 1.6692f},
        {0.2511f, 0.0739f, 1.5281f},
        {0.19536f, 0.09098f, 1.28764f},
        {0.1421f, 0.1126f, 1.0419f},
        {0.09564f, 0.13902f, 0.81295f},
        {0.05795f, 0.1693f, 0.6162f},
        {0.03201f, 0.20802f, 0.46518f},
        {0.0147f, 0.2586f, 0.3533f},
        {0.0049f, 0.323f, 0.272f},
        {0.0024f, 0.4073f, 0.2123f},
        {0.0093f, 0.503f, 0.1582f},
        {0.0291f, 0.6082f, 0.1117f},
        {0.06327f, 0.71f, 0.07825f},
        {0.1096f, 0.7932f, 0.05725f},
        {0.1655f, 0.862f, 0.04216f},
        {0.22575f, 0.91485f, 0.02984f},
        {0.2904f, 0.954f, 0.0203f},
        {0.3597f, 0.9803f, 0.0134f},
        {0.43345f, 0.99495f, 0.00875f},
        {0.51205f, 1.0f, 0.00575f},
        {0.5945f, 0.995f, 0.0039f},
        {0.6784f, 0.9786f, 0.00275f},
        {0.7621f, 0.952f, 0.0021f},
        {0.8425f, 0.9154f, 0.0018f},
        {0.9163f, 0.87f, 0.00165f},
        {0.9786f, 0.8163f, 0.0014f},
        {1.0263f, 0.757f, 0.0011f},
        {1.0567f, 0.6949f, 0.001f},
        {1.0622f, 0.631f, 0.0008f},
        {1.0456f, 0.5668f, 0.0006f},
        {1.0026f, 0.503f, 0.00034f},
        {0.9384f, 0.4412f, 0.00024f},
        {0.85445f, 0.381f, 0.00019f},
        {0.7514f, 0.321f, 0.0001f},
        {0.6424f, 0.265f, 5e-5f},
        {0.5419f, 0.217f, 3e-5f},
        {0.4479f, 0.175f, 2e-5f},
        {0.3608f, 0.1382f, 1e-5f},
        {0.2835f, 0.107f, 0.0f},
        {0.2187f, 0.0816f, 0.0f},
        {0.1649f, 0.061f, 0.0f},
        {0.1212f, 0.04458f, 0.0f},
        {0.0874f, 0.032f, 0.0f},
        {0.0636f, 0.0232f, 0.0f},
        {0.04677f, 0.017f, 0.0f},
        {0.0329f, 0.01192f, 0.0f},
        {0.0227f, 0.00821f, 0.0f},
        {0.01584f, 0.005723f, 0.0f},
        {0.01135916f, 0.004102f, 0.0f},
        {0.0081109f, 0.002929f, 0.0f},
        {0.00579035f, 0.002091f, 0.0f},
        {0.00410946f, 0.001484f, 0.0f},
        {0.00289933f, 0.001047f, 0.0f},
        {0.00204919f, 0.00074f, 0.0f},
        {0.00143997f, 0.00052f, 0.0f},
        {0.00099995f, 0.0003611f, 0.0f},
        {0.000690079f, 0.0002492f, 0.0f},
        {0.000476021f, 0.0001719f, 0.0f},
        {0.000332301f, 0.00012f, 0.0f},
        {0.000234826f, 8.48e-5f, 0.0f},
        {0.0001661505f, 6e-5f, 0.0f},
        {0.000117413f, 4.24e-5f, 0.0f},
        {8.30753e-5f, 3e-5f, 0.0f},
        {5.87065e-5f, 2.12e-5f, 0.0f},
        {4.151e-5f, 1.499e-5f, 0.0f},
        {2.93533e-5f, 1.06e-5f, 0.0f},
        {2.06738e-5f, 7.4657e-6f, 0.0f},
        {1.455977e-5f, 5.2578e-6f, 0.0f},
        {1.0254e-5f, 3.7029e-6f, 0.0f},
        {7.22146e-6f, 2.6078e-6f, 0.0f},
        {5.08587e-6f, 1.8366e-6f, 0.0f},
        {3.58165e-6f, 1.2934e-6f, 0.0f},
        {2.52253e-6f, 9.1093e-7f, 0.0f},
        {1.77651e-6f, 6.4153e-7f, 0.0f},
        {1.25114e-6f, 4.5181e-7f, 0.0f},
    };
    return t;
}

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
        // pbrt-v4 uses a blackbody below 4000 K: Planck's law against the CIE 1931 table, 360-830 nm
        double X = 0, Y = 0, Z = 0;
        for (int i = 0; i < 95; ++i) {
            const double lam = (360 + 5 * i) * 1e-9;
            const double B = 1.0 / (std::pow(lam, 5) * (std::exp(1.4387769e-2 / (lam * cct)) - 1.0));
            X += B * cie1931_5nm()[i][0];
            Y += B * cie1931_5nm()[i][1];
            Z += B * cie1931_5nm()[i][2];
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
