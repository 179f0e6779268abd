//! \file io/McplFile.cc
#include "io/McplFile.hh"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <unistd.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "io/McplRecords.hh"

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

//! Particles decoded per read of the records.
constexpr std::size_t direct_block = 4096;

bool host_is_little_endian()
{
    std::uint16_t const one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

//! Refuse a file that ends after `read` particles when its header announces `size`.
void check_not_truncated(bool whole, std::string const& path, std::uint64_t read,
                         std::uint64_t size)
{
    MCDOSE_VALIDATE(whole, << path << ": the file ends after " << read
                           << " particles but its header announces " << size << " (truncated?)");
}

//! Read `bytes` at `offset` (fewer only at the end of the file); throws on an error.
std::size_t read_at(int fd, unsigned char* to, std::size_t bytes, std::uint64_t offset,
                    std::string const& path)
{
    std::size_t done = 0;
    while (done < bytes)
    {
        ssize_t const n = ::pread(fd, to + done, bytes - done, off_t(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        MCDOSE_VALIDATE(n >= 0, << path << ": cannot read the phase-space file ("
                                << std::strerror(errno) << ")");
        if (n == 0)
            break;
        done += std::size_t(n);
    }
    return done;
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

/*!
 * libmcpl's file handle and, where the file allows (uncompressed, format 3, this
 * machine's byte order), the records read directly: a block of them with one
 * read, decoded by io/McplRecords (libmcpl reads and decodes one particle per
 * call).
 */
struct McplReader::Impl
{
    mcpl_file_t file{nullptr};
    int fd{-1}; //!< the file for direct reading (-1: libmcpl reads)
    McplRecordLayout layout;
    std::uint64_t first_record_byte{0};
    std::vector<unsigned char> raw;  //!< the block's records
    std::vector<McplParticle> block; //!< decoded
    std::uint64_t block_first{0};    //!< index of block[0]
    std::size_t next{0};             //!< next in block

    Impl() = default;
    Impl(Impl const&) = delete;
    Impl& operator=(Impl const&) = delete;
    ~Impl()
    {
        if (fd >= 0)
            ::close(fd);
    }
    std::uint64_t position() const { return block_first + next; }

    /*!
     * Set up direct reading where libmcpl would read the records with plain reads,
     * in format 3 and this machine's byte order (a gzipped file starts with other
     * bytes than "MCPL"), and the records have the size the header gives.
     */
    void open_direct(std::string const& path)
    {
        if (mcpl_hdr_version(file) != 3 || !mcpl_hdr_little_endian(file) ||
            !host_is_little_endian())
            return;
        McplRecordLayout l;
        l.single_precision = !mcpl_hdr_has_doubleprec(file);
        l.polarisation = mcpl_hdr_has_polarisation(file) != 0;
        l.universal_weight = mcpl_hdr_universal_weight(file);
        l.universal_pdg_code = mcpl_hdr_universal_pdgcode(file);
        l.user_flags = mcpl_hdr_has_userflags(file) != 0;
        if (int(l.record_bytes()) != mcpl_hdr_particle_size(file))
            return;
        int const f = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (f < 0)
            return;
        unsigned char magic[4] = {0, 0, 0, 0};
        if (read_at(f, magic, 4, 0, path) != 4 || std::memcmp(magic, "MCPL", 4) != 0)
        {
            ::close(f);
            return;
        }
        fd = f;
        layout = l;
        first_record_byte = mcpl_hdr_header_size(file);
    }

    //! Read and decode the block of records that starts at the current position.
    void read_block(std::uint64_t size, std::string const& path)
    {
        std::uint64_t const first = this->position();
        std::size_t const count = std::size_t(std::min<std::uint64_t>(direct_block, size - first));
        std::size_t const bytes = layout.record_bytes();
        raw.resize(count * bytes);
        std::size_t const got =
            read_at(fd, raw.data(), count * bytes, first_record_byte + first * bytes, path);
        std::size_t const whole = got / bytes;
        check_not_truncated(whole > 0, path, first, size);
        block.resize(whole);
        decode_mcpl_records(layout, raw.data(), whole, block.data());
        block_first = first;
        next = 0;
    }
};

McplReader::McplReader(std::string const& path, bool blocks)
    : impl_(std::make_unique<Impl>()), path_(path)
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
    if (blocks)
        impl_->open_direct(path);
}

McplReader::~McplReader()
{
    if (impl_ && impl_->file.internal)
        mcpl_close_file(impl_->file);
}

bool McplReader::read(McplParticle& out)
{
    Impl& impl = *impl_;
    if (impl.fd >= 0)
    {
        if (impl.next == impl.block.size())
        {
            if (impl.position() >= size_)
                return false;
            impl.read_block(size_, path_);
        }
        out = impl.block[impl.next++];
        return true;
    }
    mcpl_particle_t const* p = with_path(path_, [&] { return mcpl_read(impl.file); });
    if (!p)
    {
        std::uint64_t const at = this->position();
        check_not_truncated(at >= size_, path_, at, size_);
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
    if (impl_->fd >= 0)
        return impl_->position();
    return mcpl_currentposition(impl_->file);
}

bool McplReader::reads_blocks() const
{
    return impl_->fd >= 0;
}

void McplReader::seek(std::uint64_t index)
{
    MCDOSE_VALIDATE(index <= size_,
                    << path_ << ": cannot seek to particle " << index << " of " << size_);
    if (impl_->fd >= 0)
    {
        impl_->block.clear();
        impl_->block_first = index;
        impl_->next = 0;
        return;
    }
    with_path(path_, [&] { return mcpl_seek(impl_->file, index); });
}

struct McplWriter::Impl
{
    mcpl_outfile_t file{nullptr};
    std::unique_ptr<StagedFile> staged; //!< where libmcpl writes (see core/AtomicFile.hh)
    bool open{false};
};

McplWriter::McplWriter(std::string const& path, std::string const& source_name,
                       std::vector<std::string> const& comments)
    : impl_(std::make_unique<Impl>()), path_(path)
{
    install_error_handler();
    // libmcpl appends ".mcpl" to a name without it.
    MCDOSE_VALIDATE(path.size() > 5 && path.compare(path.size() - 5, 5, ".mcpl") == 0,
                    << path << ": a phase-space file's name must end in .mcpl");
    impl_->staged = std::make_unique<StagedFile>(path);
    with_path(path,
              [&]
              {
                  impl_->file = mcpl_create_outfile(impl_->staged->path().c_str());
                  impl_->open = true;
                  mcpl_hdr_set_srcname(impl_->file, source_name.c_str());
                  for (auto const& c : comments)
                      mcpl_hdr_add_comment(impl_->file, c.c_str());
                  return 0;
              });
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
    // The staged file goes with impl_->staged.
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
    impl_->staged->commit();
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
McplReader::McplReader(std::string const& path, bool) : path_(path)
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
bool McplReader::reads_blocks() const
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
