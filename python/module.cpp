// tryon._tryon: the pybind11 binding of the C++ facade (tryon/tryon.hpp), with the pattern
// loader of `tryon drape` (GarmentCode JSON or DXF, garments/pattern_loader.hpp) and bodies made
// from arrays (avatars::make_avatar). tryon/__init__.py re-exports it with Python conveniences
// (paths accepted where objects are expected); tryon/_tryon.pyi is its type stub, to be kept in
// step with the signatures here.
//
// Threads: drape() and check() release the GIL while they work. Ctrl-C: the progress callback
// (once a frame) takes the GIL back, runs PyErr_CheckSignals(), and on a pending
// KeyboardInterrupt sets the drape's cancel flag; the drape stops at the next frame and the
// KeyboardInterrupt is raised when it has returned. An exception from the user's progress
// function cancels the same way and is re-raised.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/logger.hpp"
#include "garments/pattern_loader.hpp"
#include "garments/validate.hpp"
#include "tryon/tryon.hpp"

namespace py = pybind11;

namespace {

using tryon::Avatar;

/// A JSON value as Python objects (dict, list, str, int, float, bool, None).
py::object to_python(const nlohmann::json& j) {
  // Not cached in a static: it would be released after the interpreter has finalised.
  return py::module_::import("json").attr("loads")(j.dump());
}

/// A copy of an Eigen row-major-or-not matrix as a C-contiguous numpy array (rows × cols).
template <typename Matrix>
py::array_t<typename Matrix::Scalar> to_numpy(const Matrix& m) {
  using T = typename Matrix::Scalar;
  py::array_t<T> a({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  auto w = a.template mutable_unchecked<2>();
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) w(r, c) = m(r, c);
  return a;
}

py::array_t<double> to_numpy(const Eigen::VectorXd& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  auto w = a.mutable_unchecked<1>();
  for (Eigen::Index i = 0; i < v.size(); ++i) w(i) = v(i);
  return a;
}

std::string format_double(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string join(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

// ---- patterns ---------------------------------------------------------------------------

/// A pattern as `tryon drape` loads it: GarmentCode JSON or DXF (cut, sewn and arranged around
/// a body), checked sewable, with what loading found out.
struct PyPattern {
  tryon::Pattern pattern;
  std::string format;                  ///< "garmentcode", "garment-pattern-generator-2021" or "dxf"
  std::vector<std::string> notes;      ///< DXF: reader, matcher and arrangement notes
  std::vector<std::string> warnings;   ///< validate_pattern's warnings (it can be sewn, but...)
  std::string seams_file;              ///< DXF: the seam file read, if any
  std::string arranged_for;            ///< DXF: the body's name, or "" (arranged for a 1.72 m body)
};

std::shared_ptr<PyPattern> load_pattern(const std::filesystem::path& path, const std::string& size,
                                        const std::filesystem::path& seam_file, const Avatar* avatar) {
  // Checked before reading so that a JSON pattern with DXF options is refused whatever it holds.
  const bool dxf = tryon::garments::is_dxf_file(path);
  std::error_code ec;
  if (!dxf && (!size.empty() || !seam_file.empty()) && std::filesystem::is_regular_file(path, ec))
    throw tryon::InputError("pattern '" + path.string() + "' is not a DXF file: size= and seam_file= apply to DXF "
                            "patterns only");
  tryon::garments::PatternOptions o;
  o.size = size;
  o.seams = seam_file;
  if (avatar) {
    o.body = &avatar->mesh;
    o.body_height_m = avatar->height_m;
  }
  tryon::garments::LoadedPattern loaded = tryon::garments::load_pattern(path, o);
  for (const std::string& note : loaded.notes) tryon::logger().info("{}", note);
  const tryon::garments::Diagnostics diag = tryon::garments::validate_pattern(loaded.pattern);
  if (!diag.ok()) {  // as `tryon drape` refuses it
    std::string msg = "pattern '" + path.string() + "' cannot be sewn:";
    for (const std::string& e : diag.errors) msg += "\n  - " + e;
    throw tryon::InputError(msg);
  }
  auto out = std::make_shared<PyPattern>();
  out->pattern = std::move(loaded.pattern);
  out->format = loaded.format;
  out->notes = std::move(loaded.notes);
  out->warnings = diag.warnings;
  out->seams_file = loaded.seams_file;
  if (dxf && avatar) out->arranged_for = avatar->name;
  return out;
}

std::string pattern_repr(const PyPattern& p) {
  std::string where = p.format;
  if (p.format == "dxf")
    where += p.arranged_for.empty() ? ", arranged for a 1.72 m body" : ", arranged on '" + p.arranged_for + "'";
  return "<tryon.Pattern '" + p.pattern.name + "' (" + where + "): " + std::to_string(p.pattern.panels.size()) +
         " panels, " + std::to_string(p.pattern.stitches.size()) + " stitches>";
}

// ---- bodies -----------------------------------------------------------------------------

tryon::AvatarOptions avatar_options(const std::string& up, const std::string& facing,
                                    std::optional<double> metres_per_unit) {
  if (up != "auto" && up != "y" && up != "z") throw tryon::InputError("up must be 'auto', 'y' or 'z', not '" + up + "'");
  if (facing != "auto" && facing != "keep") throw tryon::InputError("facing must be 'auto' or 'keep', not '" + facing + "'");
  tryon::AvatarOptions o;
  o.up = up == "z" ? tryon::avatars::UpAxis::z : up == "y" ? tryon::avatars::UpAxis::y : tryon::avatars::UpAxis::automatic;
  o.detect_facing = facing == "auto";
  o.metres_per_unit = metres_per_unit;
  return o;
}

/// `what` as a C-contiguous N×3 numpy array of T; numpy's dtype kinds in `kinds` are accepted
/// ("f" float, "i" signed, "u" unsigned integer; `numbers` names them), anything else is a TypeError.
template <typename T>
py::array_t<T, py::array::c_style | py::array::forcecast> n_by_3(const py::handle& obj, const char* what,
                                                                 const char* kinds, const char* numbers) {
  py::array a = py::array::ensure(obj);
  const char kind = a ? a.dtype().kind() : 'O';
  if (std::string(kinds).find(kind) == std::string::npos)
    throw py::type_error(std::string(what) + " must be an array of " + numbers + ", not " +
                         (a ? "one of dtype '" + std::string(py::str(a.dtype())) + "'"
                            : std::string(py::str(py::type::handle_of(obj).attr("__name__")))));
  if (a.ndim() != 2 || a.shape(1) != 3) {
    std::string shape;
    for (py::ssize_t d = 0; d < a.ndim(); ++d) shape += (d ? ", " : "") + std::to_string(a.shape(d));
    throw tryon::InputError(std::string(what) + " must have shape (N, 3), not (" + shape + ")");
  }
  return py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(a);
}

std::shared_ptr<Avatar> avatar_from_arrays(const py::object& vertices, const py::object& faces,
                                           const std::string& name, const std::string& up, const std::string& facing,
                                           std::optional<double> metres_per_unit) {
  const tryon::AvatarOptions options = avatar_options(up, facing, metres_per_unit);
  const auto v = n_by_3<double>(vertices, "vertices", "fiu", "numbers");
  const auto f = n_by_3<long long>(faces, "faces", "iu", "integers");
  const std::string what = "body '" + name + "'";
  if (v.shape(0) == 0) throw tryon::InputError(what + " has no vertices");
  if (f.shape(0) == 0) throw tryon::InputError(what + " has no faces");
  tryon::TriMesh mesh;
  mesh.V.resize(v.shape(0), 3);
  mesh.F.resize(f.shape(0), 3);
  auto vr = v.unchecked<2>();
  for (py::ssize_t r = 0; r < v.shape(0); ++r)
    for (py::ssize_t c = 0; c < 3; ++c) mesh.V(r, c) = vr(r, c);
  auto fr = f.unchecked<2>();
  for (py::ssize_t r = 0; r < f.shape(0); ++r)
    for (py::ssize_t c = 0; c < 3; ++c) {
      const long long index = fr(r, c);
      if (index < 0 || index >= v.shape(0))  // before narrowing to int
        throw tryon::InputError(what + ": face " + std::to_string(r) + " uses vertex " + std::to_string(index) +
                                " of " + std::to_string(v.shape(0)));
      mesh.F(r, c) = static_cast<int>(index);
    }
  py::gil_scoped_release nogil;
  tryon::check_mesh(mesh, what);  // finite positions
  return std::make_shared<Avatar>(tryon::avatars::make_avatar(std::move(mesh), name, name, options));
}

std::string avatar_repr(const Avatar& a) {
  return "<tryon.Avatar '" + a.name + "': " + std::to_string(a.mesh.V.rows()) + " vertices, " +
         std::to_string(a.mesh.F.rows()) + " triangles, " + format_double("%.3f m", a.height_m) + " tall>";
}

// ---- drapes -----------------------------------------------------------------------------

/// A drape's result with the body it was draped on (save() needs it for the distance map).
struct PyResult {
  tryon::DrapeResult result;
  std::shared_ptr<Avatar> avatar;
};

std::string result_repr(const PyResult& r) {
  const nlohmann::json& rep = r.result.report;
  std::string verdict = "clean";
  if (!r.result.clean) {
    std::vector<std::string> failures;
    for (const auto& f : rep.value("failures", nlohmann::json::array()))
      if (f.is_string()) failures.push_back(f.get<std::string>());
    verdict = "NOT clean" + (failures.empty() ? std::string() : " (" + join(failures, ", ") + ")");
  }
  int frames = 0;
  double seconds = 0;
  if (rep.contains("simulation") && rep["simulation"].contains("frames"))
    frames = rep["simulation"]["frames"].get<int>();
  if (rep.contains("timings_s")) seconds = rep["timings_s"].value("total", 0.0);
  return "<tryon.DrapeResult '" + r.result.name + "' on '" + (r.avatar ? r.avatar->name : std::string("?")) + "': " +
         verdict + ", " + std::to_string(r.result.positions.rows()) + " vertices, " + std::to_string(frames) +
         " frames, " + format_double("%.1f s", seconds) + ">";
}

/// Where the Python error raised during a drape waits until the drape has returned.
struct PendingError {
  std::optional<py::error_already_set> error;
};

std::shared_ptr<PyResult> drape(const PyPattern& pattern, std::shared_ptr<Avatar> avatar, double resolution_cm,
                                const std::string& material, const std::string& integrator, int threads,
                                int max_frames, double time_limit_s, bool self_collision,
                                const std::string& seams, double coarse_start_cm,
                                const std::optional<py::function>& progress) {
  if (!avatar) throw py::type_error("avatar must be an Avatar, not None");
  tryon::DrapeOptions o;
  o.resolution_cm = resolution_cm;
  o.material = material;
  o.integrator = integrator;
  o.max_frames = max_frames;
  o.time_limit_s = time_limit_s;
  o.self_collision = self_collision;
  o.seams = seams;
  o.coarse_start_cm = coarse_start_cm;
  tryon::set_threads(threads);

  std::atomic<bool> cancel{false};
  PendingError pending;
  auto on_frame = [&](const tryon::DrapeProgress& p) {
    if (cancel.load()) return;
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (progress) {
        py::dict d;
        d["frame"] = p.frame;
        d["max_frames"] = p.max_frames;
        d["moving_fraction"] = p.moving_fraction;
        d["phase"] = p.phase;
        d["elapsed_s"] = p.elapsed_s;
        const py::object answer = (*progress)(d);
        if (!answer.is_none() && !answer.cast<bool>()) cancel = true;  // False: stop here
      }
    } catch (py::error_already_set& e) {
      pending.error = std::move(e);
      cancel = true;
    }
  };
  auto out = std::make_shared<PyResult>();
  out->avatar = avatar;
  {
    py::gil_scoped_release nogil;
    out->result = tryon::drape(pattern.pattern, *avatar, o, on_frame, &cancel);
  }
  if (pending.error) {
    pending.error->restore();
    throw py::error_already_set();
  }
  return out;
}

// ---- motion -------------------------------------------------------------------------------

/// A garment following a motion, with the motion (save() writes the body's frames).
struct PyAnimation {
  tryon::AnimateResult result;
  std::shared_ptr<tryon::BodyMotion> motion;
};

std::shared_ptr<tryon::BodyMotion> load_motion(const std::filesystem::path& path, double fps, int first, int last,
                                               int blend_in, int animation, const std::string& up,
                                               const std::string& facing) {
  tryon::MotionOptions o;
  o.fps = fps;
  o.first = first;
  o.last = last;
  o.blend_in = blend_in;
  o.animation = animation;
  o.avatar = avatar_options(up, facing, std::nullopt);
  py::gil_scoped_release nogil;
  return std::make_shared<tryon::BodyMotion>(tryon::load_motion(path, o));
}

std::shared_ptr<PyAnimation> animate(const PyPattern& pattern, std::shared_ptr<tryon::BodyMotion> motion,
                                     double resolution_cm, const std::string& material, int threads,
                                     double time_limit_s, double max_step_travel_mm) {
  if (!motion) throw py::type_error("motion must be a Motion, not None");
  tryon::AnimateOptions o;
  o.drape.resolution_cm = resolution_cm;
  o.drape.material = material;
  o.drape.time_limit_s = time_limit_s;
  o.max_step_travel_m = max_step_travel_mm / 1000;
  tryon::set_threads(threads);
  std::atomic<bool> cancel{false};
  auto out = std::make_shared<PyAnimation>();
  out->motion = motion;
  {
    py::gil_scoped_release nogil;
    out->result = tryon::animate(pattern.pattern, *motion, o,
                                 [&](const tryon::DrapeProgress&) {
                                   py::gil_scoped_acquire gil;
                                   if (PyErr_CheckSignals() != 0) {
                                     PyErr_Clear();
                                     cancel = true;
                                   }
                                 },
                                 &cancel);
  }
  return out;
}

void bind_motion(py::module_& m) {
  py::class_<tryon::BodyMotion, std::shared_ptr<tryon::BodyMotion>>(m, "Motion", "A body's motion, one mesh a frame.")
      .def_property_readonly("fps", [](const tryon::BodyMotion& b) { return b.fps; })
      .def_property_readonly("frames", [](const tryon::BodyMotion& b) { return b.frames.size(); }, "number of frames")
      .def_property_readonly("duration_s", &tryon::BodyMotion::duration_s)
      .def("vertices", [](const tryon::BodyMotion& b, std::size_t k) {
            if (k >= b.frames.size()) throw py::index_error("no frame " + std::to_string(k));
            return to_numpy(b.frames[k]);
          }, py::arg("frame"), "(V, 3) float64 body vertices at a frame (metres, the design's frame)")
      .def_property_readonly("triangles", [](const tryon::BodyMotion& b) { return to_numpy(b.body.mesh.F); });
  py::class_<PyAnimation, std::shared_ptr<PyAnimation>>(m, "Animation", "A garment following a motion.")
      .def_property_readonly("frames", [](const PyAnimation& a) { return a.result.frames.size(); }, "frames written")
      .def("positions", [](const PyAnimation& a, std::size_t k) {
            if (k >= a.result.frames.size()) throw py::index_error("no frame " + std::to_string(k));
            return to_numpy(a.result.frames[k]);
          }, py::arg("frame"), "(V, 3) float64 garment positions at a frame")
      .def_property_readonly("triangles", [](const PyAnimation& a) { return to_numpy(a.result.drape.garment.F); })
      .def_property_readonly("report", [](const PyAnimation& a) { return to_python(a.result.report); },
                             "report.json's content (per-frame quality, worst frame, the drape's report)")
      .def_property_readonly("clean", [](const PyAnimation& a) { return a.result.clean; })
      .def("save", [](const PyAnimation& a, const std::filesystem::path& outdir, bool with_body, int preview_every) {
            tryon::SaveOptions s;
            s.with_body = with_body;
            nlohmann::json written;
            {
              py::gil_scoped_release nogil;
              written = tryon::save_animation(a.result, *a.motion, outdir, s, preview_every);
            }
            return to_python(written);
          },
          py::arg("outdir"), py::kw_only(), py::arg("with_body") = false, py::arg("preview_every") = 0,
          "Writes OUTDIR/garment.glb (the garment's motion; the body's with with_body), a preview\n"
          "every preview_every frames (0: none) and report.json last; returns the report as written.");
  m.def("load_motion", &load_motion, py::arg("path"), py::kw_only(), py::arg("fps") = 30.0, py::arg("first") = 0,
        py::arg("last") = -1, py::arg("blend_in") = 0, py::arg("animation") = 0, py::arg("up") = "auto",
        py::arg("facing") = "auto",
        "Reads a body's motion: a rigged body with an animation (glTF/GLB, COLLADA, FBX), a glTF/GLB\n"
        "body moved by animated morph targets, a folder of meshes of one topology (one a frame, in name\n"
        "order) or a text file listing them. animation: which of the file's animations (from 0).");
  m.def("animate", &animate, py::arg("pattern"), py::arg("motion"), py::kw_only(), py::arg("resolution_cm") = 1.0,
        py::arg("material") = "cotton_jersey", py::arg("threads") = 0, py::arg("time_limit_s") = 0.0,
        py::arg("max_step_travel_mm") = 1.0,
        "Drapes a Pattern on the motion's first frame, then follows the motion (the GIL is released;\n"
        "Ctrl-C stops it at the next frame with the frames followed so far).");
}

// ---- log levels -------------------------------------------------------------------------

/// spdlog's level for a name (tryon's or Python logging's, any case) or a Python logging number
/// (a message shows when its level is at least the number, as logging.Logger.setLevel does).
spdlog::level::level_enum parse_log_level(const py::handle& level) {
  using L = spdlog::level::level_enum;
  if (py::isinstance<py::bool_>(level)) throw py::type_error("log level must be a name or a logging level number");
  if (py::isinstance<py::int_>(level)) {
    const long long n = level.cast<long long>();
    if (n <= 5) return L::trace;  // logging.NOTSET (0): everything
    if (n <= 10) return L::debug;
    if (n <= 20) return L::info;
    if (n <= 30) return L::warn;
    if (n <= 40) return L::err;
    if (n <= 50) return L::critical;
    return L::off;
  }
  if (!py::isinstance<py::str>(level))
    throw py::type_error("log level must be a name or a logging level number, not " +
                         std::string(py::str(py::type::handle_of(level).attr("__name__"))));
  std::string name = level.cast<std::string>();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::vector<std::pair<std::string, L>> names = {
      {"trace", L::trace}, {"debug", L::debug},    {"info", L::info},         {"warning", L::warn},
      {"warn", L::warn},   {"error", L::err},      {"critical", L::critical}, {"fatal", L::critical},
      {"off", L::off},     {"notset", L::trace}};
  for (const auto& [word, value] : names)
    if (name == word) return value;
  throw tryon::InputError("log level must be trace, debug, info, warning, error, critical or off (or a logging "
                          "level number), not '" + level.cast<std::string>() + "'");
}

const char* log_level_name(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace: return "trace";
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warning";
    case spdlog::level::err: return "error";
    case spdlog::level::critical: return "critical";
    default: return "off";
  }
}

}  // namespace

PYBIND11_MODULE(_tryon, m) {
  m.doc() = "tryon: drape sewing patterns on body meshes (binding of tryon/tryon.hpp; use the `tryon` package)";
  m.attr("__version__") = tryon::version();
  py::register_exception<tryon::InputError>(m, "InputError", PyExc_ValueError).attr("__doc__") =
      "Bad input, named with the file and the problem: an unreadable or malformed file, a pattern that\n"
      "cannot be sewn, a body that is not a person's, an unknown option value. A ValueError.";

  py::class_<PyPattern, std::shared_ptr<PyPattern>>(
      m, "Pattern",
      "A sewing pattern (2D panels, their 3D placement and stitches), from tryon.load_pattern().\n\n"
      "Metres, in each panel's own 2D frame. A DXF pattern is cut, sewn by its seam file or the\n"
      "matcher's proposal, and arranged around the body it was loaded for.")
      .def_property_readonly("name", [](const PyPattern& p) { return p.pattern.name; }, "the file name's stem")
      .def_property_readonly("format", [](const PyPattern& p) { return p.format; },
                             "'garmentcode', 'garment-pattern-generator-2021' or 'dxf'")
      .def_property_readonly("num_panels", [](const PyPattern& p) { return p.pattern.panels.size(); },
                             "number of panels")
      .def_property_readonly("num_stitches", [](const PyPattern& p) { return p.pattern.stitches.size(); },
                             "number of stitches")
      .def_property_readonly("panel_names", [](const PyPattern& p) {
            std::vector<std::string> names;
            for (const auto& panel : p.pattern.panels) names.push_back(panel.name);
            return names;
          }, "the panels' names, in the file's order")
      .def_property_readonly("notes", [](const PyPattern& p) { return p.notes; },
                             "DXF: what the reader, the seam matcher and the arrangement noted (also logged at info)")
      .def_property_readonly("warnings", [](const PyPattern& p) { return p.warnings; },
                             "what looks unintended though it can be sewn (e.g. stitched edges of different length)")
      .def_property_readonly("seams_file", [](const PyPattern& p) { return p.seams_file; },
                             "DXF: the seam file read, or '' (seams proposed by the matcher)")
      .def_property_readonly("arranged_for", [](const PyPattern& p) { return p.arranged_for; },
                             "DXF: the name of the body it was arranged around, or '' (a 1.72 m body)")
      .def("__repr__", &pattern_repr);

  py::class_<Avatar, std::shared_ptr<Avatar>>(
      m, "Avatar",
      "A body in the design's frame: metres, Y up, facing +Z, feet at y = 0.\n\n"
      "From tryon.load_avatar(path) or Avatar.from_arrays(vertices, faces); both detect the unit\n"
      "from the height (a person is 1.0-2.2 m tall) and refuse meshes that are not a closed body.")
      .def_static("from_arrays", &avatar_from_arrays, py::arg("vertices"), py::arg("faces"), py::kw_only(),
                  py::arg("name") = "body", py::arg("up") = "auto", py::arg("facing") = "auto",
                  py::arg("metres_per_unit") = py::none(),
                  "A body from a (V, 3) array of positions and an (F, 3) integer array of triangles\n"
                  "(counter-clockwise seen from outside), normalised as load_avatar() does: up axis and\n"
                  "facing found from its shape (up='y' or 'z' gives the axis, facing='keep' keeps it as\n"
                  "it is), unit detected from the height unless metres_per_unit is given, feet moved to\n"
                  "y = 0. Raises InputError for a mesh that is not a person's closed body.")
      .def_readonly("name", &Avatar::name, "the file's stem, or from_arrays' name")
      .def_readonly("height_m", &Avatar::height_m, "height in metres")
      .def_readonly("unit", &Avatar::unit, "the mesh's unit: 'm', 'dm', 'cm', 'mm' or 'given'")
      .def_readonly("metres_per_unit", &Avatar::metres_per_unit, "the scale applied to the mesh")
      .def_property_readonly("vertices", [](const Avatar& a) { return to_numpy(a.mesh.V); },
                             "(V, 3) float64 positions, metres (a copy)")
      .def_property_readonly("triangles", [](const Avatar& a) { return to_numpy(a.mesh.F); },
                             "(F, 3) int32 vertex indices (a copy)")
      .def_readonly("warnings", &Avatar::warnings, "e.g. an open or non-manifold mesh (also logged)")
      .def_property_readonly("frame", [](const Avatar& a) { return to_python(tryon::body_frame_json(a)); },
                             "how the file stood and was turned: up, facing (the file's axes, e.g. '+x'),\n"
                             "up_detected, facing_detected, up_how, facing_how")
      .def("__repr__", &avatar_repr);

  py::class_<PyResult, std::shared_ptr<PyResult>>(m, "DrapeResult",
                                                  "A draped garment: its mesh, report.json's content and fit maps.")
      .def_property_readonly("name", [](const PyResult& r) { return r.result.name; }, "the pattern's name")
      .def_property_readonly("avatar", [](const PyResult& r) { return r.avatar; }, "the Avatar it was draped on")
      .def_property_readonly("positions", [](const PyResult& r) { return to_numpy(r.result.positions); },
                             "(V, 3) float64 draped positions (metres, the body's frame)")
      .def_property_readonly("triangles", [](const PyResult& r) { return to_numpy(r.result.garment.F); },
                             "(F, 3) int32 vertex indices")
      .def_property_readonly("rest", [](const PyResult& r) { return to_numpy(r.result.garment.rest); },
                             "(V, 2) float64 flat panel coordinates (metres)")
      .def_property_readonly("seam_pairs", [](const PyResult& r) { return to_numpy(r.result.garment.seam_pairs); },
                             "(S, 2) int32 vertex pairs sewn together")
      .def_property_readonly("report", [](const PyResult& r) { return to_python(r.result.report); },
                             "report.json's content as a dict (status, failures, mesh, simulation, quality...)")
      .def_property_readonly("clean", [](const PyResult& r) { return r.result.clean; },
                             "True when the report's status is 'ok' (no failure)")
      .def_property_readonly("fit_maps", [](const PyResult& r) {
            py::dict d;
            d["strain"] = to_numpy(r.result.fit_maps.strain);
            d["distance_m"] = to_numpy(r.result.fit_maps.distance_m);
            return d;
          }, "{'strain': (V,), 'distance_m': (V,)} per-vertex float64 arrays")
      .def("save", [](const PyResult& r, const std::filesystem::path& outdir, const std::string& format, bool preview,
                      const std::string& fit_map, bool with_body) {
            tryon::SaveOptions s;
            s.format = format;
            s.preview = preview;
            s.fit_map = fit_map;
            s.with_body = with_body;
            nlohmann::json written;
            {
              py::gil_scoped_release nogil;
              written = tryon::save_drape(r.result, *r.avatar, outdir, s);
            }
            return to_python(written);
          },
          py::arg("outdir"), py::kw_only(), py::arg("format") = "obj", py::arg("preview") = false,
          py::arg("fit_map") = "strain", py::arg("with_body") = false,
          "Writes OUTDIR/garment.obj (format='glb': garment.glb, 'both': the two; with_body: the body in the GLB),\n"
          "preview.png when preview is true (coloured by fit_map: 'strain', 'distance' or 'none') and\n"
          "report.json last; returns the report as written.")
      .def("__repr__", &result_repr);

  m.def("load_pattern", [](const std::filesystem::path& path, const std::string& size,
                           const std::filesystem::path& seam_file, const Avatar* avatar) {
        py::gil_scoped_release nogil;
        return load_pattern(path, size, seam_file, avatar);
      },
      py::arg("path"), py::kw_only(), py::arg("size") = "", py::arg("seam_file") = std::filesystem::path(),
      py::arg("avatar") = py::none(),
      "Reads a GarmentCode specification.json (or a 2021 template) or a DXF-AAMA / ASTM D6673 file\n"
      "(chosen by content, else by the .dxf extension) as `tryon drape` does, and checks it can be\n"
      "sewn. DXF only: size (default the sample size), seam_file (default NAME.seams.json beside\n"
      "the file, else the matcher's seams) and avatar, the body to arrange the pieces around.");
  m.def("load_avatar", [](const std::filesystem::path& path, const std::string& up, const std::string& facing,
                          std::optional<double> metres_per_unit) {
        const tryon::AvatarOptions o = avatar_options(up, facing, metres_per_unit);
        py::gil_scoped_release nogil;
        return std::make_shared<Avatar>(tryon::load_avatar(path, o));
      },
      py::arg("path"), py::arg("up") = "auto", py::kw_only(), py::arg("facing") = "auto",
      py::arg("metres_per_unit") = py::none(),
      "Reads a body mesh (OBJ, PLY, STL, glTF/GLB, FBX, COLLADA) into metres, Y up, facing +Z, feet at y = 0.");
  m.def("drape", &drape, py::arg("pattern"), py::arg("avatar"), py::kw_only(), py::arg("resolution_cm") = 1.0,
        py::arg("material") = "cotton_jersey", py::arg("integrator") = "implicit_euler",
        py::arg("threads") = 0, py::arg("max_frames") = 1200, py::arg("time_limit_s") = 0.0,
        py::arg("self_collision") = true, py::arg("seams") = "sew",
        py::arg("coarse_start_cm") = tryon::DrapeOptions{}.coarse_start_cm, py::arg("progress") = py::none(),
        "Sews and drapes a Pattern on an Avatar (the GIL is released while it runs).");
  m.def("check", [](const std::filesystem::path& cloth, const Avatar& avatar, const std::filesystem::path& rest,
                    const std::filesystem::path& previous) {
        tryon::CheckResult r;
        {
          py::gil_scoped_release nogil;
          r = tryon::check(cloth, avatar, tryon::CheckFiles{rest, previous});
        }
        return to_python(r.report);
      },
      py::arg("cloth"), py::arg("avatar"), py::kw_only(), py::arg("rest") = std::filesystem::path(),
      py::arg("previous") = std::filesystem::path(), "Quality of a cloth OBJ on a body, as `tryon check` prints it.");
  bind_motion(m);
  m.def("set_threads", &tryon::set_threads, py::arg("threads"), "Threads for later drapes and checks (0: all cores).");
  m.def("materials", &tryon::material_names, "Names of the bundled material presets.");
  m.def("materials_file", &tryon::materials_file, "The material presets file in use.");
  m.def("set_log_level", [](const py::object& level) { tryon::logger().set_level(parse_log_level(level)); },
        py::arg("level"),
        "How much tryon logs to stderr (default 'info'): 'trace', 'debug', 'info', 'warning' ('warn'),\n"
        "'error', 'critical' or 'off', any case, or a logging module level (logging.DEBUG...): a\n"
        "message shows when its level is at least that. Raises InputError (a ValueError) for another name.");
  m.def("get_log_level", []() { return std::string(log_level_name(tryon::logger().level())); },
        "The current log level's name ('debug', 'info', 'warning'...).");
}
