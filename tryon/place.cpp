// The mesh and place stages (stages.hpp): the garment triangulated and placed, then the cloth
// model, the particles' roles and the body contact built from it.
#include <limits>

#include "core/logger.hpp"
#include "garments/garment_builder.hpp"
#include "garments/transfer.hpp"
#include "tryon/stages.hpp"

namespace tryon::stages {
namespace {

/// Particles that do not collide with the arms, as GarmentCode's simulation filters body parts
/// by panel [Korosteleva et al. 2024]: every particle of a garment placed wholly below the
/// armpits (an A-pose hand beside the hips otherwise catches a skirt's hem or side seam), and
/// otherwise those of the panels that are not sleeves (a shirt's torso panels: their side and
/// armhole seams run between the A-pose arm and the torso), while they are sewn: then those
/// clear of the arms collide with them (Contact::collide_with_part_where_clear). Sleeves keep
/// the arms. The panels of a lower garment (GarmentCode's "leg" label; unlabelled, panels
/// wholly below the armpits) go on ignoring the arms while the garment drapes, as in
/// GarmentCode: a skirt placed beside an A-pose body has the hands and forearms between its
/// front and back panels, and colliding with them its side seams closed outside the arms and it
/// hung from the wrists. Where panels are labelled "arm", "body" or "leg", a sleeve is a panel
/// labelled "arm". The checker judges against the whole body.
/// Upper torso: particles of the panels that are not sleeves, reach above the armpits and are
/// not mostly above the neck base like a hood: the seams among them are sewn first, as they
/// hold the garment on the shoulders.
ParticleRoles particle_roles(const garments::GarmentMesh& garment, const cloth::ClothModel& model,
                             const avatars::Landmarks& lm) {
  const std::size_t n = static_cast<std::size_t>(model.num_particles());
  ParticleRoles roles{std::vector<char>(n, 0), std::vector<char>(n, 0), std::vector<char>(n, 0), false};
  if (!lm.left.found || !lm.right.found || garment.V.rows() == 0 ||
      garment.panel_of_vertex.size() != static_cast<std::size_t>(garment.V.rows()))
    return roles;
  const double below_armpits_y = lm.armpit_y - 0.05;  // a garment or panel wholly below it is lower
  const bool below_armpits = garment.V.col(1).maxCoeff() <= below_armpits_y;
  roles.below_armpits = below_armpits;
  // A panel is a sleeve when most of its vertices lie beyond an armpit, seen from the front:
  // farther out sideways than the arm's axis at the armpit (torso panels lie between the arms).
  auto beyond_armpit = [&](const Vec3& p) {
    return p.x() > lm.left.axis_point.x() || p.x() < lm.right.axis_point.x();
  };
  const std::size_t panels = garment.panel_names.size();
  std::vector<int> beyond(panels, 0), total(panels, 0), above_neck(panels, 0);
  std::vector<double> top(panels, -std::numeric_limits<double>::infinity());
  for (Eigen::Index v = 0; v < garment.V.rows(); ++v) {
    const int p = garment.panel_of_vertex[v];
    ++total[p];
    beyond[p] += beyond_armpit(garment.V.row(v).transpose());
    above_neck[p] += garment.V(v, 1) > lm.neck_y;
    top[p] = std::max(top[p], garment.V(v, 1));
  }
  std::vector<char> sleeve(panels, 0), upper(panels, 0), lower(panels, 0);
  std::string kept;
  for (std::size_t p = 0; p < panels; ++p) {
    const std::string label = p < garment.panel_labels.size() ? garment.panel_labels[p] : std::string();
    const bool labelled = label == "arm" || label == "body" || label == "leg";
    sleeve[p] = labelled ? label == "arm" : !below_armpits && 2 * beyond[p] >= total[p];
    lower[p] = labelled ? label == "leg" : top[p] <= below_armpits_y;
    // A hood (most of it above the neck base) waits for the second stage. As GarmentCode places
    // the hoody spec, the hood's neck edges lie 12-13 cm above the neckline they are sewn to;
    // sewn first, they pulled the torso up (no gravity while sewing: its hem rose 16 cm on
    // mean_all in 40 frames, 8 cm with the hood second), its armholes rode up into the arms, and
    // the side seams' top pairs stayed apart (at 3 cm, 240 frames: 101 of 111 pairs closed,
    // 105 mm open, on mean_all; 108, 49 mm open, on makehuman_female; with the hood second, all
    // 111 by frame 77 on both).
    const bool head = 2 * above_neck[p] > total[p];
    upper[p] = !sleeve[p] && !head && top[p] > lm.armpit_y;
    if (sleeve[p]) kept += (kept.empty() ? "" : ", ") + garment.panel_names[p];
  }
  // A particle (merged seam vertices share one) ignores the arms when all its vertices do, and
  // is upper torso when all its vertices are.
  std::vector<char> in_sleeve(n, 0), not_upper(n, 0), not_lower(n, 0);
  for (Eigen::Index v = 0; v < garment.V.rows(); ++v) {
    const int p = garment.panel_of_vertex[v], i = model.particle_of_vertex[v];
    if (sleeve[p]) in_sleeve[i] = 1;
    if (!upper[p]) not_upper[i] = 1;
    if (!lower[p]) not_lower[i] = 1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    roles.ignores_arms[i] = !in_sleeve[i];
    roles.upper_torso[i] = !not_upper[i];
    roles.keeps_ignoring_arms[i] = !in_sleeve[i] && !not_lower[i];
  }
  logger().info("contact: the arms collide with {}", kept.empty() ? std::string("no panel") : "panels " + kept);
  return roles;
}

/// The cloth model: seams sewn (sewing springs as stiff as the fabric's stretch springs on
/// average, and cross springs switched on stitch by stitch once sewn, so that a sewn seam does
/// not fold one panel over the other), or merged when starting from the coarse drape, whose
/// shape the fine mesh takes by its 2D panel coordinates.
void build_model(Run& run, Cloth& c, const DrapeResult* coarse) {
  cloth::ModelOptions mopt;
  mopt.merge_seams = c.merged;
  if (!c.coarse_used) {
    c.model = cloth::build_cloth_model(c.garment, run.shared.material, mopt);
  } else {
    garments::GarmentMesh start = c.garment;
    start.V = garments::transfer_positions(coarse->garment, coarse->positions, c.garment);
    c.model = cloth::build_cloth_model(start, run.shared.material, mopt);
  }
  c.seam_particles.resize(c.merged ? 0 : c.garment.seam_pairs.rows(), 2);
  for (Eigen::Index i = 0; i < c.seam_particles.rows(); ++i)
    c.seam_particles.row(i) << c.model.particle_of_vertex[c.garment.seam_pairs(i, 0)],
        c.model.particle_of_vertex[c.garment.seam_pairs(i, 1)];
  c.roles = particle_roles(c.garment, c.model, run.shared.landmarks);
  c.first_sewing_spring = c.model.springs.size();
  if (c.seam_particles.rows() > 0) {
    const double k = c.model.springs.stiffness.head(c.model.springs.num_stretch).mean();
    cloth::add_sewing_springs(c.model, c.seam_particles, k);
    const int n = cloth::add_seam_cross_springs(c.model, c.garment);
    logger().debug("cloth: {} cross springs over the seams", n);
  }
}

/// GarmentCode's attachment constraints [Korosteleva et al. 2024], from the body's landmarks
/// instead of its measurements: a waist edge ("lower_interface") stays above the waist, a
/// strapless top's upper edge above the armpits, and the necklines ("left_collar",
/// "right_collar") within a centimetre of the neck base's sides. They keep a garment where it
/// was placed while its seams close (without them the sewing pulled a heavy skirt's waistband
/// down to the skirt, below the hips) and in the first frames of the drape.
/// They only keep: a particle placed on the wrong side of its landmark's plane is held no
/// further than where it was placed, never pulled to the landmark, which the garment may not
/// reach (a dress's waist seam hanging from its bodice below the body's narrowest trunk: lifted
/// towards it, the bodice buckles over the seam).
std::vector<cloth::Attachment> attachments(const cloth::ClothModel& model, const garments::GarmentMesh& garment,
                                           const avatars::Landmarks& lm) {
  std::vector<cloth::Attachment> out;
  auto add = [&](const char* label, const Vec3& point, const Vec3& normal) {
    for (int p : cloth::labelled_particles(model, garment, {label})) {
      const double placed = (Vec3(model.x.row(p).transpose()) - point).dot(normal);
      out.push_back({p, placed < 0 ? Vec3(point + placed * normal) : point, normal});
    }
  };
  const double cx = lm.chest_centre.x(), neck = std::max(0.0, lm.neck_half_width - 0.01);
  add("lower_interface", Vec3(cx, lm.waist_y, 0), Vec3::UnitY());
  add("strapless_top", Vec3(cx, lm.armpit_y, 0), Vec3::UnitY());
  add("left_collar", Vec3(cx + neck, 0, 0), -Vec3::UnitX());
  add("right_collar", Vec3(cx - neck, 0, 0), Vec3::UnitX());
  return out;
}

/// The drape's simulator settings; the phases before it derive theirs (weightless()).
cloth::SimulatorSettings drape_settings(const Run& run, const Cloth& c) {
  cloth::SimulatorSettings s;
  s.integrator = run.shared.integrator;
  s.implicit_substeps = run.o.substeps;
  s.attachments = attachments(c.model, c.garment, run.shared.landmarks);
  // Held for the drape's first 90 frames; not from a coarse drape: it rests on the body already.
  s.attachment_frames = s.attachments.empty() || c.coarse_used ? 0 : 90;
  s.seam_close_speed = 0.5;
  s.seam_sewn_distance = c.contact_settings.sew_distance;
  s.zero_gravity_frames = c.merged && !c.coarse_used ? 60 : 0;
  return s;
}

}  // namespace

/// The body contact: the arms filtered by the particles' roles, the body shrunk for sewing when
/// asked, cloth that starts inside or against the body pushed out.
void build_contact(Run& run, Cloth& c, const avatars::Avatar& body) {
  c.contact_settings.friction = run.shared.material.friction;
  c.contact_settings.self_collision = run.o.self_collision;
  c.contact = std::make_unique<cloth::Contact>(body.mesh, c.model, c.contact_settings, c.seam_particles);
  c.contact->ignore_body_part(avatars::arm_vertices(body.mesh, run.shared.landmarks), c.roles.ignores_arms);
  // Sewing happens around a slimmer body (limbs thin, torso a little smaller) that grows back
  // once the seams are closed, pushing the sewn garment out with it.
  c.inset = c.merged || c.seam_particles.rows() == 0 || run.o.body_inset_m <= 0
                ? 0.0
                : c.contact->shrink_body(run.o.body_inset_m);
  c.pushed = c.contact->push_out(c.model);
  if (c.pushed > 0) logger().info("{} cloth vertices started inside or against the body and were pushed out", c.pushed);
  // Started from a sewn drape: as after the sewing, the particles clear of the arms collide
  // with them.
  if (c.coarse_used) collide_with_arms_where_clear(c);
}

void collide_with_arms_where_clear(Cloth& c) {
  if (c.roles.below_armpits) return;
  const int clear = c.contact->collide_with_part_where_clear(c.model, c.roles.keeps_ignoring_arms);
  logger().info("contact: {} particles clear of the arms collide with them from now on", clear);
}

void move_out_of_arms(Cloth& c) {
  if (c.roles.below_armpits) return;
  const int moved = c.contact->move_out_of_part(c.model, c.roles.keeps_ignoring_arms);
  if (moved == 0) return;
  logger().info("contact: {} particles inside the arms moved out of them", moved);
  collide_with_arms_where_clear(c);
}

garments::GarmentMesh mesh_garment(const garments::Pattern& pattern, const avatars::Avatar& body,
                                   const DrapeOptions& o) {
  garments::BuildOptions bopt;
  bopt.resolution_m = o.resolution_cm / 100.0;
  bopt.body_height_m = body.height_m;
  garments::GarmentBuild build = garments::build_garment(pattern, bopt);
  for (const auto& w : build.warnings) logger().warn("{}", w);
  return std::move(build.mesh);
}

Cloth place(Run& run, garments::GarmentMesh garment, const avatars::Avatar& body, const DrapeResult* coarse) {
  Cloth c;
  c.garment = std::move(garment);
  c.coarse_used = coarse != nullptr;
  // Seams: "sew" keeps the panels apart and pulls the seam pairs together while the body
  // holds the cloth out (the start is then free of intersections); "merge" joins them at
  // once at their mean position, as GarmentCode does.
  c.merged = run.o.seams == "merge" || c.coarse_used;
  build_model(run, c, coarse);
  build_contact(run, c, body);
  c.settings = drape_settings(run, c);
  return c;
}

}  // namespace tryon::stages
