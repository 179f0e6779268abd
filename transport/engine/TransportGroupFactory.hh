//! \file transport/engine/TransportGroupFactory.hh
//! The one factory of worker groups: a TransportChoice and the group's inputs make the
//! typed group (TransportGroup.hh). The typed groups of one precision and tally method are
//! instantiated in a translation unit of their own (TransportGroupInstance.cc, compiled once
//! per pair by transport/CMakeLists.txt), so a new tally method adds translation units.
#pragma once

#include <memory>

#include "transport/engine/TransportGroupBase.hh"
#include "transport/engine/TransportRun.hh"

namespace mcdose
{
//! A worker group of the choice, with its inputs (which must be in the choice's precision).
std::unique_ptr<TransportGroupBase> make_transport_group(TransportChoice const& choice,
                                                         TransportInputs const& inputs);

//! The typed groups of one precision and tally method, by generator.
template <class Real, class Policy>
std::unique_ptr<TransportGroupBase>
make_typed_transport_group(RngKind generator, TransportInputsFor<Real> const& inputs);
} // namespace mcdose
