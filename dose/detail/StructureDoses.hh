//! \file dose/detail/StructureDoses.hh
//! The voxels of a structure on the dose grid as the DVH's passes read them (dose/Dvh.cc,
//! dose/DvhUncertainty.cc, dose/RegionSummary.cc): internal to dose/.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "dose/DoseData.hh"
#include "dose/VolumeQuantiles.hh"
#include "phantoms/StructureMask.hh"

namespace mcdose::detail
{
//! visit()'s `empty` where the voxels without energy need no visit: they are then
//! skipped without reading each (by the energy mask, where the data carry one).
struct IgnoreVoxel
{
    void operator()(std::size_t) const {}
};

//! A voxel's dose and 1 sigma.
struct VoxelDose
{
    double dose, sigma;
};

/*!
 * The voxels of a structure on the dose grid: dose, sigma and volume of its
 * voxel i computed from the grids when asked, so that no per-voxel copy is made.
 * Most of a body gets no energy in a short run: a pass visits the voxels with
 * energy one by one and adds those without by their number and volume (visit).
 */
class StructureDoses
{
  public:
    StructureDoses(StructureMask const& s, DoseGridData const& data, double scale)
        : s_(s), data_(data), scale_(scale), voxel_cm3_(data.geometry.voxel_volume_cm3()),
          empty_dose_(0.0 * scale), by_mask_(s.whole_grid_voxels > 0 && !data.has_energy.empty())
    {
    }
    std::size_t size() const { return s_.size(); }
    /*!
     * dosed(i) for each voxel i in [begin, end) with energy and empty(i) for each other,
     * in index order; returns the others' count and volume [cm^3]: the voxel volume times the
     * number of them wholly inside plus the others' fractions summed in index order, the
     * same whichever of them a caller lists. The whole grid is visited by the data's energy
     * mask where they carry one (without reading the energy of each voxel, nor visiting
     * those without energy where `empty` is IgnoreVoxel).
     */
    template <class Dosed, class Empty>
    SkippedVoxels visit(std::size_t begin, std::size_t end, Dosed&& dosed, Empty&& empty) const
    {
        if (by_mask_)
            return this->visit_mask(begin, end, dosed, empty);
        double const* e = data_.edep_MeV.data();
        size_type whole = 0, count = 0;
        double partial = 0;
        if (s_.whole_grid_voxels > 0)
        {
            for (std::size_t i = begin; i < end; ++i)
            {
                if (e[i] != 0)
                {
                    dosed(i);
                    continue;
                }
                ++whole;
                empty(i);
            }
            count = whole;
        }
        else
        {
            for (std::size_t i = begin; i < end; ++i)
            {
                if (e[s_.voxels[i]] != 0)
                {
                    dosed(i);
                    continue;
                }
                float const f = s_.fraction[i];
                if (f == 1.0f)
                    ++whole;
                else
                    partial += f;
                ++count;
                empty(i);
            }
        }
        return {count, voxel_cm3_ * (double(whole) + partial)};
    }
    //! The voxels without energy in [begin, end).
    size_type empty_count(std::size_t begin, std::size_t end) const
    {
        if (by_mask_)
            return this->visit_mask(begin, end, IgnoreVoxel{}, IgnoreVoxel{}).count;
        double const* e = data_.edep_MeV.data();
        size_type count = 0;
        for (std::size_t i = begin; i < end; ++i)
            count += e[s_.voxel(i)] == 0 ? 1 : 0;
        return count;
    }
    //! Dose of voxel i, times the scale, and its 1 sigma (the relative sigma of its energy;
    //! 0 without energy), read once: a voxel without energy reads only its energy.
    VoxelDose at(std::size_t i) const
    {
        size_type const v = s_.voxel(i);
        if (EnergyVoxelTable const* table = data_.energy_table) // (no negative energy)
        {
            size_type const k = table->index(data_.has_energy.data(), v);
            if (k == EnergyVoxelTable::none)
                return this->empty_voxel();
            double const d = table->dose[k] * scale_;
            return {d, d * table->relative_sigma[k]};
        }
        double const e = data_.edep_MeV[v];
        if (e == 0)
            return this->empty_voxel();
        double const d = voxel_dose_gy_per_particle(data_, v) * scale_;
        return {d, d * (e > 0 ? data_.edep_sigma_MeV[v] / e : 0)};
    }
    //! What at(i) gives for every voxel without energy (as voxel_dose_gy_per_particle).
    VoxelDose empty_voxel() const { return {empty_dose_, empty_dose_ * 0.0}; }
    double volume(std::size_t i) const { return voxel_cm3_ * s_.fraction_at(i); }

  private:
    //! visit() of the whole grid by its energy mask, word by word: dosed(i) for the set bits,
    //! empty(i) for the others unless it is IgnoreVoxel, in index order.
    template <class Dosed, class Empty>
    SkippedVoxels visit_mask(std::size_t begin, std::size_t end, Dosed&& dosed, Empty&& empty) const
    {
        std::uint64_t const* mask = data_.has_energy.data();
        size_type with_energy = 0;
        for (std::size_t w = begin / 64; 64 * w < end; ++w)
        {
            std::size_t const first = std::max(begin, 64 * w);
            std::size_t const last = std::min(end, 64 * w + 64);
            std::uint64_t bits = word_bits_in(mask, w, begin, end); // bit 0: voxel first
            with_energy += size_type(__builtin_popcountll(bits));
            if constexpr (std::is_same_v<std::decay_t<Empty>, IgnoreVoxel>)
            {
                for_each_set_bit(bits, first, dosed);
            }
            else
            {
                for (std::size_t i = first; i < last; ++i, bits >>= 1)
                {
                    if ((bits & 1) != 0)
                        dosed(i);
                    else
                        empty(i);
                }
            }
        }
        size_type const whole = (end - begin) - with_energy;
        return {whole, voxel_cm3_ * double(whole)};
    }

    StructureMask const& s_;
    DoseGridData const& data_;
    double scale_;
    double voxel_cm3_;
    double empty_dose_;
    bool by_mask_; //!< the whole grid, and the data carry the energy mask
};
} // namespace mcdose::detail
