//! \file dose/DvhCsv.cc
#include "dose/DvhCsv.hh"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "core/AtomicFile.hh"

namespace mcdose
{
namespace
{
//! A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
std::string csv_field(std::string const& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

void figure_row(std::ostream& os, std::string const& structure, std::string const& figure,
                FigureWithSigma const& f, std::string const& unit)
{
    os << structure << ',' << figure << ',' << f.value << ',';
    if (std::isfinite(f.sigma))
        os << f.sigma;
    os << ',' << unit << '\n';
}
} // namespace

std::string dvh_curves_csv(DoseReport const& report)
{
    std::ostringstream os;
    os << std::setprecision(9);
    os << "structure,dose_" << (report.dose_unit == "Gy" ? "Gy" : "Gy_per_particle")
       << ",volume_cm3,volume_percent\n";
    for (auto const& f : report.dvhs)
    {
        std::string const name = csv_field(f.name);
        for (std::size_t b = 0; b < f.curve_dose.size(); ++b)
        {
            os << name << ',' << f.curve_dose[b] << ',' << f.curve_volume_cm3[b] << ','
               << (f.volume_cm3 > 0 ? 100 * f.curve_volume_cm3[b] / f.volume_cm3 : 0.0) << '\n';
        }
    }
    return os.str();
}

std::string dvh_figures_csv(DoseReport const& report)
{
    std::ostringstream os;
    os << std::setprecision(9);
    os << "structure,figure,value,sigma,unit\n";
    std::string const& u = report.dose_unit;
    for (auto const& f : report.dvhs)
    {
        std::string const name = csv_field(f.name);
        figure_row(os, name, "volume", {f.volume_cm3, std::nan("")}, "cm3");
        figure_row(os, name, "D_mean", f.d_mean, u);
        figure_row(os, name, "D_min", f.d_min, u);
        figure_row(os, name, "D_0.03cc", f.d_003cc, u);
        figure_row(os, name, "D98%", f.d98, u);
        figure_row(os, name, "D95%", f.d95, u);
        figure_row(os, name, "D50%", f.d50, u);
        figure_row(os, name, "D2%", f.d2, u);
        for (auto const& v : f.v_at)
        {
            std::ostringstream label;
            label << std::setprecision(6) << "V_" << v.dose;
            figure_row(os, name, label.str(), v.volume_cm3, "cm3");
            figure_row(os, name, label.str(), v.volume_percent, "%");
        }
    }
    return os.str();
}

std::vector<std::string> write_dvh_csv(std::string const& stem, DoseReport const& report)
{
    std::string const curves = stem + "_dvh.csv";
    std::string const figures = stem + "_dvh_figures.csv";
    write_text_atomically(curves, dvh_curves_csv(report));
    write_text_atomically(figures, dvh_figures_csv(report));
    return {curves, figures};
}
} // namespace mcdose
