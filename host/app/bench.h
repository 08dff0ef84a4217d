// `wavepath bench`: timed renders of scenes in both schedules (medians over repeats after a warm-up), per-kernel
// times with each kernel's registers, spills, stack and theoretical occupancy, queue fill per bounce, device
// memory, a ray-cast-only traversal pass; a table on stdout, a JSON file and an SVG plot.
#pragma once
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "host/app/render_setup.h"
#include "host/render/render.h"

namespace wp {

// One kernel's entry in ptxas's -v report.
struct PtxasKernel {
    std::string mangled, name;  // name: the kernel's short name ("extend", "DeviceSelectSweepKernel")
    std::string arch;           // "sm_90"
    int registers = 0, barriers = 0;
    int stack_bytes = 0, spill_stores = 0, spill_loads = 0;
    int shared_bytes = 0, cmem0_bytes = 0;
};
// Parses the text ptxas -v writes (`ptxas info : Compiling entry function '...' for 'sm_90'`, `Function properties
// for ...`, `Used N registers, ...`). Entry functions only, in report order; unparseable lines are skipped.
std::vector<PtxasKernel> parse_ptxas(const std::string& text);
// Short name of a (mangled or demangled) kernel symbol: the function's own name, without namespaces,
// template arguments or parameters.
std::string kernel_short_name(const std::string& symbol);
// kernel_resources.txt beside the running executable (written by the build), "" when absent.
std::string default_resources_path();

// Where `wavepath bench` without scenes looks for the benchmark set, in order: the installed set
// (<binary>/../share/wavepath/scenes), the source tree the binary was built from, ./scenes.
std::vector<std::string> bench_scene_dirs();
// The first of bench_scene_dirs holding the set ("" when none does), and the list in words for the error.
std::string find_bench_scenes();
std::string bench_scene_places();
// The published pbrt-v4 scenes of the benchmark set (an interior lit indirectly, the largest, textures, coated
// materials), as paths below a `published` folder: tests/parity/published.tar.xz, which CMake extracts into
// <build>/parity/published and installs into <prefix>/share/wavepath/scenes/published.
extern const char* const kBenchPublishedScenes[4];
// Where they are looked for, in order: <binary>/../share/wavepath/scenes/published, <binary>/parity/published (the
// build folder), the build folder the binary was built in.
std::vector<std::string> bench_published_dirs();
// The whole default set: the native scenes of find_bench_scenes() (dir), then the published ones from the first of
// bench_published_dirs holding all four; `missing` says where they were looked for when none does.
std::vector<std::string> default_bench_scenes(const std::string& dir, std::string& missing);

struct BenchOptions {
    std::vector<std::string> scenes;
    std::vector<Mode> modes{Mode::Wavefront, Mode::Megakernel};
    RenderSettings settings;  // backend, the scene overrides (spp, size, depth), the render options
    unsigned repeat = 3, warmup = 1;
    bool raycast = true;
    uint32_t raycast_spp = 4;  // camera samples per pixel of the ray-cast-only pass
    std::string json_path, plot_path, resources_path, command;
    // Error per second (with spp_list): each mode rendered at each of these sample counts and compared with the
    // reference, an image file or "auto" (rendered first by the bench itself: the same backend, the megakernel, at
    // reference_spp, default 16x the list's largest, and another seed, so that its samples are not the measured
    // images'); the time to reach target_relmse interpolated in log-log. Empty: no error measured.
    std::string reference;
    std::vector<uint32_t> spp_list;
    uint32_t reference_spp = 0;  // 0: 16x the largest of spp_list
    double target_relmse = 0.01;
};

// "" when the call's --reference suits its scenes, else why not: a file is the image of one scene ("auto" renders a
// reference for each).
std::string bench_reference_problem(const BenchOptions& o);
// The samples per pixel of an "auto" reference: reference_spp, else 16x the largest of spp_list (at most kMaxSpp).
uint32_t bench_reference_spp(const BenchOptions& o);

// The time to reach an error `target` along a curve of (time, error) points in the order of their sample counts,
// in log-log: interpolated between the first pair that brackets it (the error above the target, then at or below
// it), else extrapolated with the slope of the last segment (or of the first, when the first point is already
// below the target). `ms` is NaN when there is nothing to go by: fewer than two points, a time or error not
// positive, or an extrapolation along a segment whose error does not fall.
struct TargetTime {
    double ms = 0.0;
    bool extrapolated = false;
    // "interpolated between 16 and 64 spp", "extrapolated beyond 256 spp along 64-256 spp: not reached", or why
    // there is none
    std::string how;
};
TargetTime time_to_target(const std::vector<uint32_t>& spp, const std::vector<double>& ms,
                          const std::vector<double>& error, double target);

// Runs the benchmark; returns the JSON document it writes (and prints the table). Throws on errors; each scene
// starts as every command-line render does (load_render_scene: overrides applied, render limits checked).
nlohmann::json run_bench(const BenchOptions& o);

// Stacked per-kernel time per mode and scene as an SVG document (one panel per scene, one bar per mode); where the
// modes carry an "error" curve (--reference), below it a log-log panel per scene of relMSE against time, one line
// per schedule, the target relMSE dashed.
std::string bench_plot_svg(const nlohmann::json& bench);

// `wavepath bench` as the command line gives it: the options, the schedules' list, the switches that turn parts off,
// and the render options given (for those that do nothing in this bench: ignored_options).
struct BenchCall {
    BenchOptions bo;
    std::string modes = "wavefront,megakernel";
    bool no_raycast = false;
    std::string spp_list;  // --spp-list "16,64,256", read into bo.spp_list
    std::vector<std::string> given;
};
int run_bench_command(BenchCall& c);

}  // namespace wp
