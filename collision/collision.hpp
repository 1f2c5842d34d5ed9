#pragma once
// tryon::collision — the public header.
//
//   Bvh<Aabb | Sphere | Obb | SphereObb | SAabb>   flat-array hierarchy: build, refit, rebuild
//   intersecting_pairs / first_contact            mesh–mesh under a rigid transform (queries.hpp)
//   self_intersections                            one deforming mesh, normal-cone culling
//   proximity / self_proximity                    vertex–triangle and edge–edge pairs within d
//   continuous_collisions / continuous_self_...   vertex–face, edge–edge time of impact
//   edges_through_triangles, untangling_directions  self intersections undone by contour minimization
//   wrong_side_directions                          … and by moving cut-off regions back through
//   triangles_intersect, closest points, ccd      exact primitives (geometry.hpp, ccd.hpp)
//
// Cloth use: body  Bvh<Aabb> built once; cloth Bvh<Aabb> refitted every step;
//            proximity(cloth, body, d), self_proximity(cloth, d);
//            a swept cloth tree (build on x0, refit_swept(x0, x1)) for continuous_*;
//            self_intersections(cloth) with normal cones to check the result.
#include "collision/bvh.hpp"
#include "collision/ccd.hpp"
#include "collision/geometry.hpp"
#include "collision/normal_cone.hpp"
#include "collision/proximity.hpp"
#include "collision/queries.hpp"
#include "collision/untangle.hpp"
#include "collision/volumes.hpp"
