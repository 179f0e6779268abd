//! \file sources/SourceInput.cc
#include "sources/SourceInput.hh"

namespace mcdose
{
char const* to_cstring(SourceKind k)
{
    switch (k)
    {
    case SourceKind::pencil:
        return "pencil";
    case SourceKind::parallel:
        return "parallel";
    case SourceKind::point:
        return "point";
    case SourceKind::isotropic:
        return "isotropic";
    }
    return "?";
}
} // namespace mcdose
