//! \file validation/crosscheck/md/MolShift.cc
#include "MolShift.hh"

#include <cmath>
#include <cstdint>
#include <deque>

#include "core/Assert.hh"

namespace mcdose::crosscheck
{
namespace
{
enum class Colour : std::uint8_t
{
    white, //!< not reached yet
    grey,  //!< reached, shift fixed, bonds not yet followed
    black  //!< all bonds followed
};

std::array<double, 3> position(LJSystem const& s, size_type i)
{
    return {double(s.x[i]), double(s.y[i]), double(s.z[i])};
}
} // namespace

std::vector<std::array<int, 3>> make_molecule_shifts(LJSystem const& sys)
{
    MCDOSE_VALIDATE(sys.periodic(), << "molecule shifts need a periodic box (box_length > 0)");
    size_type const n = sys.size();
    double const box = sys.box_length;

    // Bond graph in CSR form.
    std::vector<std::uint32_t> offset(n + 1, 0), adjacent(2 * sys.bonds.size());
    for (auto const& b : sys.bonds)
    {
        ++offset[b[0] + 1];
        ++offset[b[1] + 1];
    }
    for (size_type i = 0; i < n; ++i)
        offset[i + 1] += offset[i];
    {
        std::vector<std::uint32_t> fill(offset.begin(), offset.end() - 1);
        for (auto const& b : sys.bonds)
        {
            adjacent[fill[b[0]]++] = b[1];
            adjacent[fill[b[1]]++] = b[0];
        }
    }

    std::vector<Colour> colour(n, Colour::white);
    std::vector<std::array<int, 3>> shift(n, {0, 0, 0});
    std::deque<std::uint32_t> grey;
    for (size_type first_white = 0; first_white < n; ++first_white)
    {
        if (colour[first_white] != Colour::white)
            continue;
        colour[first_white] = Colour::grey; // new molecule, shift 0
        grey.push_back(std::uint32_t(first_white));
        while (!grey.empty())
        {
            std::uint32_t const ai = grey.front();
            grey.pop_front();
            auto const xi = position(sys, ai);
            for (auto k = offset[ai]; k < offset[ai + 1]; ++k)
            {
                std::uint32_t const aj = adjacent[k];
                auto const xj = position(sys, aj);
                if (colour[aj] == Colour::white)
                {
                    // Shift aj so that the bond ai-aj is the minimum image.
                    for (int d = 0; d < 3; ++d)
                        shift[aj][d] = shift[ai][d] - int(std::rint((xj[d] - xi[d]) / box));
                    colour[aj] = Colour::grey;
                    grey.push_back(aj);
                }
                else
                {
                    // Already placed (a ring closure or the atom we came from):
                    // the made-whole bond must still be shorter than half the box.
                    for (int d = 0; d < 3; ++d)
                    {
                        double const bond =
                            (xj[d] + shift[aj][d] * box) - (xi[d] + shift[ai][d] * box);
                        MCDOSE_VALIDATE(std::abs(bond) < box / 2,
                                        << "bond " << ai << "-" << aj
                                        << " spans more than half the periodic box after making "
                                           "the molecule whole; enlarge the box");
                    }
                }
            }
            colour[ai] = Colour::black;
        }
    }
    return shift;
}
} // namespace mcdose::crosscheck
