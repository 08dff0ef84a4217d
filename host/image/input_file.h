// What every importer checks of an input file before it reads it, and how messages quote what it held. Here, in the
// lowest layer that reads input files (images; the scene layer's meshes, spectra and scenes use it too).
#pragma once
#include <cstdint>
#include <string>

namespace wp {

// The largest spectrum file read (pbrt-v4's spds are a few KiB; /dev/zero read as one took 4 GiB before any check).
constexpr uint64_t kMaxSpectrumFileBytes = 16ull << 20;

// "" when `path` is a regular file of at most max_bytes (0: any size), else the problem, naming the file and `what`
// it was to be: "x.spd: is a folder, not a spectrum file", "/dev/zero: is a character device, not a spectrum file",
// "big.spd: is 20.0 MiB, larger than a spectrum file may be (at most 16.0 MiB)". A path that cannot be stat'ed
// gives "" (opening it then says why).
std::string input_file_problem(const std::string& path, const std::string& what, uint64_t max_bytes = 0);

// `text` for a message: non-printable bytes (a NUL, a control character other than a newline or a tab) written as
// \xNN so that a message is never cut off or garbled by what the input held, and cut to max_chars with "..." after
// it. SceneError's messages go through it whole (host/scene/scene_json.h).
std::string printable(const std::string& text, size_t max_chars = 40);

}  // namespace wp
