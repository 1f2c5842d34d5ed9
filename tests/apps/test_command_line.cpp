// The command line's --version and --help.
#include <gtest/gtest.h>

#include <string>

#include "run_tryon.hpp"

namespace {
tryon::test::CommandResult run(const std::string& args) { return tryon::test::run_tryon(args); }
}  // namespace

TEST(CommandLine, VersionPrintsTheProjectVersion) {
  const tryon::test::CommandResult r = run("--version");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("tryon ") + TRYON_PROJECT_VERSION + "\n");
}

TEST(CommandLine, HelpShowsEveryCommandsDefaults) {
  const tryon::test::CommandResult drape = run("drape --help");
  ASSERT_EQ(drape.code, 0) << drape.err;
  for (const char* shown : {"--resolution-cm FLOAT:FLOAT in [0.2 - 50]=1", "--max-frames INT:INT in [1 - 100000]=1200",
                            "--substeps INT:INT in [1 - 64]=2", "--material TEXT=cotton_jersey",
                            "--coarse-start-cm FLOAT:FLOAT in [0 - 50]=3", "--seams TEXT:{sew,merge}=sew",
                            "--format TEXT:{obj,glb,both}=obj", "--up TEXT:{auto,y,z,Y,Z}=auto", "--facing TEXT:{auto,keep}=auto"})
    EXPECT_NE(drape.out.find(shown), std::string::npos) << shown << "\n" << drape.out;
  EXPECT_EQ(drape.out.find("(default 2"), std::string::npos) << drape.out;
  EXPECT_EQ(drape.out.find("{false}"), std::string::npos) << drape.out;
  const tryon::test::CommandResult inspect = run("inspect --help");
  EXPECT_NE(inspect.out.find("--resolution-cm FLOAT:FLOAT in [0.05 - 50]=1"), std::string::npos) << inspect.out;
  const tryon::test::CommandResult batch = run("batch --help");
  EXPECT_NE(batch.out.find("--jobs INT:INT in [1 - 256]=1"), std::string::npos) << batch.out;
  EXPECT_NE(batch.out.find("--kill-grace FLOAT:FLOAT in [0 - 1e+07]=30"), std::string::npos) << batch.out;
}
