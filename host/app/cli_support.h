// What the command line checks and names before any work starts: its exit codes, the outputs of a call (every
// path checked for a known extension and a folder it can write in, by creating and removing a probe file), the
// output patterns of a batch (`-o 'out/{name}.exr'`, `--output-dir`), and the version text.
#pragma once
#include <string>
#include <vector>

namespace wp {

// The exit codes of `wavepath` (README, "Exit codes"); 128 + signal when interrupted (130 SIGINT, 143 SIGTERM).
enum ExitCode : int {
    kExitOk = 0,
    kExitInput = 1,   // a scene or input file is missing, unreadable or invalid
    kExitUsage = 2,   // the command line is wrong, or an output cannot be written
    kExitRender = 3,  // the render failed: no GPU when one was asked for, a GPU error, out of memory
};

// The image formats `render -o` writes, by extension: {".exr", ".png", ".pfm"}.
const std::vector<std::string>& image_extensions();

// The lower-case extension of a path's file name with its dot (".exr"), "" when it has none.
std::string extension_of(const std::string& path);

// "" when `path` can be written now: its extension is one of `exts`, it is not a folder, its folder exists and is a
// folder, and a probe file can be created and removed in it (an existing file must be writable). Otherwise the
// problem, naming the path: "output '/nope/x.exr': folder '/nope' does not exist". `what` names the output
// ("output", "--json", "--plot").
std::string output_problem(const std::string& path, const std::vector<std::string>& exts, const std::string& what);

// A scene's name for its outputs: the file name without folders and extension ("scenes/dragon.json" -> "dragon").
std::string scene_name(const std::string& scene_path);

// The output of one scene: `pattern` (from -o; "" is "{name}.exr") with {name} replaced by scene_name and {dir} by
// the name of the scene's folder, under `output_dir` when one is given and the pattern is relative. Defaults land in
// the current folder, never beside the scene.
std::string output_for(const std::string& pattern, const std::string& output_dir, const std::string& scene_path);

// "out/a.exr" with `tag` before the extension: "out/a.wavefront.exr" (--mode both writes one image per schedule).
std::string with_tag(const std::string& path, const std::string& tag);
// "out/a.exr" with its extension replaced: "out/a.compare.json".
std::string with_extension(const std::string& path, const std::string& ext);

// `--devices SPEC` against the `count` CUDA devices visible: "all" (every one) or a comma-separated list of indices
// (a repeated index: several workers on one GPU) into `out`. "" when it is good; otherwise the problem, naming the
// option and the count: "--devices: device 2 does not exist: 2 CUDA GPUs are visible (0 to 1)".
std::string parse_devices(const std::string& spec, int count, std::vector<int>& out);

// `wavepath --version`: the version, the git commit, the CUDA architectures of the build and the GPU found now.
std::string version_text();
// "wavepath 0.2.0 (abc1234)": the version and commit, as the EXR metadata records them.
std::string version_short();

}  // namespace wp
