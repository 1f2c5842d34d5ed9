#pragma once
// The whole drape as a library call: pattern and body in, draped garment, quality and fit maps
// out. `tryon drape`, `tryon batch` (through the CLI), the C++ facade and the Python module all
// go through drape() and save_drape().
#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "avatars/avatar.hpp"
#include "garments/garment_mesh.hpp"
#include "garments/pattern.hpp"
#include "outputs/fit_maps.hpp"
#include "quality/quality.hpp"

namespace tryon {

struct DrapeOptions {
  std::string material = "cotton_jersey";  ///< preset name (cloth/materials.json) or a JSON file
  std::string integrator = "implicit_euler";
  double resolution_cm = 1.0;              ///< target triangle edge length
  int max_frames = 1200;                   ///< frames of 1/60 s, sewing included (see settle())
  int substeps = 2;                        ///< implicit Euler steps per frame (explicit Euler: automatic)
  double time_limit_s = 0;                 ///< wall-clock limit (0: none)
  bool self_collision = true;
  bool contact = true;                     ///< false: the cloth alone (diagnostics)
  std::string seams = "sew";               ///< "sew" (pull shut around the body) or "merge" (join at once)
  double body_inset_m = 0.0;              ///< sew: the body starts this much slimmer and grows back
  /// Coarse start (sew only): a drape finer than coarse_start_cm / 1.5 is first sewn and draped
  /// at coarse_start_cm; when that drape is clean but for rest, its positions are carried over to
  /// the fine mesh by 2D panel coordinates (garments::transfer_positions), its seams merged, and
  /// the fine cloth drapes on from there. Otherwise the fine mesh is sewn itself. A drape
  /// cancelled or out of time during the coarse drape ends there: its result is the coarse
  /// cloth (`run.coarse_start.stopped_in_it`). 0: off.
  double coarse_start_cm = 3.0;
};

/// What the progress callback sees once a frame.
struct DrapeProgress {
  /// Frames so far, and the frame limit; both also count the frames of a sewing that was done
  /// again another way and not kept (the limit itself does not).
  int frame = 0;
  int max_frames = 0;
  double moving_fraction = 1;
  /// "sewing", "untangle" (undoing crossings the sewing left) or "drape"; "coarse sewing" and so
  /// on for the coarse start's drape
  std::string phase;
  double elapsed_s = 0;
};
using DrapeProgressCallback = std::function<void(const DrapeProgress&)>;

struct DrapeResult {
  std::string name;               ///< the pattern's name (titles)
  garments::GarmentMesh garment;  ///< the triangulated pattern (F, rest = 2D panel coordinates, seams)
  Points3 positions;              ///< |V|×3 draped positions (metres, the body's frame)
  quality::Quality quality;       ///< judged by the checker, which knows nothing of the simulator
  outputs::FitMaps fit_maps;
  bool clean = false;
  nlohmann::json report;          ///< docs/report.md (pattern and avatar keys from their names)
};

/// Sews and drapes `pattern` on `body`. Throws InputError for bad options (unknown material or
/// integrator...) before any work; a run that fails numerically returns a report saying so.
/// `cancel` (optional) stops the run at the next frame; the result then reports "cancelled".
DrapeResult drape(const garments::Pattern& pattern, const avatars::Avatar& body, const DrapeOptions& options = {},
                  const DrapeProgressCallback& progress = {}, const std::atomic<bool>* cancel = nullptr);

struct SaveOptions {
  std::string format = "obj";     ///< "obj" (garment.obj), "glb" (garment.glb) or "both"
  bool preview = false;           ///< also preview.png
  std::string fit_map = "strain"; ///< colouring of the preview and the GLB: strain, distance, none
  bool with_body = false;         ///< glb: the body as a second mesh
};

/// Writes OUTDIR/garment.obj|glb, optionally preview.png, and report.json (last), each under a
/// temporary name renamed when complete. Returns the report as written (with its write timing).
nlohmann::json save_drape(const DrapeResult& result, const avatars::Avatar& body, const std::filesystem::path& outdir,
                          const SaveOptions& options = {});

/// Writes a garment as `tryon check` reads it: positions V (|V|×3, placed or draped), uv = the
/// 2D panel coordinates (metres), one group per panel, `l` elements = seam pairs.
void write_garment_obj(const std::filesystem::path& path, const garments::GarmentMesh& garment, const Points3& V,
                       const std::string& title);

/// The report's "quality" object, the keys of docs/report.md; figures that could not be measured are null.
nlohmann::json quality_json(const quality::Quality& q);

/// How the body file stood and was turned: {"up": "+y", "up_detected": bool, "up_how": "...",
/// "facing": "+z", "facing_detected": bool, "facing_how": "..."} (axes of the file).
nlohmann::json body_frame_json(const avatars::Avatar& body);

}  // namespace tryon
