// wavepath command line: each subcommand's options wired to its command (host/app/render_command.h: render and
// merge; host/app/bench.h: bench; the settings list).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>
#include "host/app/bench.h"
#include "host/app/cli_support.h"
#include "host/app/render_command.h"
#include "host/app/render_setup.h"
#include "host/scene/render_limits.h"
#include "host/scene/render_settings.h"
#include "kernels/aov.h"

using namespace wp;

namespace {

// A whole number in [lo, hi], with a message of human size: "--spp: 0 is out of range (1 to 16777216)".
CLI::Validator whole(uint64_t lo, uint64_t hi) {
    return CLI::Validator(
        [lo, hi](std::string& v) -> std::string {
            const std::string range = "(" + std::to_string(lo) + " to " + std::to_string(hi) + ")";
            size_t used = 0;
            unsigned long long x = 0;
            bool ok = !v.empty() && v[0] != '-' && v[0] != '+';
            try {
                if (ok) x = std::stoull(v, &used, 10);
            } catch (const std::exception&) { ok = false; }
            if (!ok || used != v.size()) return "'" + v + "' is not a whole number " + range;
            if (x < lo || x > hi) return v + " is out of range " + range;
            return "";
        },
        "", "whole");
}

// A number in [lo, hi], with a message of human size: "--clamp: -1 is out of range (0 to 1e+30; 0: off)".
CLI::Validator real(double lo, double hi, const std::string& note = "") {
    return CLI::Validator(
        [lo, hi, note](std::string& v) -> std::string {
            char range[96];
            std::snprintf(range, sizeof range, "(%g to %g%s%s)", lo, hi, note.empty() ? "" : "; ", note.c_str());
            size_t used = 0;
            double x = 0;
            bool ok = !v.empty();
            try {
                if (ok) x = std::stod(v, &used);
            } catch (const std::exception&) { ok = false; }
            if (!ok || used != v.size() || !std::isfinite(x)) return "'" + v + "' is not a number " + range;
            if (x < lo || x > hi) return v + " is out of range " + range;
            return "";
        },
        "", "real");
}

// A setting of the list as an option: its flag, its help with the default of a native scene file, its value read
// by the list's reader (set_setting's messages: "--rr-depth: 5000 is out of range (1 to 1024)") into its override.
template <class T>
void add_setting_option(CLI::App* cmd, std::optional<T>& into, const SettingInfo& s) {
    const std::string def = setting_text(default_settings(), s);
    cmd->add_option_function<std::string>(
           s.flag,
           [&into, &s](const std::string& v) {
               RenderParams rp;
               set_setting(rp, s, v);
               get_setting_value(rp, s, v, into.emplace());
           },
           std::string(s.help) + " (default: the scene's render." + s.name + ", else " + def + ")")
        ->type_name(setting_metavar(s))
        ->check(CLI::Validator([&s](std::string& v) { return setting_value_problem(s, v); }, "", s.name));
}

// A schedule option of the list (WP_RENDER_OPTIONS), by its kind: a number in [lo, hi], a switch (and its negation),
// a switch that turns it off.
// The help with the default: "(default 16)", the member's initial value, or "(default: all cores)", the list's words.
std::string option_help(const std::string& help, const std::string& def, uint64_t init) {
    return help + (def.empty() ? " (default " + std::to_string(init) + ")" : " (default: " + def + ")");
}
template <class T>
void add_schedule_option_VALUE(CLI::App* cmd, T& into, const char* flag, uint64_t lo, uint64_t hi,
                               const std::string& help) {
    cmd->add_option(flag, into, help)->check(whole(lo, hi));
}
void add_schedule_option_SWITCH(CLI::App* cmd, bool& into, const char* flag, uint64_t, uint64_t,
                                const std::string& help) {
    cmd->add_flag(flag, into, help);
}
void add_schedule_option_OFF(CLI::App* cmd, bool& into, const char* flag, uint64_t, uint64_t, const std::string& help) {
    cmd->add_flag_callback(
        flag, [&into] { into = false; }, help);
}

// The options `render` and `bench` share, declared once: the backend, the overrides of the scene's settings and
// the render options, bound to `s`. Defaults come from the structs (RenderOptions); help texts print them.
void add_render_options(CLI::App* cmd, RenderSettings& s, bool bench) {
    SceneOverrides& o = s.scene;
    RenderOptions& r = s.options;
    cmd->add_option("--backend", s.backend, "gpu, cpu or auto (default auto: the GPU when present)")
        ->check(CLI::IsMember({"auto", "gpu", "cpu"}));
    // every render setting of the list (kernels/render_params.h) as its option, checked against the list's range
#define WP_SETTING_OPTION(K, member, n, ...) add_setting_option(cmd, o.n, *find_setting(#n));
    WP_RENDER_SETTINGS(WP_SETTING_OPTION)
#undef WP_SETTING_OPTION
    cmd->add_option("--set", s.sets,
                    "NAME=VALUE: a render setting by its name, as in the scene file's render block (repeatable; "
                    "docs/OPTIONS.md; settings: " +
                        setting_names() + ")")
        ->check(CLI::Validator(
            [](std::string& v) {
                SceneOverrides none;
                return set_override(none, v);
            },
            "NAME=VALUE", "setting"));
    // (after every option is read: a setting given by --set and by its own option is refused there)
    cmd->parse_complete_callback([&s] {
        for (const std::string& a : s.sets)
            if (std::string why = set_override(s.scene, a); !why.empty()) throw CLI::ValidationError("--set", why);
    });
    // every schedule option of the list (host/render/render.h) as its option; bench's own only on bench
#define WP_OPTION_CLI(K, type, member, init, flag, scope, lo, hi, def, help) \
    if (bench || !((scope)&kOptBench))                                       \
        add_schedule_option_##K(cmd, r.member, flag, lo, hi, option_help(help, def, uint64_t(RenderOptions{}.member)));
    WP_RENDER_OPTIONS(WP_OPTION_CLI)
#undef WP_OPTION_CLI
    cmd->add_option("--devices", s.devices,
                    "GPU: split the render over these CUDA devices, 'all' or a list (0,1; a repeated index is "
                    "several workers on one GPU): batches of samples from a shared counter, the image bit for bit "
                    "the single GPU's");
    cmd->add_flag("--strict", s.load.strict, "every warning of a scene importer is an error");
}

// The command line as one string, for the metadata and the bench's JSON (arguments with spaces quoted).
std::string command_line(int argc, char** argv) {
    std::string c;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        bool quote = a.empty() || a.find_first_of(" \t'\"{}*?") != std::string::npos;
        c += (i ? " " : "") + (quote ? "'" + a + "'" : a);
    }
    return c;
}

// `wavepath render`'s options into rc.
CLI::App* add_render_command(CLI::App& app, RenderCall& rc) {
    auto* render = app.add_subcommand("render", "render scenes to images");
    render->add_option("scenes", rc.scenes, "scene files (.json: native or Tungsten; .gltf, .glb; .pbrt: pbrt-v4)")
        ->required();
    render->add_option("-o,--output", rc.out,
                       "output image (.exr, .png, .pfm); with several scenes a pattern: {name} is the scene's file "
                       "name without extension, {dir} its folder's name (default: {name}.exr in the current folder)");
    render->add_option("--output-dir", rc.output_dir, "folder for the outputs (an existing one)");
    render->add_flag("--keep-going", rc.keep_going, "with several scenes: when one fails, render the rest");
    add_render_options(render, rc.rs, false);
    render
        ->add_option_function<std::string>(
            "--aov",
            [&rc](const std::string& v) {
                std::stringstream ss(v);
                for (std::string a; std::getline(ss, a, ',');)
                    rc.aovs |= a == "albedo"   ? kAovAlbedo
                               : a == "normal" ? kAovNormal
                               : a == "depth"  ? kAovDepth
                                               : kAovPosition;
            },
            "AOVs, comma-separated: albedo, normal, depth, position (EXR: channels albedo.R/G/B, N.X/Y/Z, Z, "
            "P.X/Y/Z of the image; PNG, PFM: NAME.albedo.EXT beside it, ...; a partial film (.wpfilm) keeps their "
            "exact sums, and `wavepath merge` writes them)")
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                std::stringstream ss(v);
                for (std::string a; std::getline(ss, a, ',');)
                    if (a != "albedo" && a != "normal" && a != "depth" && a != "position")
                        return "unknown AOV '" + a + "' (albedo, normal, depth, position)";
                return "";
            },
            "LIST", "aov"));
    render->add_flag("--denoise", rc.denoise,
                     "also write NAME.denoised.EXT: Intel Open Image Denoise with the albedo and normal AOVs");
    render
        ->add_option("--denoise-device", rc.denoise_device,
                     "where --denoise runs: auto (a GPU render's GPU through OIDN's CUDA device where it is usable, "
                     "else the CPU), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    render->add_option("--mode", rc.mode, "wavefront, megakernel, both, or auto (GPU: wavefront, CPU: megakernel)")
        ->check(CLI::IsMember({"auto", "wavefront", "megakernel", "both"}));
    render->add_flag("--stats", rc.stats, "print the per-kernel table, queue sizes and memory estimate");
    render
        ->add_option("--progress", rc.progress,
                     "when stderr is not a terminal (a log, a pipe): a progress line every this many seconds while "
                     "a scene loads and renders (percent, Msamples/s, ETA); 0: none (default 10; a terminal gets a "
                     "progress bar)")
        ->check(real(0.0, 86400.0));
    render->add_option("--samples", rc.samples,
                       "START:COUNT: render samples START to START+COUNT-1 of every pixel (of the render's --spp) "
                       "into a partial film (-o part.wpfilm); `wavepath merge` joins the parts bit for bit");
    render->add_option("--reference", rc.reference,
                       "print the final image's MSE and relMSE against this image (EXR, PFM; of the render's size)");
    render->add_option("--resume", rc.resume,
                       "continue the render whose partial film this is (a .wpfilm: an interrupted render writes "
                       "one); its settings unless given here (a larger --spp renders on to that many samples per "
                       "pixel)");
    return render;
}

// `wavepath merge`'s options into mc.
CLI::App* add_merge_command(CLI::App& app, MergeCall& mc) {
    auto* merge = app.add_subcommand("merge", "join partial films (render --samples) into the image");
    merge->add_option("parts", mc.parts, "partial films (.wpfilm) of one scene and settings")->required();
    merge->add_option("-o,--output", mc.out, "the image (.exr, .png, .pfm) or a film (.wpfilm)")->required();
    merge->add_flag("--partial", mc.partial,
                    "write the image even if samples are missing (each pixel divided by the samples it has)");
    merge->add_flag("--denoise", mc.denoise,
                    "also write NAME.denoised.EXT: Intel Open Image Denoise with the albedo and normal AOVs the parts "
                    "hold (render them with --aov albedo,normal)");
    merge
        ->add_option("--denoise-device", mc.denoise_device,
                     "where --denoise runs: auto (OIDN's CUDA device where a GPU is usable, else the CPU), cpu, cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    return merge;
}

// `wavepath bench`'s options into c.
CLI::App* add_bench_command(CLI::App& app, BenchCall& c) {
    auto* bench = app.add_subcommand("bench", "time scenes in both schedules: per-kernel table, JSON, SVG plot");
    bench->add_option("scenes", c.bo.scenes,
                      "scene files (default: the benchmark set {cornell-box,rtiow,sponza,dragon,helmet}.json, "
                      "installed or in the source tree, and the published pbrt-v4 scenes veach-ajar, living-room, "
                      "pbrt-book and material-testball, installed or extracted in the build folder)");
    add_render_options(bench, c.bo.settings, true);
    bench->add_option("--modes", c.modes, "comma-separated schedules (default " + c.modes + ")");
    bench
        ->add_option("--repeat", c.bo.repeat,
                     "timed renders per mode, the median reported (default " + std::to_string(c.bo.repeat) + ")")
        ->check(whole(1, 1000000));
    bench
        ->add_option("--warmup", c.bo.warmup,
                     "untimed renders per mode first (default " + std::to_string(c.bo.warmup) + ")")
        ->check(whole(0, 1000000));
    bench->add_option("--json", c.bo.json_path, "write the results as JSON (.json; default: none)");
    bench->add_option("--plot", c.bo.plot_path, "write per-kernel times, stacked, as an SVG (.svg; default: none)");
    bench
        ->add_option(
            "--raycast-spp", c.bo.raycast_spp,
            "camera rays per pixel of the ray-cast-only pass (default " + std::to_string(c.bo.raycast_spp) + ")")
        ->check(whole(1, kMaxSpp));
    bench->add_flag("--no-raycast", c.no_raycast, "skip the ray-cast-only traversal pass (default: it runs)");
    bench->add_option("--resources", c.bo.resources_path,
                      "ptxas report (default: kernel_resources.txt beside the binary, GPU only)");
    bench->add_option("--reference", c.bo.reference,
                      "error per second: the reference image (EXR, PFM) of the one scene, or auto: one rendered "
                      "first for each scene (megakernel, --reference-spp, the next seed); with --spp-list");
    bench
        ->add_option("--spp-list", c.spp_list,
                     "error per second: the sample counts each mode is rendered at and compared with --reference "
                     "(e.g. 16,64,256; default: none)")
        ->check(CLI::Validator(
            [](std::string& v) -> std::string {
                std::stringstream ss(v);
                size_t n = 0;
                for (std::string a; std::getline(ss, a, ',');) {
                    std::string x = a;
                    if (std::string why = whole(1, kMaxSpp)(x); !why.empty()) return why;
                    ++n;
                }
                return n ? "" : "no sample count in '" + v + "'";
            },
            "LIST", "spp-list"));
    bench
        ->add_option("--reference-spp", c.bo.reference_spp,
                     "samples per pixel of --reference auto (default: 16x the largest of --spp-list)")
        ->check(whole(1, kMaxSpp));
    bench
        ->add_option("--target-relmse", c.bo.target_relmse,
                     "error per second: the relMSE whose time is reported, interpolated in log-log between the "
                     "sample counts (default 0.01)")
        ->check(real(1e-12, 1e12));
    return bench;
}

// `wavepath settings`: the list of kernels/render_params.h, as docs/OPTIONS.md's table or one line a setting.
int run_settings(bool markdown, bool as_json) {
    if (as_json) {
        std::printf("%s\n", settings_description().dump(1).c_str());
        return kExitOk;
    }
    if (markdown) {
        std::fputs(settings_markdown().c_str(), stdout);
        return kExitOk;
    }
    const RenderParams d = default_settings();
    for (const SettingInfo& s : render_settings())
        std::printf("%-15s %-17s default %-8s %s: %s\n", s.name, s.flag, setting_text(d, s).c_str(),
                    setting_range_text(s).c_str(), s.help);
    return kExitOk;
}

// `wavepath options`: the schedule options of host/render/render.h, as docs/CLI.md's table or one line an option.
int run_options(bool markdown, bool env_markdown) {
    if (markdown || env_markdown) {
        std::fputs((markdown ? schedule_options_markdown() : bvh_knobs_markdown()).c_str(), stdout);
        return kExitOk;
    }
    for (const ScheduleOption& o : schedule_options()) std::printf("%-40s %s\n", o.flag, o.help.c_str());
    return kExitOk;
}

// The options that may do nothing where they are given (ignored_options), as typed, given to cmd: the schedule
// options of the list (host/render/render.h; bench's own on bench), then `extra`, then the list's options of two
// spellings ("--push-compaction", "--select-compaction"), found in argv.
std::vector<std::string> given_options(CLI::App* cmd, bool bench, const std::vector<std::string>& extra, int argc,
                                       char** argv) {
    std::vector<std::string> g, spelt;
    for (const ScheduleOption& o : schedule_options()) {
        if ((o.scope & kOptBench) && !bench) continue;
        const std::vector<std::string> names = option_spellings(o);
        if (names.size() == 1 && cmd->count(names[0]) > 0) g.push_back(names[0]);
        if (names.size() > 1)
            for (int i = 1; i < argc; ++i)
                for (const std::string& n : names)
                    if (argv[i] == n) spelt.push_back(n);
    }
    for (const std::string& n : extra)
        if (cmd->count(n) > 0) g.push_back(n);
    g.insert(g.end(), spelt.begin(), spelt.end());
    return g;
}

// CLI11's "--output: At Most 1 required but received 2" in our words, with the values given: "-o/--output is given 2
// times ('a.png', 'b.png'): it takes one value ..."; "" for any other parse error.
std::string repeated_option(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    const std::string w = e.what(), tail = ": At Most 1 required but received ";
    const size_t at = w.find(tail);
    if (e.get_name() != "ArgumentMismatch" || at == std::string::npos) return "";
    const std::string name = w.substr(0, at);
    std::vector<std::string> spellings;
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (const CLI::Option* o = sub->get_option_no_throw(name); o && spellings.empty()) {
            for (const std::string& n : o->get_snames()) spellings.push_back("-" + n);
            for (const std::string& n : o->get_lnames()) spellings.push_back("--" + n);
        }
    if (spellings.empty()) spellings.push_back(name);
    std::string names, values;
    for (const std::string& n : spellings) names += (names.empty() ? "" : "/") + n;
    size_t count = 0;
    for (int i = 1; i < argc; ++i)
        for (const std::string& n : spellings) {
            const std::string a = argv[i];
            std::string v;
            if (a == n && i + 1 < argc)
                v = argv[i + 1];
            else if (a.rfind(n + "=", 0) == 0)
                v = a.substr(n.size() + 1);
            else
                continue;
            values += (values.empty() ? "'" : ", '") + v + "'";
            ++count;
        }
    std::string m = names + " is given " + std::to_string(std::max<size_t>(count, 2)) + " times" +
                    (values.empty() ? std::string() : " (" + values + ")") + ": it takes one value";
    if (name == "--output") m += " (several scenes: one pattern, -o '{name}.exr')";
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"wavepath: a wavefront GPU path tracer"};
    app.require_subcommand(1);
    app.set_version_flag(
        "--version", [] { return version_text(); },
        "the version, git commit, CUDA architectures "
        "and the GPU found");
    RenderCall rc;
    rc.command = command_line(argc, argv);
    MergeCall mc;
    mc.command = rc.command;
    BenchCall bc;
    bc.bo.command = rc.command;
    CLI::App* render = add_render_command(app, rc);
    CLI::App* merge = add_merge_command(app, mc);
    CLI::App* bench = add_bench_command(app, bc);
    auto* settings = app.add_subcommand("settings", "list the render settings (--set NAME=VALUE, docs/OPTIONS.md)");
    bool settings_markdown_table = false;
    settings->add_flag("--markdown", settings_markdown_table,
                       "the table of docs/OPTIONS.md (name, flag, scene key, type, default, range, help)");
    bool settings_json = false;
    settings->add_flag("--json", settings_json,
                       "the list as JSON (name, kind, flag, minimum, maximum, default, help; a choice's values)");
    auto* options = app.add_subcommand("options", "list the schedule options of render and bench (docs/CLI.md)");
    bool options_markdown_table = false;
    options->add_flag("--markdown", options_markdown_table,
                      "the table of docs/CLI.md (option, where it does something, default, range, help)");
    bool options_env_markdown = false;
    options->add_flag("--env-markdown", options_env_markdown,
                      "docs/CLI.md's table of the environment's WP_BVH_* knobs (variable, range, what)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (std::string m = repeated_option(app, e, argc, argv); !m.empty()) {
            std::fprintf(stderr, "error: %s\n", m.c_str());
            return kExitUsage;
        }
        // help and --version exit 0; every usage error exits 2 (CLI11's own codes are 100 and up)
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    if (render->parsed() || bench->parsed()) {  // the tree's knobs (WP_BVH_*): checked, and said when set
        if (std::string why = bvh_knobs_problem(); !why.empty()) {
            std::fprintf(stderr, "error: %s\n", why.c_str());
            return kExitUsage;
        }
        if (std::string knobs = bvh_knobs_text(build_options_from_env()); !knobs.empty())
            std::fprintf(stderr, "the tree's knobs from the environment: %s\n", knobs.c_str());
    }
    if (render->parsed()) {
        rc.given = given_options(render, false, {}, argc, argv);
        rc.rs.devices_given = render->count("--devices") > 0;
        return run_render(rc);
    }
    if (merge->parsed()) return run_merge(mc);
    if (settings->parsed()) return run_settings(settings_markdown_table, settings_json);
    if (options->parsed()) return run_options(options_markdown_table, options_env_markdown);
    bc.given = given_options(
        bench, true, {"--raycast-spp", "--spp-list", "--reference", "--reference-spp", "--target-relmse"}, argc, argv);
    bc.bo.settings.devices_given = bench->count("--devices") > 0;
    return run_bench_command(bc);
}
