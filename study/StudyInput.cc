//! \file study/StudyInput.cc
//! The spellings of the study's choices (as the study file and the command line give them).
#include "study/StudyInput.hh"

#include "core/Assert.hh"

namespace mcdose
{
char const* to_cstring(TallyUncertainty u)
{
    switch (u)
    {
    case TallyUncertainty::automatic:
        return "auto";
    case TallyUncertainty::batch:
        return "batch";
    case TallyUncertainty::history:
        return "history";
    }
    return "?";
}

TallyUncertainty to_tally_uncertainty(std::string const& name)
{
    for (TallyUncertainty u :
         {TallyUncertainty::automatic, TallyUncertainty::batch, TallyUncertainty::history})
    {
        if (name == to_cstring(u))
            return u;
    }
    MCDOSE_VALIDATE(false, << "unknown tally uncertainty '" << name
                           << "'; use 'auto', 'batch' or 'history'");
    return TallyUncertainty::automatic;
}

char const* to_cstring(IfExists e)
{
    switch (e)
    {
    case IfExists::error:
        return "error";
    case IfExists::overwrite:
        return "overwrite";
    case IfExists::increment:
        return "increment";
    }
    return "?";
}

IfExists to_if_exists(std::string const& name)
{
    for (IfExists e : {IfExists::error, IfExists::overwrite, IfExists::increment})
    {
        if (name == to_cstring(e))
            return e;
    }
    MCDOSE_VALIDATE(false, << "unknown if_exists '" << name
                           << "'; use 'error', 'overwrite' or 'increment'");
    return IfExists::error;
}
} // namespace mcdose
