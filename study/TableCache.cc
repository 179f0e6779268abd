//! \file study/TableCache.cc
#include "study/TableCache.hh"

#include <chrono>
#include <iomanip>
#include <sstream>

#include "core/Assert.hh"
#include "io/CacheFile.hh"

namespace mcdose
{
namespace
{
//! The kind written into each file: another kind of table never passes for this one.
constexpr char cache_kind[] = "mcdose transport tables";
constexpr char cache_stem[] = "transport-tables";
} // namespace

std::string TableCacheResult::describe() const
{
    std::ostringstream os;
    os << std::setprecision(3);
    switch (outcome)
    {
    case TableCacheOutcome::loaded:
        os << "read from the cache in " << seconds << " s (" << path << ")";
        break;
    case TableCacheOutcome::stored:
        os << "built in " << seconds << " s and cached (" << path << ")";
        break;
    case TableCacheOutcome::built:
        os << "built in " << seconds << " s, not cached";
        break;
    }
    return os.str();
}

TableCacheResult load_or_build_transport_tables(TransportTableInputs const& inputs,
                                                TableCacheSettings const& settings)
{
    auto const t0 = std::chrono::steady_clock::now();
    TableCacheResult result;
    auto const finish = [&]
    {
        result.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return result;
    };
    std::string const directory =
        settings.directory.empty() ? default_cache_directory() : settings.directory;
    // A directory another user could write is neither read nor written: one warning.
    std::string const untrusted = directory.empty() ? "" : cache_directory_problem(directory);
    if (!settings.enabled || directory.empty() || !untrusted.empty())
    {
        if (settings.enabled && directory.empty())
        {
            result.warnings.push_back(std::string("physics tables not cached: no cache "
                                                  "directory (set ") +
                                      cache_directory_variable + ", XDG_CACHE_HOME or HOME)");
        }
        else if (settings.enabled)
        {
            result.warnings.push_back("physics tables not cached: the cache directory '" +
                                      directory + "' is not used (" + untrusted + "); set " +
                                      cache_directory_variable + " to a directory of your own");
        }
        result.tables = std::make_shared<TransportTables const>(build_transport_tables(inputs));
        return finish();
    }

    std::string const key = transport_table_key(inputs);
    result.path = cache_file_path(directory, cache_stem, key);
    CacheFileRead const read = read_cache_file(result.path, cache_kind, key);
    std::string problem = read.problem;
    if (read.payload)
    {
        try
        {
            result.tables =
                std::make_shared<TransportTables const>(transport_tables_from_bytes(*read.payload));
            result.outcome = TableCacheOutcome::loaded;
            return finish();
        }
        catch (RuntimeError const& e)
        {
            problem = e.what();
        }
    }
    if (read.exists)
    {
        result.warnings.push_back("ignored the cached physics tables '" + result.path + "' (" +
                                  problem + "); rebuilt them");
    }
    result.tables = std::make_shared<TransportTables const>(build_transport_tables(inputs));
    result.outcome = TableCacheOutcome::stored;
    try
    {
        write_cache_file(result.path, cache_kind, key, to_bytes(*result.tables));
    }
    catch (RuntimeError const& e)
    {
        result.warnings.push_back(std::string("physics tables not cached: ") + e.what());
        result.outcome = TableCacheOutcome::built;
        result.path.clear();
    }
    return finish();
}
} // namespace mcdose
