//! \file io/McplRecords.cc
#include "io/McplRecords.hh"

#include <cmath>
#include <cstring>

namespace mcdose
{
namespace
{
//! The floating-point numbers of one record, as doubles (what libmcpl computes in).
template <class Fp>
struct RecordReader
{
    unsigned char const* at;

    double next()
    {
        Fp x;
        std::memcpy(&x, at, sizeof(Fp));
        at += sizeof(Fp);
        return double(x);
    }
    void skip(std::size_t numbers) { at += numbers * sizeof(Fp); }
    std::int32_t next_int32()
    {
        std::int32_t x;
        std::memcpy(&x, at, sizeof(x));
        at += sizeof(x);
        return x;
    }
};

//! max(0, x) (x is never -0 here: 1 - y rounds to +0 where y is 1).
inline double at_least_zero(double x)
{
    return x > 0 ? x : 0.0;
}

//! The unit vector of the adaptive projection packing: `a`, `b` and the sign `s` (+-1)
//! of the component left out.
inline void unpack_direction(double a, double b, double s, double* u)
{
    if (std::fabs(a) > 1.0)
    {
        // (1/u_z, u_y): u_x left out
        u[1] = b;
        u[2] = 1.0 / a;
        u[0] = s * std::sqrt(at_least_zero(1.0 - (b * b + u[2] * u[2])));
    }
    else if (std::fabs(b) > 1.0)
    {
        // (u_x, 1/u_z): u_y left out
        u[0] = a;
        u[2] = 1.0 / b;
        u[1] = s * std::sqrt(at_least_zero(1.0 - (a * a + u[2] * u[2])));
    }
    else
    {
        // (u_x, u_y): u_z left out
        u[0] = a;
        u[1] = b;
        u[2] = s * std::sqrt(at_least_zero(1.0 - (a * a + b * b)));
    }
}

template <class Fp>
void decode(McplRecordLayout const& layout, unsigned char const* records, std::size_t count,
            McplParticle* out)
{
    std::size_t const bytes = layout.record_bytes();
    for (std::size_t i = 0; i < count; ++i)
    {
        RecordReader<Fp> r{records + i * bytes};
        McplParticle& p = out[i];
        if (layout.polarisation)
            r.skip(3);
        for (double& x : p.position_cm)
            x = r.next();
        double const a = r.next();
        double const b = r.next();
        double const packed_energy = r.next();
        r.skip(1); // time
        p.weight = layout.universal_weight != 0 ? layout.universal_weight : r.next();
        p.pdg_code = layout.universal_pdg_code != 0 ? layout.universal_pdg_code : r.next_int32();
        p.energy_MeV = std::fabs(packed_energy);
        unpack_direction(a, b, std::copysign(1.0, packed_energy), p.direction);
    }
}
} // namespace

std::size_t McplRecordLayout::record_bytes() const
{
    std::size_t const fp = single_precision ? sizeof(float) : sizeof(double);
    std::size_t numbers = (polarisation ? 3 : 0) + 3 + 3 + 1 + (universal_weight != 0 ? 0 : 1);
    return numbers * fp + (universal_pdg_code != 0 ? 0 : 4) + (user_flags ? 4 : 0);
}

void decode_mcpl_records(McplRecordLayout const& layout, unsigned char const* records,
                         std::size_t count, McplParticle* out)
{
    if (layout.single_precision)
        decode<float>(layout, records, count, out);
    else
        decode<double>(layout, records, count, out);
}
} // namespace mcdose
