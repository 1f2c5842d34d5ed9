// tryon_consumer PATTERN BODY OUTDIR [RESOLUTION_CM [MAX_FRAMES]]: drapes a pattern on a body
// through tryon's public API (tryon/tryon.hpp), with a progress callback, and saves the result.
// Prints the status, the mesh size and the report's quality; exit 0 clean, 1 not clean, 2 bad input.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tryon/tryon.hpp"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s PATTERN BODY OUTDIR [RESOLUTION_CM [MAX_FRAMES]]\n", argv[0]);
    return 2;
  }
  try {
    tryon::set_log_level("warn");
    const tryon::Pattern pattern = tryon::load_pattern(argv[1]);
    const tryon::Avatar body = tryon::load_avatar(argv[2]);
    tryon::DrapeOptions options;
    options.resolution_cm = argc > 4 ? std::atof(argv[4]) : 2.0;
    options.max_frames = argc > 5 ? std::atoi(argv[5]) : 300;
    std::atomic<bool> cancel{false};  // another thread could set it to stop the drape
    int last_frame = 0, frame_limit = 0;
    tryon::DrapeResult result = tryon::drape(
        pattern, body, options,
        [&](const tryon::DrapeProgress& p) {
          last_frame = p.frame;
          frame_limit = p.max_frames;
        },
        &cancel);
    tryon::save_drape(result, body, argv[3]);

    const tryon::Quality& q = result.quality;
    std::printf("tryon %s, materials %s\n", tryon::version().c_str(), tryon::materials_file().string().c_str());
    std::printf("%s on %s: status %s, %d frames seen by the callback, of %d\n", pattern.name.c_str(),
                body.name.c_str(), result.report["status"].get<std::string>().c_str(), last_frame, frame_limit);
    std::printf("mesh: %lld vertices, %lld triangles; strain fit map of %lld values\n",
                static_cast<long long>(result.positions.rows()), static_cast<long long>(result.garment.F.rows()),
                static_cast<long long>(result.fit_maps.strain.size()));
    std::printf("quality: body %d, inside %d, self %d, seam gap %.2f mm\n", q.body_intersections,
                q.vertices_inside_body, q.self_intersections, q.seam_gap_max_m * 1000);
    return result.clean ? 0 : 1;
  } catch (const tryon::InputError& e) {
    std::fprintf(stderr, "bad input: %s\n", e.what());
    return 2;
  }
}
