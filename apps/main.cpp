// tryon: drape sewing patterns on bodies from the command line.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>
#include <exception>
#include <string>

#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/logger.hpp"
#include "tryon/tryon.hpp"

namespace {

// How long an OpenMP thread spins for more work before it sleeps. Long spinning (libgomp's
// default 300,000 spins, or OMP_WAIT_POLICY=ACTIVE) steals the cores from the threads doing
// the work as soon as anything else runs on the machine (a coarse drape on 2 cores busy with
// 2 other processes: 4.5 s passive, 9–17 s active). Never spinning (PASSIVE) puts the waiting
// thread to sleep at the end of every parallel region, and the conjugate gradients end about
// 80 of them a step. 10,000 spins bridge those short gaps: the target drape on 2 idle cores
// took 9 % less than passive, the coarse drape as long as passive with 2 other processes and
// 12 % longer with 4 (2–3 runs each). libgomp reads these variables once, when it
// loads, so the program starts itself again with GOMP_SPINCOUNT=10000 unless the user set
// either of them.
void restart_with_spin_count(char** argv) {
  if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT") &&
      ::setenv("GOMP_SPINCOUNT", "10000", 1) == 0)
    ::execv("/proc/self/exe", argv);  // returns only on failure: then go on as we are
}

// The first word that is not an option must be a command: names an unknown one on stderr
// (rather than CLI11's "a subcommand is required") and returns false.
bool command_is_known(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found |= sub->get_name() == word;
    }
    if (!found)
      std::fprintf(stderr, "tryon: unknown command '%s' (commands: %s; see tryon --help)\n", word.c_str(), known.c_str());
    return found;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tryon;
  restart_with_spin_count(argv);
  CLI::App app{"tryon: virtual try-on of sewing patterns on body meshes"};
  app.require_subcommand(1);
  app.fallthrough();  // --verbose / --quiet also after the subcommand
  app.set_help_flag("-h,--help", "print this help and exit");  // the subcommands copy it
  app.set_version_flag("--version", "tryon " + version(), "print the version and exit");
  // Every option's default in --help ("[600]"); set before the subcommands, which copy it.
  app.option_defaults()->always_capture_default();
  bool verbose = false, quiet = false;
  app.add_flag("-v,--verbose", verbose, "log every step");
  app.add_flag("-q,--quiet", quiet, "log errors only");
  std::function<int()> run;
  apps::add_inspect_command(app, run);
  apps::add_drape_command(app, run);
  apps::add_animate_command(app, run);
  apps::add_check_command(app, run);
  apps::add_batch_command(app, run);
  apps::add_view_command(app, run);
  if (!command_is_known(app, argc, argv)) return apps::kExitBadInput;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : apps::kExitBadInput;
  }
  logger().set_level(quiet ? spdlog::level::err : verbose ? spdlog::level::debug : spdlog::level::info);
  try {
    return run ? run() : apps::kExitBadInput;
  } catch (const InputError& e) {
    logger().error("{}", e.what());
    return apps::kExitBadInput;
  } catch (const std::bad_alloc&) {
    logger().error("out of memory; try a coarser --resolution-cm");
    return apps::kExitBadInput;
  } catch (const std::exception& e) {
    logger().error("internal error: {}", e.what());
    return apps::kExitInternal;
  }
}
