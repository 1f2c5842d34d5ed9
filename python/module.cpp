// tryon._tryon: the pybind11 binding of the C++ facade (tryon/tryon.hpp). tryon/__init__.py
// re-exports it with Python conveniences (paths accepted where objects are expected).
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

#include <atomic>
#include <cstdio>
#include <memory>
#include <optional>

#include "tryon/tryon.hpp"

namespace py = pybind11;

namespace {

using tryon::Avatar;
using tryon::Pattern;

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

/// A drape's result with the body it was draped on (save() needs it for the distance map).
struct PyResult {
  tryon::DrapeResult result;
  std::shared_ptr<Avatar> avatar;
};

/// Where the Python error raised during a drape waits until the drape has returned.
struct PendingError {
  std::optional<py::error_already_set> error;
};

std::shared_ptr<PyResult> drape(const Pattern& pattern, std::shared_ptr<Avatar> avatar, double resolution_cm,
                                const std::string& material, const std::string& integrator, int threads,
                                int max_frames, double time_limit_s, bool self_collision,
                                const std::string& seams, double coarse_start_cm,
                                const std::optional<py::function>& progress) {
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
    out->result = tryon::drape(pattern, *avatar, o, on_frame, &cancel);
  }
  if (pending.error) {
    pending.error->restore();
    throw py::error_already_set();
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_tryon, m) {
  m.doc() = "tryon: drape sewing patterns on body meshes (binding of tryon/tryon.hpp)";
  m.attr("__version__") = tryon::version();
  py::register_exception<tryon::InputError>(m, "InputError", PyExc_ValueError);

  py::class_<Pattern, std::shared_ptr<Pattern>>(m, "Pattern", "a sewing pattern (2D panels and stitches)")
      .def_readonly("name", &Pattern::name)
      .def_property_readonly("num_panels", [](const Pattern& p) { return p.panels.size(); })
      .def_property_readonly("num_stitches", [](const Pattern& p) { return p.stitches.size(); })
      .def("__repr__", [](const Pattern& p) {
        return "<tryon.Pattern '" + p.name + "': " + std::to_string(p.panels.size()) + " panels, " +
               std::to_string(p.stitches.size()) + " stitches>";
      });

  py::class_<Avatar, std::shared_ptr<Avatar>>(m, "Avatar", "a body in metres, Y up, feet at y = 0")
      .def_readonly("name", &Avatar::name)
      .def_readonly("height_m", &Avatar::height_m)
      .def_readonly("unit", &Avatar::unit)
      .def_property_readonly("vertices", [](const Avatar& a) { return to_numpy(a.mesh.V); }, "|V|×3 float64 (metres)")
      .def_property_readonly("triangles", [](const Avatar& a) { return to_numpy(a.mesh.F); }, "|F|×3 int32")
      .def_readonly("warnings", &Avatar::warnings)
      .def("__repr__", [](const Avatar& a) {
        char height[32];
        std::snprintf(height, sizeof height, "%.3f m", a.height_m);
        return "<tryon.Avatar '" + a.name + "': " + std::to_string(a.mesh.V.rows()) + " vertices, " + height + ">";
      });

  py::class_<PyResult, std::shared_ptr<PyResult>>(m, "DrapeResult", "a draped garment, its report and fit maps")
      .def_property_readonly("positions", [](const PyResult& r) { return to_numpy(r.result.positions); },
                             "|V|×3 float64 draped positions (metres, the body's frame)")
      .def_property_readonly("triangles", [](const PyResult& r) { return to_numpy(r.result.garment.F); },
                             "|F|×3 int32 vertex indices")
      .def_property_readonly("rest", [](const PyResult& r) { return to_numpy(r.result.garment.rest); },
                             "|V|×2 float64 flat panel coordinates (metres)")
      .def_property_readonly("seam_pairs", [](const PyResult& r) { return to_numpy(r.result.garment.seam_pairs); },
                             "|S|×2 int32 vertex pairs sewn together")
      .def_property_readonly("report", [](const PyResult& r) { return to_python(r.result.report); },
                             "report.json's content as a dict")
      .def_property_readonly("clean", [](const PyResult& r) { return r.result.clean; })
      .def_property_readonly("fit_maps", [](const PyResult& r) {
            py::dict d;
            d["strain"] = to_numpy(r.result.fit_maps.strain);
            d["distance_m"] = to_numpy(r.result.fit_maps.distance_m);
            return d;
          }, "{'strain': |V|, 'distance_m': |V|} per-vertex float64 arrays")
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
          "writes OUTDIR/garment.obj|glb, report.json (and preview.png); returns the report as written");

  m.def("load_pattern", [](const std::filesystem::path& p) { return std::make_shared<Pattern>(tryon::load_pattern(p)); },
        py::arg("path"), py::call_guard<py::gil_scoped_release>(), "reads a GarmentCode specification.json");
  m.def("load_avatar", [](const std::filesystem::path& p, const std::string& up) {
        if (up != "y" && up != "z") throw tryon::InputError("up must be 'y' or 'z', not '" + up + "'");
        tryon::AvatarOptions o;
        o.up = up == "z" ? tryon::avatars::UpAxis::z : tryon::avatars::UpAxis::y;
        py::gil_scoped_release nogil;
        return std::make_shared<Avatar>(tryon::load_avatar(p, o));
      },
      py::arg("path"), py::arg("up") = "y", "reads a body mesh (OBJ, PLY, STL, glTF, FBX, COLLADA)");
  m.def("drape", &drape, py::arg("pattern"), py::arg("avatar"), py::kw_only(), py::arg("resolution_cm") = 1.0,
        py::arg("material") = "cotton_jersey", py::arg("integrator") = "implicit_euler",
        py::arg("threads") = 0, py::arg("max_frames") = 600, py::arg("time_limit_s") = 0.0,
        py::arg("self_collision") = true, py::arg("seams") = "sew",
        py::arg("coarse_start_cm") = tryon::DrapeOptions{}.coarse_start_cm, py::arg("progress") = py::none(),
        "sews and drapes a pattern on a body (the GIL is released while it runs)");
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
      py::arg("previous") = std::filesystem::path(), "quality of a cloth OBJ on a body, as `tryon check` prints it");
  m.def("set_threads", &tryon::set_threads, py::arg("threads"), "threads for later work (0: all cores)");
  m.def("materials", &tryon::material_names, "names of the bundled material presets");
  m.def("set_log_level", &tryon::set_log_level,
        py::arg("level"), "how much tryon logs to stderr (default info)");
  m.def("materials_file", &tryon::materials_file, "the material presets file in use");
}
