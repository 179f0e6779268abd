//! \file transport/physics/PhotoelectricShells.hh
//! The photoelectric shells of an element as the transport samples them (the jump-ratio
//! approximation of transport/interactors/PhotoelectricData.hh), from xraylib's EdgeEnergy
//! and JumpFactor (host only; xraylib's header stays in PhotoelectricShells.cc).
#pragma once

#include <vector>

namespace mcdose
{
//! One shell: its binding energy and the probability that a photoabsorption is in it,
//! given that it is in none of the shells before it.
struct PhotoelectricShell
{
    double binding_MeV{0};
    double probability{0};
};

//! The shells of element `Z`: K, L1, L2, L3 (each that xraylib has, with an edge jump J > 1)
//! with probability 1 - 1/J, then an outer shell (the M1 edge, or 0 where xraylib has none)
//! with probability 1, taking the rest.
std::vector<PhotoelectricShell> photoelectric_shells(int Z);
} // namespace mcdose
