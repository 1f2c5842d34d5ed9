// `tryon animate PATTERN --avatar BODY [--motion MOTION] -o OUTDIR`: drapes a garment on the
// first frame of a body's motion, then the garment follows the body; writes OUTDIR/garment.glb
// (the garment's motion, the body's with --with-body), report.json with every frame's quality,
// and with --preview a picture every --preview-every frames.
//
// SIGINT / SIGTERM and --time-limit stop it at the next frame: stopped while draping, nothing is
// written (as `drape`); stopped while following, the frames done are written and the report
// says so. The exit code is then 128 + the signal (130 / 143), or 1 for the time limit.
#include <chrono>
#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "apps/drape_common.hpp"
#include "apps/options.hpp"
#include "avatars/bvh.hpp"
#include "avatars/motion.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/logger.hpp"
#include "core/parallel.hpp"
#include "core/progress.hpp"
#include "tryon/animate.hpp"

namespace tryon::apps {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct AnimateCommand {
  DrapeCommand drape;
  std::string motion;    // empty: the avatar file's own motion
  double fps = 30;
  std::string frames;    // "A:B"
  int blend_in = 0;
  int animation = 0;     // which of the file's animations
  bool preview = false;
  int preview_every = 10;
  bool with_body = false;
  double max_step_travel_mm = 1;
  avatars::BvhRetarget bvh;  // a BVH motion: the rig, its base mesh, the joint map
};

// "A:B", "A:" or ":B" (frame numbers of the motion, both kept).
void parse_frames(const std::string& text, avatars::MotionOptions& o) {
  if (text.empty()) return;
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw InputError("--frames: expected A:B, got '" + text + "'");
  auto number = [&](const std::string& s, int fallback) {
    if (s.empty()) return fallback;
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || v < 0) throw InputError("--frames: '" + s + "' is not a frame number");
    return v;
  };
  o.first = number(text.substr(0, colon), 0);
  o.last = number(text.substr(colon + 1), -1);
}

// The body's motion: a BVH clip played on the avatar through its rig, --motion's file, or the
// avatar file's own animation or frames.
avatars::BodyMotion load_body_motion(const AnimateCommand& c) {
  avatars::MotionOptions mo;
  mo.fps = c.fps;
  mo.avatar.up = parse_up_axis(c.drape.up);
  mo.avatar.detect_facing = c.drape.facing == "auto";
  mo.blend_in = c.blend_in;
  mo.animation = c.animation;
  parse_frames(c.frames, mo);
  if (!c.motion.empty() && has_extension(c.motion, ".bvh")) {
    if (c.bvh.rig.empty() || c.bvh.base_mesh.empty())
      throw InputError("a BVH motion is played on the avatar through a rig: give --rig and --base-mesh");
    if (c.animation != 0) throw InputError("a BVH file holds one clip: there is no animation " + std::to_string(c.animation));
    avatars::BvhRetarget r = c.bvh;
    r.fps = c.fps;
    return avatars::finish_motion(avatars::read_bvh_motion(c.drape.avatar, c.motion, r),
                                  fs::path(c.drape.avatar).stem().string(), mo);
  }
  return avatars::load_motion(c.motion.empty() ? c.drape.avatar : c.motion, mo);
}

// "NAME: motion clean, 90 frames in 41.0 s (0.31 s a frame); worst frame 12: body 0, ..." on stdout.
void print_summary(const std::string& name, const AnimateResult& r, double seconds) {
  const nlohmann::json& w = r.report.value("worst_frame", nlohmann::json::object());
  std::printf("%s: motion %s, %zu frames in %.1f s (%.2f s a frame); worst frame %d: body %d, inside %d, self %d, "
              "seam gap %.2f mm\n",
              name.c_str(), r.clean ? "clean" : "NOT clean", r.frames.size(), seconds,
              r.report["timings_s"].value("follow_per_frame", 0.0), w.value("frame", 0), w.value("body_intersections", 0),
              w.value("vertices_inside_body", 0), w.value("self_intersections", 0), 1000 * w.value("seam_gap_max_m", 0.0));
}

int run_animate(const AnimateCommand& c) {
  const auto t_start = Clock::now();
  const DrapeCommand& o = c.drape;
  if (o.threads > 0) set_num_threads(o.threads);
  if (o.quiet) logger().set_level(spdlog::level::err);
  const StopSignals signals;
  // Everything that can be refused is checked before any output is written.
  const avatars::BodyMotion motion = load_body_motion(c);
  const garments::LoadedPattern loaded = load_sewable_pattern(o, motion.body);
  const garments::Pattern& pattern = loaded.pattern;
  SaveOptions save;
  save.format = "glb";
  save.with_body = c.with_body;
  AnimateOptions ao;
  ao.drape = drape_options(o);
  ao.max_step_travel_m = c.max_step_travel_mm / 1000;

  auto bar = std::make_unique<ProgressBar>("drape " + pattern.name, o.max_frames, !o.quiet);
  bool following = false;
  AnimateResult result = animate(pattern, motion, ao, [&](const DrapeProgress& p) {
    if (p.phase == "motion" && !following) {
      bar->finish("draped");
      bar = std::make_unique<ProgressBar>("motion " + pattern.name, p.max_frames, !o.quiet);
      following = true;
    }
    char status[128];
    std::snprintf(status, sizeof status, "%s, frame %d", p.phase.c_str(), p.frame);
    bar->update(p.frame, status);
  }, &stop_requested());
  bar->finish(result.report["motion"]["status"].get<std::string>());
  if (result.frames.size() <= 1 && signals.stopped()) {
    logger().error("animate interrupted by {} while draping; nothing written to '{}'", signals.name(), o.outdir);
    return signals.exit_code();
  }
  save_animation(result, motion, o.outdir, save, c.preview ? c.preview_every : 0);
  if (!o.quiet) print_summary(pattern.name, result, since(t_start));
  if (signals.stopped()) return signals.exit_code();
  return result.clean ? kExitOk : kExitNotClean;
}

}  // namespace

void add_animate_command(CLI::App& app, std::function<int()>& run) {
  auto c = std::make_shared<AnimateCommand>();
  CLI::App* cmd = app.add_subcommand(
      "animate", "drape a garment on a moving body and follow its motion (exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("pattern", c->drape.pattern, "GarmentCode specification JSON or DXF-AAMA / ASTM D6673 file")->required();
  cmd->add_option("--avatar", c->drape.avatar,
                  "the moving body: a rigged body with an animation (glTF/GLB, COLLADA, FBX), a glTF/GLB body moved by "
                  "animated morph targets, a folder of meshes (one a frame, in name order), a text file listing them, "
                  "or the body a --motion BVH clip plays on")
      ->required();
  cmd->add_option("--motion", c->motion,
                  "the motion, when not the avatar file's own: a file or folder as for --avatar, or a BVH clip played "
                  "on the avatar through --rig");
  cmd->add_option("--rig", c->bvh.rig, "BVH: the avatar's rig (a MakeHuman .mhskel with its .mhw, or their folder)");
  cmd->add_option("--base-mesh", c->bvh.base_mesh, "BVH: the mesh the rig's vertex indices refer to (MakeHuman base.obj)");
  cmd->add_option("--joint-map", c->bvh.joint_map, "BVH: JSON {clip joint: rig bone} (default: the CMU skeleton's)");
  cmd->add_option("-o,--output", c->drape.outdir, "output folder (garment.glb, report.json)")->required();
  cmd->add_option("--fps", c->fps, "frames a second: the animation sampled at, a mesh sequence played at")
      ->check(CLI::Range(1.0, 240.0));
  cmd->add_option("--animation", c->animation, "which of the file's animations to play (from 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--frames", c->frames, "A:B: the motion's frames A to B only (from 0)");
  cmd->add_option("--blend-in", c->blend_in,
                  "drape on the body's rest pose (a rigged body's bind pose, the body a BVH clip plays on) and "
                  "blend it into the first frame over this many frames (0: drape on the first frame)")
      ->check(CLI::Range(0, 10000));
  cmd->add_option("--max-step-travel-mm", c->max_step_travel_mm,
                  "where it can touch the cloth, the body moves at most this far in a simulation step (each frame's steps follow from it)")
      ->check(CLI::Range(0.1, 50.0));
  cmd->add_flag("--preview", c->preview, "also write preview_NNNN.png every --preview-every frames");
  cmd->add_option("--preview-every", c->preview_every, "frames between preview pictures")->check(CLI::Range(1, 100000));
  cmd->add_flag("--with-body", c->with_body, "include the moving body in garment.glb");
  add_drape_options(*cmd, c->drape);
  cmd->callback([c, &run] { run = [c] { return run_animate(*c); }; });
}

}  // namespace tryon::apps
