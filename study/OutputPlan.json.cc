//! \file study/OutputPlan.json.cc
#include "study/OutputPlan.hh"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <sys/file.h>
#include <unistd.h>

#include "core/AtomicFile.hh"
#include "io/InputError.hh"
#include "io/InputFile.hh"
#include "io/JsonInput.hh"

namespace fs = std::filesystem;

namespace mcdose
{
namespace
{
std::string const lock_name = ".mcdose.lock";

//! A path for comparison: absolute and normalised, links resolved where they exist.
std::string comparable(std::string const& path)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? fs::absolute(path).lexically_normal().string() : p.string();
}

//! The study's input files, with the field that names each.
std::vector<PlannedOutput> study_inputs(StudyInput const& study)
{
    std::vector<PlannedOutput> inputs{{study.study_file, "the study file"}};
    PhantomInput const& p = study.phantom;
    if (!p.ct.image_path.empty())
        inputs.push_back({p.ct.image_path, p.pointer + "/image"});
    if (!p.material_image.material_image_path.empty())
        inputs.push_back({p.material_image.material_image_path, p.pointer + "/material_image"});
    if (!p.material_image.density_image_path.empty())
        inputs.push_back({p.material_image.density_image_path, p.pointer + "/density_image"});
    return inputs;
}

//! Refuse output files that overwrite each other or an input.
void check_output_names(StudyInput const& study, std::vector<PlannedOutput> const& planned)
{
    auto const inputs = study_inputs(study);
    std::map<std::string, PlannedOutput const*> seen;
    for (auto const& in : inputs)
        seen[comparable(in.path)] = &in;
    for (auto const& out : planned)
    {
        auto const [it, inserted] = seen.emplace(comparable(out.path), &out);
        if (inserted)
            continue;
        bool const is_input = std::any_of(inputs.begin(), inputs.end(),
                                          [&](auto const& in) { return &in == it->second; });
        throw InputError(study.study_file, out.pointer,
                         "output '" + out.path + "' would overwrite " +
                             (is_input ? "the input named by " + it->second->pointer
                                       : "the output asked for by " + it->second->pointer) +
                             "; choose another name");
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

void check_directory_writable(StudyInput const& study, OutputInput const& outputs)
{
    std::error_code ec;
    fs::path const dir = outputs.directory.empty() ? fs::path(".") : fs::path(outputs.directory);
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
    if (!fs::is_regular_file(manifest, ec))
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
    std::error_code ec;
    for (auto const& path : paths)
    {
        fs::path const final_path(path);
        std::string const prefix = final_path.filename().string() + ".tmp.";
        fs::path const dir = final_path.has_parent_path() ? final_path.parent_path() : ".";
        for (auto const& entry : fs::directory_iterator(dir, ec))
        {
            std::string const file = entry.path().filename().string();
            if (file.compare(0, prefix.size(), prefix) != 0)
                continue;
            // `<path>.tmp.<pid>`, or `<path>.tmp.<pid>.<ext>` (an image being staged).
            std::string const pid_text = file.substr(prefix.size(), 9);
            std::size_t const digits = pid_text.find_first_not_of("0123456789");
            if (digits == 0 || pid_text.empty())
                continue;
            pid_t const pid = static_cast<pid_t>(std::stol(pid_text.substr(0, digits)));
            if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
                fs::remove(entry.path(), ec);
        }
    }
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

OutputDirectoryLock::OutputDirectoryLock(std::string const& directory)
{
    std::string const path = (fs::path(directory) / lock_name).string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    MCDOSE_VALIDATE(fd_ >= 0, << "cannot write into the output directory '" << directory << "' ("
                              << std::strerror(errno)
                              << "); choose a writable outputs.directory (or --output-dir)");
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
    std::string const pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) == 0)
        (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
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
    PreparedOutputs prepared{outputs, OutputDirectoryLock(outputs.directory)};
    std::vector<std::string> paths;
    for (auto const& f : planned_outputs(outputs))
        paths.push_back(f.path);
    remove_stale_temporaries(paths);
    if (outputs.if_exists == IfExists::error)
    {
        refuse_existing(study, outputs);
    }
    else if (outputs.if_exists == IfExists::overwrite)
    {
        std::string const manifest = manifest_path(outputs);
        for (auto const& f : manifest_files(manifest, outputs.directory))
            fs::remove(f, ec);
        fs::remove(manifest, ec);
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
    return prepared;
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
