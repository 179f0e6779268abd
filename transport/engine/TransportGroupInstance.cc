//! \file transport/engine/TransportGroupInstance.cc
//! The typed worker groups of one precision and tally method (every transport generator),
//! with their CPU workers. Not compiled as it is: transport/CMakeLists.txt compiles it once
//! per precision and tally method, defining MCDOSE_TRANSPORT_REAL and
//! MCDOSE_TRANSPORT_POLICY, so that `make -j` builds the pairs in parallel.
#include "transport/engine/TransportEngines.hh"
#include "transport/engine/TransportGroup.hh"
#include "transport/engine/TransportGroupFactory.hh"

#if !defined(MCDOSE_TRANSPORT_REAL) || !defined(MCDOSE_TRANSPORT_POLICY)
#    error "compiled by transport/CMakeLists.txt with MCDOSE_TRANSPORT_REAL and _POLICY defined"
#endif

namespace mcdose
{
template <class Real, class Policy>
std::unique_ptr<TransportGroupBase>
make_typed_transport_group(RngKind generator, TransportInputsFor<Real> const& inputs)
{
    return visit_transport_engine(generator,
                                  [&](auto tag) -> std::unique_ptr<TransportGroupBase>
                                  {
                                      using Engine = typename decltype(tag)::type;
                                      return std::make_unique<TransportGroup<Real, Engine, Policy>>(
                                          inputs);
                                  });
}

template std::unique_ptr<TransportGroupBase>
make_typed_transport_group<MCDOSE_TRANSPORT_REAL, MCDOSE_TRANSPORT_POLICY>(
    RngKind, TransportInputsFor<MCDOSE_TRANSPORT_REAL> const&);
} // namespace mcdose
