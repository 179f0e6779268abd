//! \file io/detail/ItkImage.hh
//! What io/'s ITK readers and writers share (io/ImageIO.cc, io/DicomSeries.cc): an image's
//! grid, its values as doubles, its component type as a C++ type, ITK's error text.
//! Internal to io/ (ITK headers reach no other folder).
#pragma once

#include <algorithm>
#include <string>
#include <utility>

#include <itkImage.h>
#include <itkImageIOBase.h>

#include "core/HostMemory.hh"
#include "core/ParallelFor.hh"
#include "io/ImageIO.hh"

namespace mcdose::detail
{
constexpr double mm_per_cm = 10.0;

inline bool ends_with(std::string const& s, std::string const& suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

//! First line of an ITK exception's description (ITK messages span lines).
inline std::string itk_reason(itk::ExceptionObject const& e)
{
    std::string d = e.GetDescription();
    auto const nl = d.find('\n');
    if (nl != std::string::npos)
        d = d.substr(0, nl);
    return d;
}

template <class Image>
GridGeometry geometry_of(Image const& image)
{
    GridGeometry g;
    auto const size = image.GetLargestPossibleRegion().GetSize();
    auto const spacing = image.GetSpacing();
    auto const origin = image.GetOrigin();
    auto const dir = image.GetDirection();
    for (int c = 0; c < 3; ++c)
    {
        g.dims[c] = static_cast<int>(size[c]);
        g.spacing_cm[c] = spacing[c] / mm_per_cm;
        g.origin_cm[c] = origin[c] / mm_per_cm;
        for (int r = 0; r < 3; ++r)
            g.direction[3 * r + c] = dir(r, c);
    }
    return g;
}

//! The image's values as doubles (an image read in its type on disk is converted here, as
//! ITK would convert it: each value cast to double).
template <class T>
ScalarImage to_scalar_image(itk::Image<T, 3> const& image, std::string pixel_type, bool integer)
{
    ScalarImage out;
    out.geometry = geometry_of(image);
    size_type const n = out.geometry.num_voxels();
    // A CT's grid (0.6 GB of doubles at 512 x 512 x 300): its pages mapped, and the values
    // converted, on all cores.
    resize_on_all_cores(out.values, n);
    T const* from = image.GetBufferPointer();
    parallel_for_pieces(n, 0,
                        [&](size_type begin, size_type end, size_type)
                        {
                            std::transform(from + begin, from + end, out.values.data() + begin,
                                           [](T v) { return static_cast<double>(v); });
                        });
    out.pixel_type = std::move(pixel_type);
    out.integer_pixels = integer;
    return out;
}

//! Call f(T()) with T the C++ type of the component type `c` (8-, 16- and 32-bit integers,
//! float, double); false for another type.
template <class F>
bool with_component_type(itk::IOComponentEnum c, F&& f)
{
    using C = itk::IOComponentEnum;
    switch (c)
    {
    case C::UCHAR:
        f((unsigned char)0);
        return true;
    case C::CHAR:
        f((signed char)0);
        return true;
    case C::USHORT:
        f((unsigned short)0);
        return true;
    case C::SHORT:
        f(short(0));
        return true;
    case C::UINT:
        f(0u);
        return true;
    case C::INT:
        f(0);
        return true;
    case C::FLOAT:
        f(0.0f);
        return true;
    case C::DOUBLE:
        f(0.0);
        return true;
    default:
        return false;
    }
}
} // namespace mcdose::detail
