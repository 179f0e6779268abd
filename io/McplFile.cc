//! \file io/McplFile.cc
#include "io/McplFile.hh"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <unistd.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"

#if MCDOSE_USE_MCPL
#    include <mcpl.h>
#endif

namespace mcdose
{
#if MCDOSE_USE_MCPL
namespace
{
//! libmcpl's message for the current call; the handler must not return.
[[noreturn]] void throw_mcpl_error(char const* message)
{
    throw RuntimeError(std::string("MCPL: ") + (message ? message : "unknown error"));
}

void install_error_handler()
{
    static std::once_flag once;
    std::call_once(once, [] { mcpl_set_error_handler(&throw_mcpl_error); });
}

//! Run `f`, prefixing a libmcpl error with the file's path.
template <class F>
auto with_path(std::string const& path, F&& f)
{
    try
    {
        return f();
    }
    catch (RuntimeError const& e)
    {
        throw RuntimeError(path + ": " + e.what());
    }
}
} // namespace

bool mcpl_available()
{
    return true;
}

std::string mcpl_version()
{
    return MCPL_VERSION_STR;
}

struct McplReader::Impl
{
    mcpl_file_t file{nullptr};
};

McplReader::McplReader(std::string const& path) : impl_(std::make_unique<Impl>()), path_(path)
{
    install_error_handler();
    // libmcpl's own message for a missing file is "Unable to open file!": say which.
    MCDOSE_VALIDATE(::access(path.c_str(), R_OK) == 0, << path
                                                       << ": cannot read the phase-space file ("
                                                       << std::strerror(errno) << ")");
    with_path(path,
              [&]
              {
                  impl_->file = mcpl_open_file(path.c_str());
                  size_ = mcpl_hdr_nparticles(impl_->file);
                  char const* name = mcpl_hdr_srcname(impl_->file);
                  source_name_ = name ? name : "";
                  return 0;
              });
}

McplReader::~McplReader()
{
    if (impl_ && impl_->file.internal)
        mcpl_close_file(impl_->file);
}

bool McplReader::read(McplParticle& out)
{
    mcpl_particle_t const* p = with_path(path_, [&] { return mcpl_read(impl_->file); });
    if (!p)
    {
        std::uint64_t const at = this->position();
        MCDOSE_VALIDATE(at >= size_, << path_ << ": the file ends after " << at
                                     << " particles but its header announces " << size_
                                     << " (truncated?)");
        return false;
    }
    out.pdg_code = p->pdgcode;
    out.energy_MeV = p->ekin;
    for (int c = 0; c < 3; ++c)
    {
        out.position_cm[c] = p->position[c];
        out.direction[c] = p->direction[c];
    }
    out.weight = p->weight;
    return true;
}

std::uint64_t McplReader::position() const
{
    return mcpl_currentposition(impl_->file);
}

void McplReader::seek(std::uint64_t index)
{
    MCDOSE_VALIDATE(index <= size_,
                    << path_ << ": cannot seek to particle " << index << " of " << size_);
    with_path(path_, [&] { return mcpl_seek(impl_->file, index); });
}

struct McplWriter::Impl
{
    mcpl_outfile_t file{nullptr};
    std::string tmp; //!< the name libmcpl writes to
    std::unique_ptr<TemporaryFile> registered;
    bool open{false};
};

McplWriter::McplWriter(std::string const& path, std::string const& source_name,
                       std::vector<std::string> const& comments)
    : impl_(std::make_unique<Impl>()), path_(path)
{
    install_error_handler();
    // libmcpl appends ".mcpl" to a name without it.
    std::string const tmp = path + ".tmp." + std::to_string(::getpid()) + ".mcpl";
    with_path(path,
              [&]
              {
                  impl_->file = mcpl_create_outfile(tmp.c_str());
                  impl_->open = true;
                  impl_->tmp = mcpl_outfile_filename(impl_->file);
                  mcpl_hdr_set_srcname(impl_->file, source_name.c_str());
                  for (auto const& c : comments)
                      mcpl_hdr_add_comment(impl_->file, c.c_str());
                  return 0;
              });
    impl_->registered = std::make_unique<TemporaryFile>(impl_->tmp);
}

McplWriter::~McplWriter()
{
    if (!impl_ || !impl_->open)
        return;
    try
    {
        mcpl_close_outfile(impl_->file);
    }
    catch (...)
    {
    }
    std::remove(impl_->tmp.c_str());
}

void McplWriter::add(McplParticle const& in)
{
    MCDOSE_EXPECT(impl_->open);
    mcpl_particle_t p;
    std::memset(&p, 0, sizeof(p));
    p.pdgcode = in.pdg_code;
    p.ekin = in.energy_MeV;
    for (int c = 0; c < 3; ++c)
    {
        p.position[c] = in.position_cm[c];
        p.direction[c] = in.direction[c];
    }
    p.weight = in.weight;
    with_path(path_,
              [&]
              {
                  mcpl_add_particle(impl_->file, &p);
                  return 0;
              });
    ++count_;
}

void McplWriter::commit()
{
    MCDOSE_VALIDATE(impl_->open, << path_ << ": the phase-space file was already closed");
    with_path(path_,
              [&]
              {
                  mcpl_close_outfile(impl_->file);
                  return 0;
              });
    impl_->open = false;
    if (std::rename(impl_->tmp.c_str(), path_.c_str()) != 0)
    {
        int const err = errno;
        std::remove(impl_->tmp.c_str());
        MCDOSE_VALIDATE(false, << path_ << ": cannot rename the finished phase-space file ("
                               << std::strerror(err) << ")");
    }
    impl_->registered.reset();
}
#else
namespace
{
[[noreturn]] void no_mcpl()
{
    throw RuntimeError("this mcdose was built without MCPL, so it cannot read or write "
                       "phase-space files; install libmcpl-dev and rebuild with "
                       "-DMCDOSE_USE_MCPL=ON");
}
} // namespace

bool mcpl_available()
{
    return false;
}

std::string mcpl_version()
{
    return {};
}

struct McplReader::Impl
{
};
McplReader::McplReader(std::string const& path) : path_(path)
{
    no_mcpl();
}
McplReader::~McplReader() = default;
bool McplReader::read(McplParticle&)
{
    no_mcpl();
}
std::uint64_t McplReader::position() const
{
    no_mcpl();
}
void McplReader::seek(std::uint64_t)
{
    no_mcpl();
}

struct McplWriter::Impl
{
};
McplWriter::McplWriter(std::string const& path, std::string const&, std::vector<std::string> const&)
    : path_(path)
{
    no_mcpl();
}
McplWriter::~McplWriter() = default;
void McplWriter::add(McplParticle const&)
{
    no_mcpl();
}
void McplWriter::commit()
{
    no_mcpl();
}
#endif
} // namespace mcdose
