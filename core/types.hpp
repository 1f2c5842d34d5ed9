#pragma once
// Eigen type aliases shared by every tryon module. Point sets are row-major so that
// V.row(i) is one contiguous point.
#include <Eigen/Core>
#include <Eigen/Geometry>

namespace tryon {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
/// |N|×3 points, one per row.
using Points3 = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
/// |N|×2 points, one per row.
using Points2 = Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::RowMajor>;
/// |F|×3 vertex indices of triangles, one per row.
using Triangles = Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor>;
/// |E|×2 vertex indices of segments, one per row.
using Segments = Eigen::Matrix<int, Eigen::Dynamic, 2, Eigen::RowMajor>;

template <typename T> using ConstRef = const Eigen::Ref<const T>&;

}  // namespace tryon
