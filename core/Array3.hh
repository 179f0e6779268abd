//! \file core/Array3.hh
//! Fixed three-component array usable on host and device (trivially copyable).
#pragma once

#include "core/Macros.hh"

namespace mcdose
{
//! Three values indexed 0..2 (x, y, z or i, j, k).
template <class T>
struct Array3
{
    T v[3];

    MCDOSE_FORCEINLINE_FUNCTION T& operator[](int i) { return v[i]; }
    MCDOSE_FORCEINLINE_FUNCTION T const& operator[](int i) const { return v[i]; }
};

template <class T>
MCDOSE_FORCEINLINE_FUNCTION bool operator==(Array3<T> const& a, Array3<T> const& b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}
template <class T>
MCDOSE_FORCEINLINE_FUNCTION bool operator!=(Array3<T> const& a, Array3<T> const& b)
{
    return !(a == b);
}

using Real3 = Array3<double>; //!< position [cm] or direction [-]
using Int3 = Array3<int>;     //!< voxel indices or grid dimensions
} // namespace mcdose
