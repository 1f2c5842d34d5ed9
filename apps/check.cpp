// `tryon check CLOTH --avatar BODY [--rest REST.obj] [--previous PREV.obj]`: the quality
// metrics of any cloth mesh (ours or a peer's) against a body, as JSON.
#include <iostream>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "apps/options.hpp"
#include "avatars/avatar.hpp"
#include "tryon/tryon.hpp"

namespace tryon::apps {
namespace {

struct CheckCommand {
  std::string cloth, avatar, rest, previous, up = "y";
};

int run_check(const CheckCommand& o) {
  avatars::AvatarOptions aopt;
  aopt.up = parse_up_axis(o.up);
  CheckFiles files;
  files.rest = o.rest;
  files.previous = o.previous;
  const CheckResult r = tryon::check(o.cloth, avatars::load_avatar(o.avatar, aopt), files);
  nlohmann::json doc = r.report;
  doc["avatar"] = o.avatar;
  std::cout << doc.dump(2) << "\n";
  return r.clean ? kExitOk : kExitNotClean;
}

}  // namespace

void add_check_command(CLI::App& app, std::function<int()>& run) {
  auto opts = std::make_shared<CheckCommand>();
  CLI::App* cmd = app.add_subcommand("check", "quality metrics of a cloth mesh on a body, as JSON "
                                              "(exit 0 clean, 1 not clean, 2 bad input)");
  cmd->add_option("cloth", opts->cloth, "cloth OBJ in the body's frame (metres, feet at y = 0); "
                                        "vt = rest 2D coordinates, l = seam pairs")->required();
  cmd->add_option("--avatar", opts->avatar, "body mesh")->required();
  cmd->add_option("--rest", opts->rest, "OBJ with the same vertices whose vt and l give rest coordinates and seams "
                                        "(e.g. the placed mesh of tryon inspect -o)");
  cmd->add_option("--previous", opts->previous, "the cloth 1/60 s earlier, for moving_fraction");
  add_up_option(*cmd, opts->up);
  cmd->callback([opts, &run] { run = [opts] { return run_check(*opts); }; });
}

}  // namespace tryon::apps
