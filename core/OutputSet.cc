//! \file core/OutputSet.cc
#include "core/OutputSet.hh"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/StagingDirectory.hh"

namespace mcdose
{
namespace
{
//! The live sets (a run has one; a process may hold several, one per directory).
std::mutex g_sets_mutex;
std::vector<OutputSet*> g_sets;
} // namespace

OutputSet::OutputSet(std::string const& directory, std::vector<std::string> const& names,
                     std::string last)
    : names_(names.begin(), names.end()), last_(std::move(last))
{
    MCDOSE_EXPECT(names_.count(last_) == 1);
    dir_ = std::make_unique<OpenedDirectory>(directory, directory + "/" + last_);
    struct stat st = {};
    MCDOSE_VALIDATE(::fstat(dir_->fd(), &st) == 0,
                    << "cannot write into '" << directory << "' (" << std::strerror(errno) << ")");
    dev_ = st.st_dev;
    ino_ = st.st_ino;
    staging_ = std::make_shared<StagingDirectory>(*dir_, directory + "/" + last_);
    std::lock_guard<std::mutex> const lock(g_sets_mutex);
    g_sets.push_back(this);
}

OutputSet::~OutputSet()
{
    std::lock_guard<std::mutex> const lock(g_sets_mutex);
    g_sets.erase(std::remove(g_sets.begin(), g_sets.end(), this), g_sets.end());
}

std::shared_ptr<StagingDirectory> OutputSet::holder(OpenedDirectory const& dir,
                                                    std::string const& name, OutputSet** set)
{
    std::lock_guard<std::mutex> const lock(g_sets_mutex);
    if (g_sets.empty())
        return nullptr;
    struct stat st = {};
    if (::fstat(dir.fd(), &st) != 0)
        return nullptr;
    for (OutputSet* s : g_sets)
    {
        if (s->staging_ && s->dev_ == st.st_dev && s->ino_ == st.st_ino && s->names_.count(name))
        {
            *set = s;
            return s->staging_;
        }
    }
    return nullptr;
}

bool OutputSet::holds(std::string const& path)
{
    std::size_t const slash = path.find_last_of('/');
    std::string const dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    std::string const name = slash == std::string::npos ? path : path.substr(slash + 1);
    OutputSet* set = nullptr;
    return bool(holder(OpenedDirectory(dir, path), name, &set));
}

void OutputSet::ready(std::string const& name)
{
    std::lock_guard<std::mutex> const lock(mutex_);
    if (std::find(ready_.begin(), ready_.end(), name) == ready_.end())
    {
        ready_.push_back(name);
        registered_.push_back(std::make_unique<TemporaryFile>(staging_->entry_path(name)));
    }
}

std::vector<std::string> OutputSet::commit()
{
    MCDOSE_VALIDATE(staging_, << "internal: the outputs in '" << dir_->path()
                              << "' were already moved in place");
    std::vector<std::string> order;
    {
        std::lock_guard<std::mutex> const lock(mutex_);
        order = ready_;
    }
    // The last (the manifest) after all the others: a manifest never lists a file that
    // is not in place.
    std::stable_partition(order.begin(), order.end(),
                          [&](std::string const& n) { return n != last_; });
    // Nothing moves unless all can: a directory in a file's place fails before any does.
    for (auto const& name : order)
    {
        struct stat st = {};
        MCDOSE_VALIDATE(::fstatat(dir_->fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                            !S_ISDIR(st.st_mode),
                        << "cannot write '" << dir_->path() << "/" << name
                        << "': a directory is in its place; remove it or choose another "
                           "outputs.name");
    }
    std::vector<std::string> paths;
    for (auto const& name : order)
    {
        MCDOSE_VALIDATE(::renameat(staging_->fd(), name.c_str(), dir_->fd(), name.c_str()) == 0,
                        << "cannot move '" << name << "' into '" << dir_->path()
                        << "': " << std::strerror(errno) << "; check the output directory");
        paths.push_back(dir_->path() + "/" + name);
    }
    {
        std::lock_guard<std::mutex> const lock(g_sets_mutex);
        g_sets.erase(std::remove(g_sets.begin(), g_sets.end(), this), g_sets.end());
    }
    registered_.clear();
    staging_.reset();
    return paths;
}
} // namespace mcdose
