// pbrt-v4's RGB film (film.cpp, PixelSensor) as a 3x3 colour transform of our linear sRGB image: the imaging ratio
// (exposure time x ISO / 100), white balance (von Kries in Bradford's cone space, from the white of CIE illuminant
// D at the given temperature to sRGB's D65) and, for a named camera sensor, a colour matrix fitted to pbrt-v4's own
// renders. We render RGB, not spectra, so the sensor's curves cannot be applied as pbrt-v4 does: the matrix is the
// least-squares linear map from pbrt-v4's images with the CIE 1931 sensor to its images with the named sensor.
#pragma once
#include <string>
#include "kernels/common.h"

namespace wp {

// The CIE 1931 2-degree observer's matching functions at a wavelength in nm, by the multi-lobe Gaussian fit of
// Wyman, Sloan and Shirley (2013): what blackbody colours and sampled spectra are projected with. (White balance
// projects its blackbody white with the CIE's 5 nm table instead, as pbrt-v4 does with its own table: the fit's
// white of 3200 K is 0.0009 off in x, 3% in red after white balance.)
struct CieXyz {
    double x, y, z;
};
CieXyz cie_xyz_bar(double nm);

// The chromaticity (x, y) of pbrt-v4's Spectra::D(kelvin): CIE daylight for a correlated colour temperature of
// kelvin * 1.4388 / 1.4380 of at least 4000 K (the CIE's polynomial in 1/T), a blackbody below (Planck's law
// against the CIE 1931 table: within 2e-6 of pbrt-v4's xy, computed with its 1 nm table, at 3200 K).
vec2 pbrt_illuminant_xy(float kelvin);

// pbrt-v4's WhiteBalance(src, D65) as a transform of linear sRGB: RGB_from_XYZ * M_Bradford^-1 * diag(LMS of D65 /
// LMS of src) * M_Bradford * XYZ_from_RGB, src the white of pbrt_illuminant_xy(kelvin). The illuminant's white
// maps to a neutral grey of the same luminance.
mat3 pbrt_white_balance(float kelvin);

// A named sensor's colour matrix (linear sRGB of the CIE 1931 sensor to that of the named one, white balance 6500 K,
// pbrt-v4's default for named sensors): true and m set for the sensors we have fitted, false for others.
bool pbrt_sensor_matrix(const std::string& name, mat3& m);

}  // namespace wp
