//! \file core/Types.cc
#include "core/Types.hh"

#include "core/Assert.hh"

namespace mcdose
{
Precision to_precision(std::string const& name)
{
    if (name == "float" || name == "single")
        return Precision::single_;
    if (name == "double")
        return Precision::double_;
    MCDOSE_VALIDATE(false, << "unknown precision '" << name << "'; use 'float' or 'double'");
    return Precision::double_;
}

char const* to_cstring(Precision p)
{
    return p == Precision::single_ ? "float" : "double";
}

Backend to_backend(std::string const& name)
{
    if (name == "auto")
        return Backend::automatic;
    if (name == "gpu")
        return Backend::gpu;
    if (name == "cpu")
        return Backend::cpu;
    MCDOSE_VALIDATE(false, << "unknown backend '" << name << "'; use 'auto', 'gpu' or 'cpu'");
    return Backend::automatic;
}

char const* to_cstring(Backend b)
{
    switch (b)
    {
    case Backend::automatic:
        return "auto";
    case Backend::gpu:
        return "gpu";
    case Backend::cpu:
        return "cpu";
    }
    return "?";
}
} // namespace mcdose
