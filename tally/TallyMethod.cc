//! \file tally/TallyMethod.cc
#include "tally/TallyMethod.hh"

#include <sstream>

#include "core/Assert.hh"

namespace mcdose
{
std::vector<TallyMethod> all_tally_methods()
{
    return {TallyMethod::fa, TallyMethod::cas, TallyMethod::wag, TallyMethod::kas,
            TallyMethod::hb, TallyMethod::wib, TallyMethod::fx};
}

char const* to_cstring(TallyMethod m)
{
    return dispatch_tally_method(m, [](auto policy) { return decltype(policy)::name; });
}

TallyMethod to_tally_method(std::string const& name)
{
    for (TallyMethod m : all_tally_methods())
    {
        if (name == to_cstring(m))
            return m;
    }
    MCDOSE_VALIDATE(false, << "unknown tally method '" << name
                           << "'; use one of fa, cas, wag, kas, hb, wib, fx");
    return TallyMethod::fx;
}

std::vector<TallyMethod> to_tally_methods(std::string const& list)
{
    if (list == "all")
        return all_tally_methods();
    std::vector<TallyMethod> result;
    std::istringstream is(list);
    std::string item;
    while (std::getline(is, item, ','))
        result.push_back(to_tally_method(item));
    MCDOSE_VALIDATE(!result.empty(), << "empty tally method list; give e.g. 'hb,wib,fx' or 'all'");
    return result;
}
} // namespace mcdose
