//! \file study/OutputPlan.json.cc
#include "study/OutputPlan.hh"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/AtomicFile.hh"
#include "core/OutputSet.hh"
#include "io/InputError.hh"
#include "io/InputFile.hh"
#include "io/InputPath.hh"
#include "io/JsonInput.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
std::string const lock_name = ".mcdose.lock";

//! The study's input files, with the field that names each.
std::vector<PlannedOutput> study_inputs(StudyInput const& study)
{
    std::vector<PlannedOutput> inputs{{study.study_file, "the study file"}};
    auto add = [&](std::string const& path, std::string const& pointer)
    {
        if (!path.empty())
            inputs.push_back({path, pointer});
    };
    PhantomInput const& p = study.phantom;
    add(p.ct.image_path, p.pointer + "/image");
    add(p.material_image.material_image_path, p.pointer + "/material_image");
    add(p.material_image.density_image_path, p.pointer + "/density_image");
    for (auto const& r : study.structures.rt_structs)
        add(r.path, r.pointer);
    for (auto const& l : study.structures.label_images)
        add(l.path, l.pointer);
    for (auto const& s : study.sources)
    {
        add(s.calibration, s.pointer + "/calibration");
        if (s.spectrum)
            add(s.spectrum->file, s.pointer + "/spectrum");
        if (s.phase_space)
            add(s.phase_space->file, s.pointer + "/file");
        if (s.beam && s.beam->aperture)
            add(s.beam->aperture->path, s.pointer + "/aperture");
    }
    return inputs;
}

//! Refuse output files that overwrite each other or an input (the same file by path,
//! link or inode).
void check_output_names(StudyInput const& study, std::vector<PlannedOutput> const& planned)
{
    auto const inputs = study_inputs(study);
    std::map<std::string, PlannedOutput const*> seen;
    for (auto const& out : planned)
    {
        for (auto const& in : inputs)
        {
            if (same_file(out.path, in.path))
            {
                throw InputError(study.study_file, out.pointer,
                                 "output '" + out.path + "' would overwrite the input named by " +
                                     in.pointer + "; choose another name");
            }
        }
        // Two outputs clash by name (a link in an output's place is replaced, not followed).
        fs::path const p(out.path);
        std::string const name =
            comparable_path(p.has_parent_path() ? p.parent_path().string() : ".") + "/" +
            p.filename().string();
        auto const [it, inserted] = seen.emplace(name, &out);
        if (!inserted)
        {
            throw InputError(study.study_file, out.pointer,
                             "output '" + out.path + "' would overwrite the output asked for by " +
                                 it->second->pointer + "; choose another name");
        }
    }
}

//! The nearest existing ancestor of `dir` (itself if it exists).
fs::path existing_ancestor(fs::path dir)
{
    std::error_code ec;
    dir = fs::absolute(dir, ec);
    while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.parent_path())
        dir = dir.parent_path();
    return dir;
}

//! Refuse an output directory in a file system of the kernel's (/proc, /sys, /dev).
void check_not_kernel_directory(StudyInput const& study, std::string const& directory)
{
    std::string const resolved = comparable_path(directory);
    for (char const* root : {"/proc", "/sys", "/dev"})
    {
        std::string const r = root;
        if (resolved == r || resolved.compare(0, r.size() + 1, r + "/") == 0)
        {
            throw InputError(study.study_file, "/outputs/directory",
                             "'" + directory + "' is under " + r +
                                 ", a file system of the kernel, not for files; choose an "
                                 "output directory on a disk (or --output-dir)");
        }
    }
}

//! Refuse output names longer than the file system takes (NAME_MAX and PATH_MAX of the
//! directory, from pathconf).
void check_name_lengths(StudyInput const& study, OutputInput const& outputs,
                        fs::path const& existing)
{
    long const name_max = ::pathconf(existing.c_str(), _PC_NAME_MAX);
    long const path_max = ::pathconf(existing.c_str(), _PC_PATH_MAX);
    for (auto const& f : planned_outputs(outputs))
    {
        std::string const name = fs::path(f.path).filename().string();
        std::string const full = fs::absolute(f.path).string();
        if (name_max > 0 && long(name.size()) > name_max)
        {
            throw InputError(study.study_file, f.pointer,
                             "the file name '" + name.substr(0, 64) + "...' is " +
                                 std::to_string(name.size()) + " bytes long, more than the " +
                                 std::to_string(name_max) +
                                 " the file system takes; choose a shorter outputs.name");
        }
        if (path_max > 0 && long(full.size()) >= path_max)
        {
            throw InputError(study.study_file, f.pointer,
                             "the output path is " + std::to_string(full.size()) +
                                 " bytes long, more than the " + std::to_string(path_max - 1) +
                                 " the file system takes; choose a shorter directory or name");
        }
    }
}

void check_directory_writable(StudyInput const& study, OutputInput const& outputs)
{
    if (outputs.directory.empty())
    {
        throw InputError(study.study_file, "/outputs/directory",
                         "the output directory is empty; give a directory (\".\" for the "
                         "study file's folder)");
    }
    std::error_code ec;
    fs::path const dir(outputs.directory);
    check_not_kernel_directory(study, outputs.directory);
    fs::path const existing = existing_ancestor(dir);
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    {
        throw InputError(study.study_file, "/outputs/directory",
                         "'" + dir.string() + "' is not a directory; choose an output directory");
    }
    int const err = !fs::is_directory(existing, ec)                ? ENOTDIR
                    : ::access(existing.c_str(), W_OK | X_OK) != 0 ? errno
                                                                   : 0;
    if (err != 0)
    {
        throw InputError(study.study_file, "/outputs/directory",
                         "cannot write into '" + existing.string() + "' (" + std::strerror(err) +
                             "); choose a writable output directory (or --output-dir)");
    }
    check_name_lengths(study, outputs, existing);
}

//! Files of an earlier run under these names (planned outputs and manifest).
std::vector<std::string> existing_outputs(OutputInput const& outputs)
{
    std::vector<std::string> found;
    std::error_code ec;
    for (auto const& f : planned_outputs(outputs))
    {
        if (fs::exists(f.path, ec))
            found.push_back(f.path);
    }
    return found;
}

void refuse_existing(StudyInput const& study, OutputInput const& outputs)
{
    auto const found = existing_outputs(outputs);
    if (found.empty())
        return;
    throw InputError(study.study_file, "/outputs/if_exists",
                     "'" + found.front() + "'" +
                         (found.size() > 1 ? " and " + std::to_string(found.size() - 1) + " more"
                                           : std::string()) +
                         " exist from an earlier run; set \"if_exists\" to \"overwrite\" "
                         "or \"increment\", or choose another outputs.name or directory");
}

//! Files listed in an earlier run's manifest (inside `directory` only).
std::vector<std::string> manifest_files(std::string const& manifest, std::string const& directory)
{
    std::vector<std::string> files;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(manifest, ec)))
        return files;
    nlohmann::json const doc = parse_json_file(manifest);
    if (!doc.is_object() || !doc.contains("files") || !doc["files"].is_array())
        return files;
    for (auto const& f : doc["files"])
    {
        if (!f.is_string())
            continue;
        // Only plain names: a manifest never removes files outside its directory.
        std::string const name = fs::path(f.get<std::string>()).filename().string();
        if (!name.empty() && name != "." && name != ".." && name != lock_name)
            files.push_back((fs::path(directory) / name).string());
    }
    return files;
}

} // namespace

void remove_stale_temporaries(std::vector<std::string> const& paths)
{
    std::set<std::string> directories;
    for (auto const& path : paths)
    {
        fs::path const p(path);
        directories.insert(p.has_parent_path() ? p.parent_path().string() : ".");
    }
    for (auto const& d : directories)
        remove_stale_staging(d);
}

std::vector<PlannedOutput> planned_outputs(OutputInput const& outputs)
{
    std::string const stem = (fs::path(outputs.directory) / outputs.name).string();
    std::vector<PlannedOutput> planned;
    if (outputs.hdf5)
        planned.push_back({stem + ".h5", "/outputs/hdf5"});
    if (outputs.image_format != ImageFormat::none)
    {
        std::string const extension = to_cstring(outputs.image_format);
        planned.push_back({stem + "_dose." + extension, "/outputs/image_format"});
        planned.push_back({stem + "_uncertainty." + extension, "/outputs/image_format"});
    }
    if (outputs.rtdose)
    {
        planned.push_back({stem + "_dose.dcm", "/outputs/rtdose"});
        planned.push_back({stem + "_uncertainty.dcm", "/outputs/rtdose"});
    }
    if (outputs.depth_dose)
        planned.push_back({stem + "_depth_dose.csv", "/outputs/depth_dose"});
    for (std::size_t i = 0; i < outputs.lateral_profiles.size(); ++i)
    {
        planned.push_back({stem + "_" + outputs.lateral_profiles[i].name + ".csv",
                           "/outputs/lateral_profiles/" + std::to_string(i) + "/name"});
    }
    if (outputs.dvh)
    {
        planned.push_back({stem + "_dvh.csv", "/outputs/dvh"});
        planned.push_back({stem + "_dvh_figures.csv", "/outputs/dvh"});
    }
    if (outputs.summary)
        planned.push_back({stem + "_summary.json", "/outputs/summary"});
    if (outputs.phase_space)
        planned.push_back({stem + "_phase_space.mcpl", "/outputs/phase_space"});
    planned.push_back({manifest_path(outputs), "/outputs/name"});
    return planned;
}

std::string manifest_path(OutputInput const& outputs)
{
    return (fs::path(outputs.directory) / (outputs.name + "_manifest.json")).string();
}

bool outputs_of_interrupted_run(OutputInput const& outputs)
{
    std::string const manifest = manifest_path(outputs);
    std::error_code ec;
    if (!fs::is_regular_file(manifest, ec))
        return false;
    nlohmann::json const doc = parse_json_file(manifest);
    return doc.is_object() && doc.contains("complete") && doc["complete"].is_boolean() &&
           !doc["complete"].get<bool>();
}

void check_outputs(StudyInput const& study, OutputInput const& outputs)
{
    check_output_names(study, planned_outputs(outputs));
    check_directory_writable(study, outputs);
    if (outputs.if_exists == IfExists::error)
        refuse_existing(study, outputs);
}

namespace
{
//! `.mcdose.lock` in `directory`, never through a link: created (O_EXCL) when missing,
//! else opened as it is, never truncated; it must be a regular file. Sets `own`: a file
//! this run created, or one of this user's with no other name (its process id may be
//! written over).
int open_lock_file(std::string const& directory, bool& own)
{
    OpenedDirectory const dir(directory, (fs::path(directory) / lock_name).string());
    int const flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;
    int fd = ::openat(dir.fd(), lock_name.c_str(), flags | O_CREAT | O_EXCL, 0644);
    bool const created = fd >= 0;
    if (fd < 0 && errno == EEXIST)
    {
        fd = ::openat(dir.fd(), lock_name.c_str(), flags);
        if (fd < 0 && errno == EACCES) // another user's lock: a shared lock needs no write
            fd = ::openat(dir.fd(), lock_name.c_str(),
                          O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    }
    int const err = errno;
    MCDOSE_VALIDATE(
        fd >= 0, << "cannot lock the output directory '" << directory << "' ("
                 << (err == ELOOP ? std::string("its .mcdose.lock is a symbolic link")
                                  : std::string(std::strerror(err)))
                 << "); remove '" << lock_name
                 << "' if no run is writing there, or choose another outputs.directory");
    struct stat st = {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    {
        ::close(fd);
        MCDOSE_VALIDATE(false, << "cannot lock the output directory '" << directory << "': its "
                               << lock_name << " is not a regular file; remove it");
    }
    own = created || (st.st_uid == ::geteuid() && st.st_nlink == 1 && st.st_size <= 64);
    return fd;
}
} // namespace

OutputDirectoryLock::OutputDirectoryLock(std::string const& directory)
{
    bool own = false;
    fd_ = open_lock_file(directory, own);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    {
        char owner[32] = {};
        ssize_t const n = ::pread(fd_, owner, sizeof(owner) - 1, 0);
        ::close(fd_);
        fd_ = -1;
        MCDOSE_VALIDATE(
            false, << "another mcdose run"
                   << (n > 0 ? " (process " + std::string(owner, std::strcspn(owner, "\n")) + ")"
                             : std::string())
                   << " is writing into '" << directory
                   << "'; wait for it to end or choose another outputs.directory "
                      "(or --output-dir)");
    }
    // The process id, for the message above, written over the last one (padded, never
    // truncated), only in a file of this user's.
    if (own)
    {
        std::string pid = std::to_string(::getpid()) + "\n";
        pid.resize(24, ' ');
        (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
    }
}

void check_extra_output(StudyInput const& study, OutputInput const& outputs,
                        std::string const& path, std::string const& what, bool with_outputs)
{
    auto const check = [&](PlannedOutput const& other, char const* kind)
    {
        if (same_file(path, other.path))
        {
            throw InputError(path, "",
                             "the " + what + " would overwrite " + kind + " '" + other.path +
                                 "' (" + other.pointer + "); choose another file");
        }
    };
    for (auto const& in : study_inputs(study))
        check(in, "the study's input");
    if (with_outputs)
    {
        for (auto const& out : planned_outputs(outputs))
            check(out, "the study's output");
    }
}

OutputDirectoryLock::~OutputDirectoryLock()
{
    if (fd_ >= 0)
        ::close(fd_); // releases the lock; the file stays (removing it would race)
}

OutputDirectoryLock::OutputDirectoryLock(OutputDirectoryLock&& other) noexcept : fd_(other.fd_)
{
    other.fd_ = -1;
}

OutputDirectoryLock& OutputDirectoryLock::operator=(OutputDirectoryLock&& other) noexcept
{
    std::swap(fd_, other.fd_);
    return *this;
}

PreparedOutputs prepare_outputs(StudyInput const& study, OutputInput outputs)
{
    check_output_names(study, planned_outputs(outputs));
    check_directory_writable(study, outputs);
    std::error_code ec;
    fs::create_directories(outputs.directory, ec);
    MCDOSE_VALIDATE(!ec, << "cannot create output directory '" << outputs.directory
                         << "': " << ec.message() << "; check outputs.directory");
    PreparedOutputs prepared{outputs, OutputDirectoryLock(outputs.directory), nullptr, {}};
    remove_stale_staging(outputs.directory);
    if (outputs.if_exists == IfExists::error)
    {
        refuse_existing(study, outputs);
    }
    else if (outputs.if_exists == IfExists::overwrite)
    {
        // Replaced when this run's files are whole (commit_outputs), not before.
        prepared.replaced = manifest_files(manifest_path(outputs), outputs.directory);
    }
    else
    {
        std::string const base = outputs.name;
        for (int n = 2; !existing_outputs(prepared.outputs).empty(); ++n)
        {
            MCDOSE_VALIDATE(n < 100000, << "no free name '" << base << "_N' in '"
                                        << outputs.directory << "'; clean the directory");
            prepared.outputs.name = base + "_" + std::to_string(n);
        }
        check_output_names(study, planned_outputs(prepared.outputs));
    }
    std::vector<std::string> names;
    for (auto const& f : planned_outputs(prepared.outputs))
        names.push_back(fs::path(f.path).filename().string());
    prepared.set = std::make_unique<OutputSet>(
        outputs.directory, names, fs::path(manifest_path(prepared.outputs)).filename().string());
    return prepared;
}

std::vector<std::string> commit_outputs(PreparedOutputs const& prepared)
{
    std::vector<std::string> const moved = prepared.set->commit();
    std::set<std::string> written;
    for (auto const& m : moved)
        written.insert(fs::path(m).filename().string());
    // An earlier run's files that this run did not write over go with its manifest.
    std::error_code ec;
    for (auto const& old : prepared.replaced)
    {
        if (!written.count(fs::path(old).filename().string()))
            fs::remove(old, ec);
    }
    return moved;
}

void write_output_manifest(OutputInput const& outputs, std::vector<std::string> const& files,
                           bool complete)
{
    nlohmann::json j;
    j["format"] = "mcdose run manifest";
    j["name"] = outputs.name;
    j["complete"] = complete;
    std::vector<std::string> names;
    for (auto const& f : files)
        names.push_back(fs::path(f).filename().string());
    j["files"] = names;
    write_text_atomically(manifest_path(outputs), j.dump(2) + "\n");
}
} // namespace mcdose
