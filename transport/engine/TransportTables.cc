//! \file transport/engine/TransportTables.cc
#include "transport/engine/TransportTables.hh"

#include <algorithm>
#include <cmath> // defines __GLIBC__ with the GNU C library
#if defined(__GLIBC__)
#    include <gnu/libc-version.h>
#endif
#include <map>
#include <sstream>

#include "core/ByteStream.hh"
#include "core/Config.hh"
#include "core/ParallelFor.hh"
#include "phantoms/VoxelGrid.hh"
#include "phantoms/materials/Element.hh"
#include "transport/engine/TableBuildStamp.hh"
#include "transport/engine/TransportParams.hh"
#include "transport/physics/PhotoelectricShells.hh"
#include "transport/physics/SamplingTables.hh"

namespace mcdose
{
namespace
{
//! Relative atom counts n_i = w_i / A_i of a material (per gram / N_A).
std::vector<double> atoms_per_gram(Material const& m)
{
    std::vector<double> n;
    for (auto const& c : m.components)
        n.push_back(c.mass_fraction / element_data(c.atomic_number).atomic_weight_g_mol);
    return n;
}

//! The densities at which each material occurs (voxels of density 0 left out).
std::vector<DensityRange> voxel_density_ranges(VoxelGridParams const& voxels)
{
    std::vector<DensityRange> ranges(voxels.num_materials(), DensityRange{HUGE_VAL, 0.0});
    auto const& mat = voxels.material();
    auto const& rho = voxels.density_g_cm3();
    // On all cores, in blocks of voxels (minima and maxima: any order gives the same).
    auto const part = [&](size_type begin, size_type end, std::vector<DensityRange>& block)
    {
        for (size_type v = begin; v < end; ++v)
        {
            if (!(rho[v] > 0))
                continue;
            DensityRange& r = block[mat[v]];
            r.min_g_cm3 = std::min(r.min_g_cm3, double(rho[v]));
            r.max_g_cm3 = std::max(r.max_g_cm3, double(rho[v]));
        }
    };
    auto const merge = [](std::vector<DensityRange>& total, std::vector<DensityRange> const& block)
    {
        for (std::size_t m = 0; m < total.size(); ++m)
        {
            total[m].min_g_cm3 = std::min(total[m].min_g_cm3, block[m].min_g_cm3);
            total[m].max_g_cm3 = std::max(total[m].max_g_cm3, block[m].max_g_cm3);
        }
    };
    ranges = parallel_block_sum(mat.size(), 0, ranges, part, merge);
    for (auto& r : ranges)
    {
        if (r.max_g_cm3 == 0)
            r.min_g_cm3 = 0;
    }
    return ranges;
}

void validate_inputs(std::vector<Material> const& materials, VoxelGridParams const& grid)
{
    MCDOSE_VALIDATE(!materials.empty(), << "the phantom has no materials");
    MCDOSE_VALIDATE(materials.size() == grid.num_materials(),
                    << "phantom uses " << grid.num_materials() << " materials but "
                    << materials.size() << " were resolved");
    for (auto const& m : materials)
    {
        MCDOSE_VALIDATE(!m.components.empty(), << "material '" << m.name << "' has no elements");
        MCDOSE_VALIDATE(m.components.size() < 256, << "a material has more than 255 elements");
    }
}

//! The tables and the steps that fill them.
struct TableBuilder : TransportTables
{
    void fill_photon_tables(PhysicsTables const& tables);
    void fill_majorant(std::vector<DensityRange> const& densities);
    void fill_photoelectric_shells();
    void fill_sampling_tables(std::vector<Material> const& materials);
};

//! mu/rho, the process CDF (photo, + incoherent, + coherent; pair the rest) and the
//! photoabsorbing element's CDF per material and grid point, from the builder's columns.
void TableBuilder::fill_photon_tables(PhysicsTables const& tables)
{
    auto const& materials = tables.materials();
    unsigned const n = grid.size;
    num_materials = tables.num_materials();
    std::map<int, std::uint16_t> z_to_index;
    for (auto const& m : materials)
    {
        max_elements = std::max<unsigned>(max_elements, m.components.size());
        for (auto const& c : m.components)
            z_to_index.emplace(c.atomic_number, 0);
    }
    for (auto& [z, idx] : z_to_index)
    {
        idx = static_cast<std::uint16_t>(elements_z.size());
        elements_z.push_back(z);
    }
    unsigned const me = max_elements;
    mu_rho.assign(num_materials * n, 0);
    branch_cdf.assign(num_materials * n * 3, 0);
    element_cdf.assign(num_materials * n * me, 1);
    element_index.assign(num_materials * me, 0);
    num_elements.assign(num_materials, 0);
    for (unsigned m = 0; m < num_materials; ++m)
    {
        auto const& comps = materials[m].components;
        num_elements[m] = comps.size();
        for (std::size_t k = 0; k < comps.size(); ++k)
            element_index[m * me + k] = z_to_index.at(comps[k].atomic_number);
        auto const photo = tables.photon_column(m, PhotonColumn::photo);
        auto const inc = tables.photon_column(m, PhotonColumn::incoherent);
        auto const coh = tables.photon_column(m, PhotonColumn::coherent);
        auto const mu = tables.photon_column(m, PhotonColumn::mu);
        for (unsigned i = 0; i < n; ++i)
        {
            mu_rho[m * n + i] = mu[i];
            double* cdf = &branch_cdf[(m * n + i) * 3];
            cdf[0] = photo[i] / mu[i];
            cdf[1] = (photo[i] + inc[i]) / mu[i];
            cdf[2] = (photo[i] + inc[i] + coh[i]) / mu[i];
            double acc = 0;
            for (std::size_t k = 0; k < comps.size(); ++k)
            {
                acc += tables.photo_partial(m, k)[i];
                element_cdf[(m * n + i) * me + k] = photo[i] > 0 ? acc / photo[i] : 1.0;
            }
            element_cdf[(m * n + i) * me + comps.size() - 1] = 1.0;
        }
    }
}

//! Woodcock majorant: per material the densest voxel, per bin the larger end.
void TableBuilder::fill_majorant(std::vector<DensityRange> const& densities)
{
    unsigned const n = grid.size;
    majorant_per_cm.assign(n, 0);
    for (unsigned i = 0; i < n; ++i)
    {
        double maj = 0;
        for (unsigned m = 0; m < num_materials; ++m)
        {
            double const mu_hi =
                std::max(mu_rho[m * n + i], mu_rho[m * n + std::min(i + 1, n - 1)]);
            maj = std::max(maj, mu_hi * float(densities[m].max_g_cm3));
        }
        // Slightly above the float rounding of the tables (so mu <= majorant holds
        // in float transport too).
        majorant_per_cm[i] = maj * (1 + 1e-6);
    }
}

//! Photoelectric shells of each element (transport/physics/PhotoelectricShells.hh).
void TableBuilder::fill_photoelectric_shells()
{
    shell_offset.push_back(0);
    for (int z : elements_z)
    {
        for (PhotoelectricShell const& shell : photoelectric_shells(z))
        {
            shell_binding_MeV.push_back(shell.binding_MeV);
            shell_probability.push_back(shell.probability);
        }
        shell_offset.push_back(shell_binding_MeV.size());
    }
}

//! Rayleigh F^2 and Compton S per material (transport/physics/SamplingTables), and the
//! pair target selection.
void TableBuilder::fill_sampling_tables(std::vector<Material> const& materials)
{
    ray_offset.push_back(0);
    inc_offset.push_back(0);
    for (unsigned m = 0; m < num_materials; ++m)
    {
        auto const& comps = materials[m].components;
        auto const n_atoms = atoms_per_gram(materials[m]);
        auto const ray = build_rayleigh_table(materials[m]);
        ray_x2.insert(ray_x2.end(), ray.x2_per_A2.begin(), ray.x2_per_A2.end());
        ray_f2.insert(ray_f2.end(), ray.f2.begin(), ray.f2.end());
        ray_cum.insert(ray_cum.end(), ray.cumulative.begin(), ray.cumulative.end());
        ray_offset.push_back(ray_x2.size());

        auto const inc = build_incoherent_table(materials[m]);
        inc_x.insert(inc_x.end(), inc.x_per_A.begin(), inc.x_per_A.end());
        inc_s.insert(inc_s.end(), inc.s.begin(), inc.s.end());
        inc_electrons.push_back(inc.electrons);
        inc_offset.push_back(inc_x.size());

        // Pair: target selection weights n_i Z_i (Z_i + 1) (PairProductionData.hh).
        std::vector<int> zs;
        for (auto const& c : comps)
            zs.push_back(c.atomic_number);
        auto const cdf = pair_selection_cdf(zs, n_atoms);
        pair_z.insert(pair_z.end(), zs.begin(), zs.end());
        pair_cdf.insert(pair_cdf.end(), cdf.begin(), cdf.end());
        pair_offset.push_back(pair_z.size() - zs.size());
    }
    pair_offset.push_back(pair_z.size());
}
} // namespace

TransportTableInputs transport_table_inputs(std::vector<Material> const& materials,
                                            VoxelGridParams const& grid,
                                            TransportOptions const& options)
{
    validate_inputs(materials, grid);
    TransportTableInputs in;
    in.materials = materials;
    in.physics = physics_table_options(options);
    in.condensed_history = options.electron.condensed_history;
    if (in.condensed_history)
    {
        validate_electron_options(options.electron);
        in.max_loss_fraction = options.electron.max_loss_fraction;
        in.density_effect = options.electron.density_effect;
    }
    in.densities = voxel_density_ranges(grid);
    return in;
}

TransportTables build_transport_tables(TransportTableInputs const& in)
{
    MCDOSE_VALIDATE(in.densities.size() == in.materials.size(),
                    << "density ranges for " << in.densities.size() << " materials, but "
                    << in.materials.size() << " materials");
    PhysicsTables const tables(in.materials, in.physics);
    TableBuilder b;
    b.grid = tables.options().photon_grid;
    b.fill_photon_tables(tables);
    b.fill_majorant(in.densities);
    b.fill_photoelectric_shells();
    b.fill_sampling_tables(in.materials);
    if (in.condensed_history)
    {
        // The electron options the tables read; the others (cut-offs, step limits of the
        // transport itself) keep their defaults here.
        ElectronTransportOptions eo;
        eo.delta_cut_MeV = in.physics.delta_cut_MeV;
        eo.brems_cut_MeV = in.physics.brems_cut_MeV;
        eo.max_loss_fraction = in.max_loss_fraction;
        eo.density_effect = in.density_effect;
        b.electron = build_electron_tables(tables, eo, in.densities);
    }
    return std::move(static_cast<TransportTables&>(b));
}

//---------------------------------------------------------------------------//
namespace
{
//! Raised whenever the tables' layout, their serialisation or the meaning of an input
//! changes in a way the code hash cannot see.
constexpr int table_format_version = 1;

//! The C library and the CPU features its math functions dispatch on (glibc picks FMA
//! variants of exp and log at run time): tables built on another machine may differ in
//! the last bits, so they get another key.
std::string math_library()
{
    std::ostringstream os;
#if defined(__GLIBC__)
    os << "glibc " << gnu_get_libc_version();
#else
    os << "libc unknown";
#endif
#if defined(__x86_64__) && defined(__GNUC__)
    os << ", fma " << bool(__builtin_cpu_supports("fma")) << ", avx2 "
       << bool(__builtin_cpu_supports("avx2")) << ", avx512f "
       << bool(__builtin_cpu_supports("avx512f"));
#endif
    return os.str();
}

void key_grid(std::ostream& os, char const* name, TableGrid const& g)
{
    os << name << " grid: ln_emin " << g.ln_emin << ", delta " << g.delta << ", size " << g.size
       << '\n';
}

//! Every field of the tables in one order: f(value) for each scalar and vector.
template <class Tables, class F>
void for_each_field(Tables& t, F&& f)
{
    f(t.grid.ln_emin), f(t.grid.delta), f(t.grid.size);
    f(t.mu_rho), f(t.branch_cdf), f(t.element_cdf), f(t.majorant_per_cm);
    f(t.element_index), f(t.num_elements), f(t.num_materials), f(t.max_elements);
    f(t.elements_z), f(t.shell_binding_MeV), f(t.shell_probability), f(t.shell_offset);
    f(t.ray_x2), f(t.ray_f2), f(t.ray_cum), f(t.ray_offset);
    f(t.inc_x), f(t.inc_s), f(t.inc_electrons), f(t.inc_offset);
    f(t.pair_z), f(t.pair_cdf), f(t.pair_offset);
    auto& e = t.electron;
    f(e.ln_emin), f(e.delta), f(e.size), f(e.density_nodes), f(e.stopping);
    f(e.transport_xs), f(e.transport_xs2), f(e.hard_xs), f(e.hard_majorant);
    f(e.brems_points), f(e.brems_shape);
    f(e.msc_m1_min), f(e.msc_m1_max), f(e.msc_ln_m1_min), f(e.msc_m1_delta);
    f(e.msc_ln_screening), f(e.msc_second_moment);
    f(e.msc_ln_ratio_min), f(e.msc_ratio_delta);
    f(e.msc_ln_screening_of_ratio), f(e.msc_mean_of_ratio);
}
// A new field must join for_each_field (and table_format_version be raised): these sizes
// (11 and 21 vectors, 80 and 32 bytes of scalars with padding, on LP64) change when one is
// added.
static_assert(sizeof(ElectronHostTables) == 11 * sizeof(std::vector<double>) + 80,
              "a field of ElectronHostTables is not in for_each_field");
static_assert(sizeof(TransportTables) ==
                  21 * sizeof(std::vector<double>) + 32 + sizeof(ElectronHostTables),
              "a field of TransportTables is not in for_each_field");

template <class T>
struct IsVector : std::false_type
{
};
template <class T>
struct IsVector<std::vector<T>> : std::true_type
{
};
} // namespace

std::string transport_table_key(TransportTableInputs const& in)
{
    std::ostringstream os;
    os << std::hexfloat;
    os << "mcdose transport tables, format " << table_format_version << '\n'
       << "mcdose " << BuildInfo::version << '\n'
       << "table code sha256 " << TableBuildStamp::code_sha256 << '\n'
       << "xraylib " << TableBuildStamp::xraylib_version << '\n'
       << "compiler " << TableBuildStamp::compiler << '\n'
       << "math library " << math_library() << '\n';
    PhysicsTableOptions const& o = in.physics;
    key_grid(os, "photon", o.photon_grid);
    key_grid(os, "electron", o.electron_grid);
    os << "compton binding " << o.compton_binding << ", delta-ray cut " << o.delta_cut_MeV
       << " MeV, bremsstrahlung cut " << o.brems_cut_MeV << " MeV, dosimetry " << o.dosimetry
       << '\n'
       << "condensed history " << in.condensed_history << ", max loss fraction "
       << in.max_loss_fraction << ", density effect " << static_cast<int>(in.density_effect)
       << '\n';
    for (std::size_t m = 0; m < in.materials.size(); ++m)
    {
        Material const& mat = in.materials[m];
        os << "material " << m << " '" << mat.name << "': density " << mat.density_g_cm3
           << " g/cm3, I " << mat.mean_excitation_energy_eV << " eV ("
           << static_cast<int>(mat.mean_excitation_source) << "), conductor " << mat.conductor
           << ", elements";
        for (MaterialComponent const& c : mat.components)
            os << ' ' << c.atomic_number << ':' << c.mass_fraction;
        os << '\n';
    }
    for (std::size_t m = 0; m < in.densities.size(); ++m)
    {
        os << "densities " << m << ": " << in.densities[m].min_g_cm3 << " to "
           << in.densities[m].max_g_cm3 << " g/cm3\n";
    }
    return os.str();
}

std::string to_bytes(TransportTables const& tables)
{
    ByteWriter w;
    w.value(table_format_version);
    for_each_field(tables,
                   [&w](auto const& x)
                   {
                       if constexpr (IsVector<std::decay_t<decltype(x)>>::value)
                           w.vector(x);
                       else
                           w.value(x);
                   });
    return w.release();
}

TransportTables transport_tables_from_bytes(std::string_view bytes)
{
    ByteReader r(bytes);
    int version = 0;
    r.value(version);
    MCDOSE_VALIDATE(version == table_format_version, << "transport tables of format " << version
                                                     << ", not " << table_format_version);
    TransportTables t;
    for_each_field(t,
                   [&r](auto& x)
                   {
                       if constexpr (IsVector<std::decay_t<decltype(x)>>::value)
                           r.vector(x);
                       else
                           r.value(x);
                   });
    MCDOSE_VALIDATE(r.left() == 0, << r.left() << " bytes after the transport tables");
    return t;
}

bool operator==(TransportTables const& a, TransportTables const& b)
{
    return to_bytes(a) == to_bytes(b);
}
} // namespace mcdose
