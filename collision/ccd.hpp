#pragma once
// Continuous collision tests over a linear motion x(t) = x0 + t (x1 − x0), t ∈ [0, 1]
// [Bridson, Fedkiw & Anderson 2002, "Robust treatment of collisions, contact and friction for
// cloth animation", §4]: the four points are coplanar at the roots of a cubic; at each root (in
// increasing order) the pair is checked for proximity (distance <= eta), and the first one that
// passes is the time of impact.
//
// Robustness: the cubic's roots are bracketed on the monotone pieces between its critical points
// and refined by bisection; interval ends where the cubic is within a scale-relative tolerance of
// zero are candidates too. When the motion keeps the points (nearly) coplanar, the in-plane events
// are added as candidates: the times when a vertex crosses the line of an edge (quadratics in t,
// measured along the plane's normal at t = ½) and t = 0. Every candidate is verified by an exact
// distance computation, so extra candidates never create false hits.
#include <vector>

#include "core/types.hpp"

namespace tryon::collision {

struct Impact {
  bool hit = false;
  double toi = 1;          ///< time of first impact in [0, 1]
  double distance = 0;     ///< distance at toi (<= eta)
  Vec3 bary = Vec3::Zero();  ///< vertex–face: barycentric weights of the contact point on the face
  double s = 0, t = 0;     ///< edge–edge: contact at a + s (b − a) and c + t (d − c)
  Vec3 normal = Vec3::Zero();  ///< unit contact normal, pointing towards the vertex (edge ab) side at t = 0
};

/// Vertex p against triangle abc, both moving linearly from the *0 to the *1 positions.
Impact vertex_face_ccd(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                       const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                       double eta = 1e-9);

/// Edge ab against edge cd, both moving linearly.
Impact edge_edge_ccd(const Vec3& a0, const Vec3& b0, const Vec3& c0, const Vec3& d0,
                     const Vec3& a1, const Vec3& b1, const Vec3& c1, const Vec3& d1,
                     double eta = 1e-9);

/// Candidate times in [0, 1] of the polynomial c0 + c1 t + c2 t² + c3 t³: bracketed roots and
/// interval ends with |f| <= tol, sorted. Exposed for the tests.
std::vector<double> cubic_candidates(double c0, double c1, double c2, double c3, double tol);

}  // namespace tryon::collision
