//! \file study/StudyChecks.cc
#include "study/StudyChecks.hh"

#include <sstream>

#include "io/InputError.hh"
#include "phantoms/PhantomBuilder.hh"
#include "sources/SourceParams.hh"
#include "study/StudyMaterials.hh"

namespace mcdose
{
namespace
{
std::vector<StudyCheck>& checks()
{
    static std::vector<StudyCheck> c;
    return c;
}

void check_profile_points(StudyInput const& study, Phantom const& phantom)
{
    GridGeometry const& g = phantom.grid.geometry();
    auto const& profiles = study.outputs.lateral_profiles;
    for (std::size_t i = 0; i < profiles.size(); ++i)
    {
        Real3 const& p = profiles[i].position_cm;
        if (g.find_voxel(p) == outside_grid)
        {
            std::ostringstream os;
            os << "point (" << p[0] << ", " << p[1] << ", " << p[2]
               << ") cm is outside the phantom; choose a point inside the grid";
            throw InputError(study.study_file,
                             "/outputs/lateral_profiles/" + std::to_string(i) + "/position_cm",
                             os.str());
        }
    }
}
} // namespace

void check_volume_sources(StudyInput const& study, Phantom const& phantom)
{
    for (SourceInput const& s : study.sources)
    {
        if (s.kind == SourceKind::volume && s.volume)
            volume_emission_weights(*s.volume, phantom, s.pointer);
    }
}

bool register_study_check(StudyCheck check)
{
    checks().push_back(std::move(check));
    return true;
}

std::vector<StudyCheck> const& registered_study_checks()
{
    return checks();
}

Phantom build_study_phantom(StudyInput const& study, std::vector<std::string>* warnings)
{
    auto user = study_user_materials(study);
    check_phantom_materials(study, user);
    return build_phantom(study.phantom, nominal_density_lookup(std::move(user)), warnings);
}

Phantom check_study(StudyInput const& study, std::vector<std::string>* warnings)
{
    Phantom phantom = build_study_phantom(study, warnings);
    check_profile_points(study, phantom);
    check_volume_sources(study, phantom);
    for (auto const& c : registered_study_checks())
        c.check(study, phantom);
    return phantom;
}
} // namespace mcdose
