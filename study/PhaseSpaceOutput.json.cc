//! \file study/PhaseSpaceOutput.json.cc
//! The reader of outputs.phase_space (the scoring plane).
#include <cmath>

#include "io/JsonInput.hh"
#include "study/PhaseSpaceOutput.hh"

namespace mcdose
{
PhaseSpaceOutputInput parse_phase_space_output(JsonNode const& node)
{
    node.require_object("the scoring plane {\"point_cm\": [x, y, z], \"normal\": [u, v, w]} or "
                        "{\"axis\": \"+z\", \"position_cm\": z}");
    PhaseSpaceOutputInput o;
    if (node.has("axis"))
    {
        node.allow_only({"axis", "position_cm"});
        std::string const axis = node.child("axis").choice({"+x", "-x", "+y", "-y", "+z", "-z"});
        int const a = axis[1] - 'x';
        double const at = node.child("position_cm")
                              .number(NumberRange::closed(-1e5, 1e5),
                                      "where the plane crosses the axis, phantom coordinates (cm)");
        o.point_cm = {{0, 0, 0}};
        o.point_cm[a] = at;
        o.normal = {{0, 0, 0}};
        o.normal[a] = axis[0] == '+' ? 1 : -1;
        return o;
    }
    node.allow_only({"point_cm", "normal"});
    o.point_cm = node.child("point_cm")
                     .real3(NumberRange::closed(-1e5, 1e5), "a point of the plane in cm, phantom "
                                                            "coordinates");
    JsonNode const n = node.child("normal");
    o.normal = n.real3(NumberRange::closed(-1e6, 1e6),
                       "the plane's normal [u, v, w]: particles crossing along it are written");
    double const norm = std::sqrt(o.normal[0] * o.normal[0] + o.normal[1] * o.normal[1] +
                                  o.normal[2] * o.normal[2]);
    if (!(norm > 1e-12))
        n.fail("the normal is the zero vector; give e.g. [0, 0, 1]");
    for (int a = 0; a < 3; ++a)
        o.normal[a] /= norm;
    return o;
}
} // namespace mcdose
