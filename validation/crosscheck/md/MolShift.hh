//! \file validation/crosscheck/md/MolShift.hh
//! Making molecules whole across periodic boundaries with a shift list built
//! by graph colouring over the bond graph (GROMACS mshift: Berendsen, van der
//! Spoel & van Drunen 1995, Comput. Phys. Commun. 91:43; Hess et al. 2008,
//! J. Chem. Theory Comput. 4:435). Atoms start white; a white atom becomes
//! grey when it is reached through a bond (its shift is then fixed so that the
//! bond is the minimum image), and black when all its bonds have been
//! followed. A new molecule starts at the next white atom when no grey is left.
#pragma once

#include <array>
#include <vector>

#include "LJSystem.hh"

namespace mcdose::crosscheck
{
//! Box multiples per atom: whole = wrapped + shift * L. The first atom of each
//! molecule (lowest index) has shift 0. Throws if a bond is longer than half
//! the box in the made-whole molecule (no consistent shift exists).
std::vector<std::array<int, 3>> make_molecule_shifts(LJSystem const& sys);
} // namespace mcdose::crosscheck
