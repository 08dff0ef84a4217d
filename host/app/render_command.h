// The render and merge commands: `wavepath render` (render_command.cpp), a script of named phases from the call's
// checks to the summary, and `wavepath merge` (merge_command.cpp). host/app/main.cpp only wires the command line
// to them.
#pragma once
#include <string>
#include <vector>
#include "host/app/render_setup.h"
#include "host/image/denoise.h"
#include "host/image/image_io.h"
#include "host/render/film_file.h"

namespace wp {

// `wavepath render`: outputs checked, every scene loaded, then the renders.
struct RenderCall {
    std::vector<std::string> scenes;
    std::string out, output_dir, mode = "auto", command;
    std::string samples;    // --samples START:COUNT
    std::string resume;     // --resume PART
    std::string reference;  // --reference IMAGE: the final image's MSE and relMSE against it
    bool stats = false, keep_going = false;
    uint32_t aovs = 0;                    // --aov: kernels/aov.h AovBits
    bool denoise = false;                 // --denoise
    std::string denoise_device = "auto";  // --denoise-device: auto, cpu, cuda
    double progress = 10.0;               // --progress: seconds between progress lines off a terminal (0: none)
    std::vector<std::string> given;       // the render options given, for those that do nothing here
    RenderSettings rs;
};
int run_render(const RenderCall& c);

// `wavepath merge`: partial films of one scene and settings added into the image (or a film). The output is checked
// first (exit 2); unreadable parts, other scenes or settings, overlaps and (without --partial) missing ranges exit 1.
struct MergeCall {
    std::vector<std::string> parts;
    std::string out, command;
    bool partial = false;
    bool denoise = false;                 // --denoise: the merged image denoised beside it (NAME.denoised.EXT)
    std::string denoise_device = "auto";  // --denoise-device
};
int run_merge(const MergeCall& c);

// Shared by both commands.
// The outputs `render -o` writes: the images and partial films.
const std::vector<std::string>& render_extensions();
// A render's output by its extension: a partial film (.wpfilm) or an image.
void write_output(const std::string& path, const Image& img, const PartialFilm& film, const ImageMetadata& meta);
// --denoise-device's value (CLI11 has checked it is auto, cpu or cuda).
DenoiseDevice denoise_device_of(const std::string& v);

}  // namespace wp
