//! \file sources/PhaseSpace.json.cc
//! The reader of a phase-space source: the file (scanned here, so a bad file
//! is refused with the study, before any transport), its placement, recycling
//! read-ahead and reading threads.
#include "io/InputPath.hh"
#include "io/McplFile.hh"
#include "sources/SourceJson.hh"

namespace mcdose
{
PhaseSpaceInput parse_phase_space(JsonNode const& node)
{
    PhaseSpaceInput ps;
    JsonNode const file = node.child("file");
    ps.file = resolve_input_path(file.string("path of an MCPL phase-space file (.mcpl)"),
                                 input_base_dir(node.file()));
    if (auto t = node.optional_child("translation_cm"))
    {
        ps.placement.translation_cm =
            t->real3(NumberRange::closed(-1e5, 1e5),
                     "where the file's origin goes, phantom coordinates (cm)");
    }
    if (auto r = node.optional_child("rotation_deg"))
    {
        ps.placement.rotation_deg =
            r->real3(NumberRange::closed(-360, 360),
                     "rotations about the phantom's x, y and z axes in degrees, applied in "
                     "that order");
    }
    if (auto n = node.optional_child("recycle"))
    {
        ps.recycle = static_cast<std::uint32_t>(
            n->integer(1, 1000000, "histories started by each particle of the file"));
    }
    if (auto r = node.optional_child("read_ahead"))
        ps.read_ahead = r->boolean();
    if (auto t = node.optional_child("read_threads"))
    {
        ps.read_threads = static_cast<int>(
            t->integer(0, 256, "threads that read the file at once (0: every core, at most 16)"));
    }
    if (auto r = node.optional_child("recover"))
        ps.recover = r->boolean();
    if (!mcpl_available())
    {
        file.fail("this mcdose was built without MCPL, so it cannot read phase-space files; "
                  "install libmcpl-dev and rebuild with -DMCDOSE_USE_MCPL=ON");
    }
    try
    {
        ps.scan = scan_phase_space(ps.file, SourceEnergyLimits::max_MeV, 0, ps.recover);
    }
    catch (RuntimeError const& e) // the file's own errors (InputError too) name this field
    {
        file.fail(e.what());
    }
    return ps;
}
} // namespace mcdose
