//! \file validation/DepthDoseComparison.cc
#include "validation/DepthDoseComparison.hh"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
std::vector<std::string> split_csv(std::string const& line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
        out.push_back(cell);
    return out;
}

std::size_t argmax(std::vector<double> const& v)
{
    return std::max_element(v.begin(), v.end()) - v.begin();
}
} // namespace

DepthDoseCurve read_depth_dose_csv(std::string const& path)
{
    std::ifstream in(path);
    MCDOSE_VALIDATE(in, << "cannot open depth-dose file '" << path << "'");
    std::string line;
    std::getline(in, line);
    auto const header = split_csv(line);
    std::map<std::string, std::size_t> col;
    for (std::size_t i = 0; i < header.size(); ++i)
        col[header[i]] = i;
    for (char const* name : {"z_lo_cm", "z_hi_cm", "edep_MeV", "edep_sigma_MeV"})
    {
        MCDOSE_VALIDATE(col.count(name), << "'" << path << "': missing column '" << name
                                         << "' (header: " << line << ")");
    }
    DepthDoseCurve d;
    int row = 1;
    while (std::getline(in, line))
    {
        ++row;
        if (line.empty())
            continue;
        auto const cells = split_csv(line);
        auto get = [&](char const* name)
        {
            std::size_t const c = col[name];
            MCDOSE_VALIDATE(c < cells.size(),
                            << "'" << path << "' row " << row << ": too few columns");
            // NaN or infinite bins would pass or fail any comparison silently.
            double x = std::nan("");
            std::size_t used = 0;
            try
            {
                x = std::stod(cells[c], &used);
            }
            catch (std::exception const&)
            {
                used = 0;
            }
            MCDOSE_VALIDATE(used > 0 && std::isfinite(x),
                            << "'" << path << "' row " << row << ", column " << name << ": '"
                            << cells[c].substr(0, 40)
                            << "' is not a finite number; repair the file (every bin needs a "
                               "finite value and uncertainty)");
            return x;
        };
        d.lo_cm.push_back(get("z_lo_cm"));
        d.hi_cm.push_back(get("z_hi_cm"));
        d.edep_MeV.push_back(get("edep_MeV"));
        d.edep_sigma_MeV.push_back(get("edep_sigma_MeV"));
    }
    MCDOSE_VALIDATE(!d.lo_cm.empty(), << "'" << path << "' has no rows");
    return d;
}

DepthDoseComparison compare_depth_dose(DepthDoseCurve const& test, DepthDoseCurve const& ref,
                                       DepthDoseComparisonOptions const& o, std::ostream& os)
{
    MCDOSE_VALIDATE(test.lo_cm.size() == ref.lo_cm.size(),
                    << "depth-dose grids differ: " << test.lo_cm.size() << " bins vs "
                    << ref.lo_cm.size() << " in the reference");
    DepthDoseComparison r;
    std::size_t const it = argmax(test.edep_MeV), ir = argmax(ref.edep_MeV);
    r.test_max_MeV = test.edep_MeV[it];
    r.ref_max_MeV = ref.edep_MeV[ir];
    r.test_depth_of_max_cm = test.mid_cm(it);
    r.ref_depth_of_max_cm = ref.mid_cm(ir);
    for (std::size_t i = 0; i < ref.edep_MeV.size(); ++i)
    {
        r.test_total_MeV += test.edep_MeV[i];
        r.ref_total_MeV += ref.edep_MeV[i];
    }
    os << std::fixed << std::setprecision(4)
       << "   z_mid_cm      ref_MeV     test_MeV   diff/max  allowed/max\n";
    for (std::size_t i = 0; i < ref.edep_MeV.size(); ++i)
    {
        MCDOSE_VALIDATE(std::fabs(test.lo_cm[i] - ref.lo_cm[i]) < 1e-6,
                        << "depth-dose bin " << i << " starts at " << test.lo_cm[i]
                        << " cm, the reference at " << ref.lo_cm[i] << " cm");
        if (ref.lo_cm[i] < o.z_min_cm - 1e-9 || ref.hi_cm[i] > o.z_max_cm + 1e-9)
            continue;
        ++r.bins_compared;
        double const diff = (test.edep_MeV[i] - ref.edep_MeV[i]) / r.ref_max_MeV;
        double const sigma =
            std::hypot(test.edep_sigma_MeV[i], ref.edep_sigma_MeV[i]) / r.ref_max_MeV;
        double const allowed = o.tolerance_of_max + o.sigmas * sigma;
        bool const bad = std::fabs(diff) > allowed;
        r.bins_failed += bad;
        r.mean_abs_diff_of_max += std::fabs(diff);
        if (std::fabs(diff) > std::fabs(r.worst_diff_of_max))
        {
            r.worst_diff_of_max = diff;
            r.worst_z_cm = ref.mid_cm(i);
        }
        os << std::setw(11) << ref.mid_cm(i) << std::scientific << std::setprecision(4)
           << std::setw(13) << ref.edep_MeV[i] << std::setw(13) << test.edep_MeV[i] << std::fixed
           << std::setw(11) << diff << std::setw(11) << allowed << (bad ? "  FAIL" : "") << '\n';
    }
    if (r.bins_compared > 0)
        r.mean_abs_diff_of_max /= r.bins_compared;
    os << "bins compared " << r.bins_compared << ", failed " << r.bins_failed << "; worst diff "
       << r.worst_diff_of_max << " of max at z = " << r.worst_z_cm << " cm\ndepth of max: test "
       << r.test_depth_of_max_cm << " cm, reference " << r.ref_depth_of_max_cm
       << " cm\ntotal energy deposited per particle: test " << r.test_total_MeV
       << " MeV, reference " << r.ref_total_MeV << " MeV (ratio "
       << r.test_total_MeV / r.ref_total_MeV << ")\n";
    return r;
}

double depth_dose_r50_cm(DepthDoseCurve const& c)
{
    auto const& d = c.edep_MeV;
    MCDOSE_VALIDATE(d.size() >= 3, << "depth-dose curve has fewer than 3 bins");
    std::size_t const im = argmax(d);
    double const half = 0.5 * d[im];
    for (std::size_t k = im; k + 1 < d.size(); ++k)
    {
        if (d[k] >= half && d[k + 1] < half)
            return c.mid_cm(k) +
                   (d[k] - half) / (d[k] - d[k + 1]) * (c.mid_cm(k + 1) - c.mid_cm(k));
    }
    MCDOSE_VALIDATE(false, << "depth-dose curve never falls to 50 % of its maximum");
    return 0;
}

double depth_dose_practical_range_cm(DepthDoseCurve const& c)
{
    auto const& d = c.edep_MeV;
    MCDOSE_VALIDATE(d.size() >= 3, << "depth-dose curve has fewer than 3 bins");
    std::size_t const im = argmax(d);
    // The fall-off's straight part: the bins after the maximum from the last
    // one above 70 % to the first one below 30 % of the maximum. A least-squares
    // line through them is the tangent at the inflection point; it is far less
    // noisy than the steepest finite difference of fine bins (which also
    // picks the largest noise excursion), so Rp is stable from seed to seed.
    std::size_t k_hi = im;
    while (k_hi + 1 < d.size() && d[k_hi + 1] >= 0.7 * d[im])
        ++k_hi;
    std::size_t k_lo = k_hi;
    while (k_lo < d.size() && d[k_lo] >= 0.3 * d[im])
        ++k_lo;
    MCDOSE_VALIDATE(k_lo < d.size(), << "depth-dose curve never falls below 30 % of its maximum");
    double sz = 0, sd = 0, szz = 0, szd = 0;
    double n = 0;
    for (std::size_t k = k_hi; k <= k_lo; ++k)
    {
        double const z = c.mid_cm(k);
        sz += z;
        sd += d[k];
        szz += z * z;
        szd += z * d[k];
        n += 1;
    }
    double const denom = n * szz - sz * sz;
    MCDOSE_VALIDATE(n >= 3 && denom > 0, << "depth-dose fall-off spans fewer than 3 bins");
    double const slope = (n * szd - sz * sd) / denom;
    double const intercept = (sd - slope * sz) / n;
    MCDOSE_VALIDATE(slope < 0, << "depth-dose curve has no distal fall-off");
    std::size_t k5 = k_lo;
    while (k5 < d.size() && d[k5] >= 0.05 * d[im])
        ++k5;
    MCDOSE_VALIDATE(k5 < d.size(), << "depth-dose curve never falls below 5 % of its maximum");
    double const z5 = c.mid_cm(k5);
    double sum = 0;
    int nb = 0;
    for (std::size_t k = k5; k < d.size(); ++k)
    {
        if (c.mid_cm(k) >= z5 + 0.5 && c.mid_cm(k) <= z5 + 2.5)
        {
            sum += d[k];
            ++nb;
        }
    }
    double const background = nb > 0 ? sum / nb : 0.0;
    return (background - intercept) / slope;
}
} // namespace mcdose
