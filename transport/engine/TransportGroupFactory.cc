//! \file transport/engine/TransportGroupFactory.cc
#include "transport/engine/TransportGroupFactory.hh"

#include "transport/engine/TransportEngines.hh"

namespace mcdose
{
TransportChoice make_transport_choice(Precision precision, RngKind generator, TallyMethod method)
{
    require_transport_generator(generator);
    return {precision, generator, method};
}

std::unique_ptr<TransportGroupBase> make_transport_group(TransportChoice const& choice,
                                                         TransportInputs const& inputs)
{
    return dispatch_precision(
        choice.precision,
        [&](auto p)
        {
            using Real = ::mcdose::Real<decltype(p)::value>;
            auto const* typed = std::get_if<TransportInputsFor<Real>>(&inputs);
            MCDOSE_VALIDATE(typed != nullptr, << "the transport's inputs are not in its precision ("
                                              << to_cstring(choice.precision) << ")");
            return dispatch_tally_method(
                choice.method,
                [&](auto policy) {
                    return make_typed_transport_group<Real, decltype(policy)>(choice.generator,
                                                                              *typed);
                });
        });
}
} // namespace mcdose
