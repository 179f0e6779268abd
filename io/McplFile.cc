//! \file io/McplFile.cc
#include "io/McplFile.hh"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "io/GzipStream.hh"
#include "io/InputFile.hh"
#include "io/McplHeader.hh"
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

//! The first comment of a file mcdose writes, before the primary histories are known:
//! the record's text with room for 20 digits, filled in place at commit.
std::string histories_placeholder()
{
    std::string const prefix = mcpl_primary_histories_comment(0);
    return prefix.substr(0, prefix.size() - 1) + std::string(20, ' ');
}

//! Fill the placeholder in the header of `tmp` with `histories` (the header's length kept).
void record_histories(std::string const& tmp, std::string const& path, std::uint64_t histories)
{
    std::string const placeholder = histories_placeholder();
    std::string text = mcpl_primary_histories_comment(histories);
    text.resize(placeholder.size(), ' ');
    int const fd = ::open(tmp.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    MCDOSE_VALIDATE(fd >= 0, << path << ": cannot complete the phase-space file ("
                             << std::strerror(errno) << ")");
    std::string head(4096, '\0');
    ssize_t const n = ::pread(fd, head.data(), head.size(), 0);
    std::size_t const at =
        n > 0 ? std::string(head.data(), std::size_t(n)).find(placeholder) : std::string::npos;
    bool const ok = at != std::string::npos &&
                    ::pwrite(fd, text.data(), text.size(), off_t(at)) == ssize_t(text.size());
    ::close(fd);
    MCDOSE_VALIDATE(ok, << path
                        << ": cannot record the primary histories in the phase-space "
                           "file's header");
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
 * The file, its header as mcdose read and checked it (io/McplHeader.hh) and, in format
 * 3, the records read directly: a block of them with one read, decoded by
 * io/McplRecords (libmcpl reads and decodes one particle per call). Format 2 files
 * (and every file where blocks are not asked for) are read by libmcpl, which then
 * sees only a header mcdose checked.
 */
struct McplReader::Impl
{
    mcpl_file_t file{nullptr}; //!< libmcpl's handle (null: read here)
    int fd{-1};
    std::unique_ptr<GzipStream> gz; //!< a gzipped file's inflated bytes (null: not gzipped)
    McplHeader header;
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

    //! Open without blocking (a FIFO put in the file's place is refused, not waited on).
    std::uint64_t open(std::string const& path)
    {
        require_regular_file(path, "phase-space file");
        fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        MCDOSE_VALIDATE(fd >= 0, << path << ": cannot read the phase-space file ("
                                 << std::strerror(errno) << ")");
        struct stat st;
        MCDOSE_VALIDATE(::fstat(fd, &st) == 0 && S_ISREG(st.st_mode),
                        << path
                        << ": the phase-space file is not a regular file; give an "
                           "MCPL file");
        if (is_gzip_file(fd))
            gz = std::make_unique<GzipStream>(fd, path, max_mcpl_header_bytes);
        return std::uint64_t(st.st_size);
    }

    //! The particles of a gzipped file: the header's count, bounded by what the file can
    //! inflate to (a file never closed by its writer, count 0 with records after the
    //! header, is refused), or with `recover` the whole records the stream holds (inflated
    //! once, streaming, to count them).
    std::uint64_t gzip_count(std::string const& path, std::uint64_t file_bytes, bool recover)
    {
        std::uint64_t const pb = header.particle_bytes;
        std::uint64_t const most = max_deflate_ratio * file_bytes / pb;
        MCDOSE_VALIDATE(header.particles <= most,
                        << path << ": the MCPL header counts " << header.particles
                        << " particles, more than a compressed file of " << file_bytes
                        << " bytes can hold (" << most << "); the file is corrupt or truncated");
        std::uint64_t count = header.particles;
        if (recover)
        {
            gz->set_limit(header.header_bytes + most * pb + 1);
            count = gz->skip(most * pb + 1) / pb;
            gz->rewind();
        }
        else if (count == 0)
        {
            gz->set_limit(header.header_bytes + 1);
            unsigned char byte;
            MCDOSE_VALIDATE(gz->read(&byte, 1) == 0,
                            << path << ": the MCPL file was not closed by the program that "
                            << "wrote it (its header counts 0 particles, but records follow); "
                            << "read the whole particles there are with \"recover\": true in "
                            << "the phase-space source");
        }
        gz->set_limit(header.header_bytes + count * pb + 1);
        return count;
    }

    //! Read and check the header; returns the particles to read.
    std::uint64_t read_header(std::string const& path, std::uint64_t file_bytes, bool recover,
                              bool scanned)
    {
        std::uint64_t at = 0;
        header = read_mcpl_header(
            [&](void* to, std::size_t n)
            {
                std::size_t const got =
                    gz ? gz->read(to, n)
                       : read_at(fd, static_cast<unsigned char*>(to), n, at, path);
                at += got;
                return got;
            },
            gz ? 0 : file_bytes, path);
        if (gz)
            return this->gzip_count(path, file_bytes, recover);
        return scanned && !recover ? header.particles
                                   : mcpl_particle_count(header, file_bytes, recover, path);
    }

    //! Let libmcpl read a file whose header was checked (the particle count agrees).
    void open_libmcpl(std::string const& path, bool recover)
    {
        MCDOSE_VALIDATE(!gz, << path << ": a gzipped MCPL file is read in format 3 only; "
                             << "gunzip this one (format " << header.version << ") first");
        MCDOSE_VALIDATE(!recover, << path << ": \"recover\" reads MCPL format 3 files only; "
                                  << "finish this one with mcpltool --repair");
        with_path(path,
                  [&]
                  {
                      file = mcpl_open_file(path.c_str());
                      return 0;
                  });
    }

    /*!
     * `bytes` of the records of a gzipped file from record `first` on into `raw`: the
     * stream inflated on from where it is, or again from its start to go back. Where the
     * read reaches the last of the `size` particles, data after it are refused.
     */
    std::size_t read_stream(std::uint64_t first, std::size_t bytes, std::uint64_t size,
                            std::string const& path)
    {
        std::uint64_t const at = header.header_bytes + first * header.particle_bytes;
        if (gz->position() > at)
            gz->rewind();
        gz->skip(at - gz->position());
        std::size_t const got = gz->read(raw.data(), bytes);
        if (got == bytes && first + bytes / header.particle_bytes == size)
        {
            unsigned char more;
            MCDOSE_VALIDATE(gz->read(&more, 1) == 0,
                            << path << ": the MCPL file holds data after the " << size
                            << " particles its header counts; the file is corrupt or was "
                               "changed: write it again");
        }
        return got;
    }

    //! Read and decode the block of records that starts at the current position.
    void read_block(std::uint64_t size, std::string const& path)
    {
        std::uint64_t const first = this->position();
        std::size_t const count = std::size_t(std::min<std::uint64_t>(direct_block, size - first));
        std::size_t const bytes = header.particle_bytes;
        raw.resize(count * bytes);
        std::size_t const got =
            gz ? read_stream(first, count * bytes, size, path)
               : read_at(fd, raw.data(), count * bytes, header.header_bytes + first * bytes, path);
        std::size_t const whole = got / bytes;
        check_not_truncated(whole > 0, path, first, size);
        block.resize(whole);
        decode_mcpl_records(header.layout, raw.data(), whole, block.data());
        block_first = first;
        next = 0;
    }
};

McplReader::McplReader(std::string const& path, bool blocks, bool recover, bool scanned)
    : impl_(std::make_unique<Impl>()), path_(path)
{
    install_error_handler();
    std::uint64_t const bytes = impl_->open(path);
    size_ = impl_->read_header(path, bytes, recover, scanned);
    source_name_ = impl_->header.source_name;
    if (!blocks || impl_->header.version != 3 || !host_is_little_endian())
        impl_->open_libmcpl(path, recover);
}

std::uint64_t McplReader::primary_histories() const
{
    return mcpl_primary_histories(impl_->header, path_);
}

bool McplReader::compressed() const
{
    return impl_->gz != nullptr;
}

McplReader::~McplReader()
{
    if (impl_ && impl_->file.internal)
        mcpl_close_file(impl_->file);
}

bool McplReader::read(McplParticle& out)
{
    Impl& impl = *impl_;
    if (!impl.file.internal)
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
    if (this->position() >= size_)
        return false;
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
    if (!impl_->file.internal)
        return impl_->position();
    return mcpl_currentposition(impl_->file);
}

bool McplReader::reads_blocks() const
{
    return !impl_->file.internal;
}

void McplReader::seek(std::uint64_t index)
{
    MCDOSE_VALIDATE(index <= size_,
                    << path_ << ": cannot seek to particle " << index << " of " << size_);
    if (!impl_->file.internal)
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
                  mcpl_hdr_add_comment(impl_->file, histories_placeholder().c_str());
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

void McplWriter::commit(std::uint64_t primary_histories)
{
    MCDOSE_VALIDATE(impl_->open, << path_ << ": the phase-space file was already closed");
    with_path(path_,
              [&]
              {
                  mcpl_close_outfile(impl_->file);
                  return 0;
              });
    impl_->open = false;
    if (primary_histories > 0)
        record_histories(impl_->staged->path(), path_, primary_histories);
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
McplReader::McplReader(std::string const& path, bool, bool, bool) : path_(path)
{
    no_mcpl();
}
std::uint64_t McplReader::primary_histories() const
{
    no_mcpl();
}
bool McplReader::compressed() const
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
void McplWriter::commit(std::uint64_t)
{
    no_mcpl();
}
#endif
} // namespace mcdose
