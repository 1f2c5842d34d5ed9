// Does cloth dropped on a simple body come to rest? The smallest reproduction of the drapes
// that do not settle (issue 4): a 40 cm square falls 3 cm onto a ball of radius 50 cm (it lies
// on the cap) and a 50 cm square onto a 30 cm cube (a tablecloth over sharp edges), each in the
// given materials, with the drape's contact stage and default settings, body contacts projected
// (as while sewing) and as penalty forces (as in the drape, 3e3 N/m). Prints one JSON object
// per case: frames run, whether it reached rest, the moving fraction at the end, the share of
// resting body contacts kept from one step to the next, and the wall time.
//   rest_on_body [max_frames] [material...]      (default 900 frames, cotton_jersey cotton_poplin)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloth/contact.hpp"
#include "cloth/material.hpp"
#include "cloth/simulator.hpp"
#include "cloth_fixtures.hpp"
#include "collision/test_meshes.hpp"

using namespace tryon;
using namespace tryon::cloth;

namespace {

struct Case {
  std::string body_name;
  TriMesh body;
  double size, top;  ///< cloth side (m) and its starting height (m)
};

}  // namespace

int main(int argc, char** argv) {
  const int max_frames = argc > 1 ? std::stoi(argv[1]) : 900;
  std::vector<std::string> materials;
  for (int i = 2; i < argc; ++i) materials.emplace_back(argv[i]);
  if (materials.empty()) materials = {"cotton_jersey", "cotton_poplin"};
  const std::vector<Case> cases = {{"ball_r50cm", tryon::test::uv_sphere(48, 64, 0.5, Vec3::Zero()), 0.4, 0.53},
                                   {"cube_30cm", tryon::test::cube(0.15), 0.5, 0.18}};
  for (const Case& c : cases)
    for (const std::string& name : materials)
      for (const double stiffness : {0.0, 3e3}) {
        garments::GarmentMesh g;
        const int n = static_cast<int>(std::lround(c.size / 0.025)) + 1;  // 2.5 cm edges
        cloth::test::add_grid_panel(g, "square", n, n, c.size, c.size, Vec3(-c.size / 2, c.top, -c.size / 2),
                                    Vec3::UnitX(), Vec3::UnitZ());
        ClothModel model = build_cloth_model(g, load_material(name));
        ContactSettings cs;
        cs.friction = model.material.friction;
        cs.body_stiffness = stiffness;
        Contact contact(c.body, model, cs);
        Simulator sim(std::move(model));
        sim.set_contact(&contact);
        const auto t0 = std::chrono::steady_clock::now();
        const RunResult r = sim.run(max_frames);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const ContactStats& st = contact.stats();
        const nlohmann::json out = {
            {"body", c.body_name},
            {"material", name},
            {"contact", stiffness > 0 ? "penalty" : "projection"},
            {"vertices", n * n},
            {"frames", r.frames},
            {"static", r.is_static},
            {"moving_fraction", r.moving_fraction},
            {"lowest_y_m", sim.model().x.col(1).minCoeff()},
            {"resting_contacts_kept", st.resting > 0 ? static_cast<double>(st.resting_kept) / st.resting : 0.0},
            {"failsafe_unsettled_steps", st.failsafe_unsettled},
            {"seconds", seconds}};
        std::printf("%s\n", out.dump().c_str());
        std::fflush(stdout);
      }
  return 0;
}
