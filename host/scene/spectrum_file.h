// pbrt-v4's spectrum files (.spd, read by PiecewiseLinearSpectrum::Read through ReadFloatFile): whitespace-separated
// numbers, taken in pairs (wavelength in nm, value); '#' starts a comment that runs to the end of the line.
// Wavelengths must increase strictly. The values are used as they are: pbrt-v4 normalises only illuminants (to
// luminance 1, where the light is made), which the loader does for every non-RGB emission spectrum.
#pragma once
#include <string>
#include <vector>

namespace wp {

// The samples of the spectrum file at `path` as interleaved (wavelength, value) pairs, the layout of an inline
// "spectrum" parameter's numbers. False where it cannot be read, with `error` set to "PATH: problem" (the file
// cannot be opened, it holds no numbers) or "PATH:LINE: problem" (a malformed number, an odd count of numbers,
// a wavelength not greater than the one before).
bool read_spectrum_file(const std::string& path, std::vector<double>& pairs, std::string& error);

}  // namespace wp
