//! \file rng/quality/OuWork.cc
#include "rng/quality/OrnsteinUhlenbeckDevice.hh"

namespace mcdose
{
OuWork::OuWork(size_type n, size_type checkpoints, MemSpace where) : where_(where)
{
    for (int i = 0; i < num_arrays; ++i)
    {
        size_type const size = i < 3 ? n : n * checkpoints; // xa, xb, y0 | a, c
        if (where_ == MemSpace::device)
            device_[i] = DeviceBuffer<double>(size);
        else
            host_[i].assign(size, 0.0);
    }
}

OuStateView OuWork::view()
{
    Span<double> s[num_arrays];
    for (int i = 0; i < num_arrays; ++i)
        s[i] = where_ == MemSpace::device ? device_[i].device_span() : make_span(host_[i]);
    return {s[0], s[1], s[2], s[3], s[4]};
}

void OuWork::copy_checkpoints(std::vector<double>& a, std::vector<double>& c) const
{
    if (where_ == MemSpace::device)
    {
        device_[3].copy_to_host(make_span(a));
        device_[4].copy_to_host(make_span(c));
    }
    else
    {
        a = host_[3];
        c = host_[4];
    }
}
} // namespace mcdose
