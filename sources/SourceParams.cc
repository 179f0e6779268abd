//! \file sources/SourceParams.cc
#include "sources/SourceParams.hh"

#include <cmath>

#include "core/Assert.hh"
#include "sources/SourceInput.hh"

namespace mcdose
{
namespace
{
template <class Real>
Array3<Real> to_real(Array3<double> const& a)
{
    return {{Real(a[0]), Real(a[1]), Real(a[2])}};
}

double norm(Array3<double> const& a)
{
    return std::sqrt(dot(a, a));
}
} // namespace

Array3<double> field_axis_u(Array3<double> const& direction)
{
    // cos(8 degrees) = 0.990: closer to x than that, project y instead.
    Array3<double> const ref =
        std::fabs(direction[0]) > 0.99 ? Array3<double>{{0, 1, 0}} : Array3<double>{{1, 0, 0}};
    return normalized(axpy(-dot(ref, direction), direction, ref));
}

template <class Real>
SourceParams<Real>::SourceParams(SourceInput const& in, GridGeometry const& grid)
{
    std::string const& where = in.pointer;
    SourceView<Real>& v = host_;
    v.particle = in.particle;

    // Energy: exactly one of energy_MeV and spectrum.
    MCDOSE_VALIDATE(in.energy_MeV.has_value() != in.spectrum.has_value(),
                    << where << ": give exactly one of 'energy_MeV' and 'spectrum'");
    if (in.energy_MeV)
    {
        MCDOSE_VALIDATE(*in.energy_MeV > 0 && std::isfinite(*in.energy_MeV),
                        << where << "/energy_MeV: must be a positive energy in MeV (got "
                        << *in.energy_MeV << ")");
        v.spectrum.mono_MeV = Real(*in.energy_MeV);
    }
    else
    {
        auto const& s = *in.spectrum;
        MCDOSE_VALIDATE(s.edges_MeV.size() >= 2 && s.weights.size() + 1 == s.edges_MeV.size(),
                        << where << "/spectrum: need n + 1 'edges_MeV' for n 'weights' (got "
                        << s.edges_MeV.size() << " edges, " << s.weights.size() << " weights)");
        for (std::size_t i = 0; i < s.edges_MeV.size(); ++i)
        {
            MCDOSE_VALIDATE(std::isfinite(s.edges_MeV[i]) && s.edges_MeV[i] >= 0 &&
                                (i == 0 || s.edges_MeV[i] > s.edges_MeV[i - 1]),
                            << where << "/spectrum/edges_MeV/" << i
                            << ": edges must be >= 0 and increase strictly");
        }
        for (std::size_t i = 0; i < s.weights.size(); ++i)
        {
            MCDOSE_VALIDATE(std::isfinite(s.weights[i]) && s.weights[i] >= 0,
                            << where << "/spectrum/weights/" << i << ": must be >= 0 (got "
                            << s.weights[i] << ")");
        }
        auto const table = make_alias_table(s.weights);
        edges_.assign(s.edges_MeV.begin(), s.edges_MeV.end());
        keep_.assign(table.keep.begin(), table.keep.end());
        alias_ = table.alias;
        v.spectrum.edges_MeV = make_span(std::as_const(edges_));
        v.spectrum.keep = make_span(std::as_const(keep_));
        v.spectrum.alias = make_span(std::as_const(alias_));
    }

    // Geometry, converted from physical to the grid's local frame.
    double const dnorm = norm(in.direction);
    MCDOSE_VALIDATE(dnorm > 0 && std::isfinite(dnorm),
                    << where << "/direction: must be a non-zero vector");
    Array3<double> const dir = normalized(in.direction);
    Array3<double> const u = field_axis_u(dir);
    Array3<double> const w = cross(dir, u);
    v.position_cm = to_real<Real>(grid.to_local(in.position_cm));
    v.direction = to_real<Real>(grid.direction_to_local(dir));
    v.axis_u = to_real<Real>(grid.direction_to_local(u));
    v.axis_v = to_real<Real>(grid.direction_to_local(w));

    bool const needs_field = in.kind == SourceKind::parallel || in.kind == SourceKind::point;
    MCDOSE_VALIDATE(!needs_field || in.field.has_value(),
                    << where << ": a " << to_cstring(in.kind)
                    << " source needs a 'field' (rectangle or circle)");
    switch (in.kind)
    {
    case SourceKind::pencil:
        v.shape = SourceShape::pencil;
        break;
    case SourceKind::isotropic:
        v.shape = SourceShape::isotropic_point;
        break;
    case SourceKind::parallel:
    case SourceKind::point:
    {
        auto const& f = *in.field;
        bool const point = in.kind == SourceKind::point;
        bool const rect = f.shape == FieldShape::rectangle;
        if (rect)
        {
            MCDOSE_VALIDATE(f.width_cm > 0 && f.height_cm > 0 && std::isfinite(f.width_cm) &&
                                std::isfinite(f.height_cm),
                            << where << "/field: 'width_cm' and 'height_cm' must be positive"
                            << " (got " << f.width_cm << ", " << f.height_cm << ")");
            v.half_u_cm = Real(f.width_cm / 2);
            v.half_v_cm = Real(f.height_cm / 2);
        }
        else
        {
            MCDOSE_VALIDATE(f.diameter_cm > 0 && std::isfinite(f.diameter_cm),
                            << where << "/field/diameter_cm: must be positive (got "
                            << f.diameter_cm << ")");
            v.radius_cm = Real(f.diameter_cm / 2);
        }
        if (point)
        {
            MCDOSE_VALIDATE(f.distance_cm > 0 && std::isfinite(f.distance_cm),
                            << where << "/field/distance_cm: a point source needs the "
                            << "positive distance at which the field is defined (got "
                            << f.distance_cm << ")");
            double const d = f.distance_cm;
            double const reach2 = rect ? f.width_cm * f.width_cm / 4 + f.height_cm * f.height_cm / 4
                                       : f.diameter_cm * f.diameter_cm / 4;
            v.field_distance_cm = Real(d);
            v.cos_cone = Real(d / std::sqrt(d * d + reach2));
            v.shape = rect ? SourceShape::point_rectangle : SourceShape::point_circle;
        }
        else
        {
            v.shape = rect ? SourceShape::parallel_rectangle : SourceShape::parallel_circle;
        }
        break;
    }
    }
    device_ = host_;
}

template <class Real>
SourceView<Real> const& SourceParams<Real>::device_view()
{
    if (!uploaded_)
    {
        if (!edges_.empty())
        {
            device_edges_ = DeviceBuffer<Real>(edges_);
            device_keep_ = DeviceBuffer<Real>(keep_);
            device_alias_ = DeviceBuffer<int>(alias_);
            device_.spectrum.edges_MeV = std::as_const(device_edges_).device_span();
            device_.spectrum.keep = std::as_const(device_keep_).device_span();
            device_.spectrum.alias = std::as_const(device_alias_).device_span();
        }
        uploaded_ = true;
    }
    return device_;
}

template <class Real>
SourceMixParams<Real>::SourceMixParams(std::vector<SourceInput> const& inputs,
                                       GridGeometry const& grid)
{
    MCDOSE_VALIDATE(!inputs.empty(), << "'sources' is empty; give at least one source");
    std::size_t with_particles = 0;
    for (auto const& in : inputs)
        with_particles += in.particles.has_value();
    MCDOSE_VALIDATE(with_particles == 0 || with_particles == inputs.size(),
                    << "'sources': " << with_particles << " of " << inputs.size()
                    << " sources give 'particles'; give it for every source (the run then "
                       "represents their sum) or for none");
    double total = 0;
    for (auto const& in : inputs)
    {
        params_.emplace_back(in, grid);
        double const w = with_particles ? *in.particles : in.weight;
        MCDOSE_VALIDATE(w > 0, << in.pointer << ": the source's "
                               << (with_particles ? "'particles'" : "'weight'")
                               << " must be positive (got " << w << ")");
        probability_.push_back(w);
        total += w;
    }
    double acc = 0;
    for (auto& p : probability_)
    {
        p /= total;
        acc += p;
        cdf_.push_back(Real(acc));
    }
    cdf_.back() = 1;
    for (auto const& p : params_)
        host_views_.push_back(p.host_view());
}

template <class Real>
SourceMixView<Real> SourceMixParams<Real>::host_view() const
{
    return {make_span(host_views_), make_span(cdf_)};
}

template <class Real>
SourceMixView<Real> SourceMixParams<Real>::device_view()
{
    if (!uploaded_)
    {
        std::vector<SourceView<Real>> views;
        for (auto& p : params_)
            views.push_back(p.device_view());
        device_views_ = DeviceBuffer<SourceView<Real>>(views);
        device_cdf_ = DeviceBuffer<Real>(cdf_);
        uploaded_ = true;
    }
    return {std::as_const(device_views_).device_span(), std::as_const(device_cdf_).device_span()};
}

template class SourceParams<float>;
template class SourceParams<double>;
template class SourceMixParams<float>;
template class SourceMixParams<double>;
} // namespace mcdose
