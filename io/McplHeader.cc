//! \file io/McplHeader.cc
#include "io/McplHeader.hh"

#include <cmath>
#include <cstring>

#include "core/Assert.hh"

namespace mcdose
{
namespace
{
//! The header's bytes read in order, each count checked against what is left.
class HeaderCursor
{
  public:
    HeaderCursor(McplByteSource const& source, std::uint64_t file_bytes, std::string const& path)
        : source_(source), path_(path),
          limit_(file_bytes > 0 ? std::min(file_bytes, max_mcpl_header_bytes)
                                : max_mcpl_header_bytes),
          file_bytes_(file_bytes)
    {
    }

    //! `n` bytes; refused as `what` if the file (or the header's limit) ends before.
    void read(void* to, std::size_t n, char const* what)
    {
        this->need(n, what);
        std::size_t const got = n == 0 ? 0 : source_(to, n);
        MCDOSE_VALIDATE(got == n, << path_ << ": the MCPL file ends inside its header (" << what
                                  << "); the file is truncated: write it again");
        pos_ += n;
    }
    template <class T>
    T pod(char const* what)
    {
        T v;
        this->read(&v, sizeof v, what);
        return v;
    }
    //! A length-prefixed string or blob.
    std::string text(char const* what)
    {
        auto const n = this->pod<std::uint32_t>(what);
        this->need(n, what);
        std::string s(n, '\0');
        this->read(s.data(), n, what);
        return s;
    }
    //! Refuse `count` strings (4 bytes at least each) that cannot fit in what is left, or
    //! more than max_mcpl_header_strings.
    void need_strings(std::uint64_t count, char const* what) const
    {
        MCDOSE_VALIDATE(count <= max_mcpl_header_strings,
                        << path_ << ": the MCPL header claims " << count << " " << what
                        << "; mcdose reads at most " << max_mcpl_header_strings
                        << " (the file is corrupt, or remove comments with mcpltool)");
        MCDOSE_VALIDATE(count <= this->left() / 4,
                        << path_ << ": the MCPL header claims " << count << " " << what
                        << ", more than its " << this->left() << " remaining bytes can hold"
                        << this->where() << "; the file is corrupt: write it again");
    }
    std::uint64_t position() const { return pos_; }

  private:
    McplByteSource const& source_;
    std::string const& path_;
    std::uint64_t limit_;
    std::uint64_t file_bytes_;
    std::uint64_t pos_{0};

    std::uint64_t left() const { return limit_ - pos_; }
    std::string where() const
    {
        return file_bytes_ > 0 && file_bytes_ <= max_mcpl_header_bytes
                   ? std::string(" (the file's length)")
                   : " (mcdose reads headers of at most " +
                         std::to_string(max_mcpl_header_bytes >> 20) + " MiB)";
    }
    void need(std::uint64_t n, char const* what) const
    {
        MCDOSE_VALIDATE(n <= this->left(), << path_ << ": the MCPL header's " << what << " of " << n
                                           << " bytes does not fit in its remaining "
                                           << this->left() << " bytes" << this->where()
                                           << "; the file is truncated or corrupt");
    }
};

bool host_little_endian()
{
    std::uint16_t const one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

//! Magic word, format version and byte order.
unsigned read_start(HeaderCursor& c, std::string const& path)
{
    char start[8];
    c.read(start, 8, "start");
    MCDOSE_VALIDATE(std::memcmp(start, "MCPL", 4) == 0,
                    << path << ": not an MCPL file (it does not start with \"MCPL\"); give an "
                    << "MCPL phase-space file (.mcpl or .mcpl.gz)");
    bool const digits = start[4] >= '0' && start[4] <= '9' && start[5] >= '0' && start[5] <= '9' &&
                        start[6] >= '0' && start[6] <= '9';
    unsigned const version =
        digits ? unsigned((start[4] - '0') * 100 + (start[5] - '0') * 10 + (start[6] - '0')) : 0;
    MCDOSE_VALIDATE(version == 2 || version == 3,
                    << path << ": MCPL format version '" << std::string(start + 4, 3)
                    << "' is not one mcdose reads (002 or 003); convert the file with a "
                       "current mcpltool");
    MCDOSE_VALIDATE(start[7] == 'L' || start[7] == 'B',
                    << path << ": the MCPL header's byte order '" << start[7]
                    << "' is neither L nor B; the file is corrupt");
    MCDOSE_VALIDATE((start[7] == 'L') == host_little_endian(),
                    << path << ": the MCPL file is in the other byte order than this machine's; "
                    << "convert it on a machine of its byte order (mcpltool --merge)");
    return version;
}

//! A 0-or-1 option flag of the header.
bool read_flag(std::uint32_t v, char const* name, std::string const& path)
{
    MCDOSE_VALIDATE(v <= 1, << path << ": the MCPL header's " << name << " flag is " << v
                            << " (0 or 1 allowed); the file is corrupt");
    return v == 1;
}

//! The fixed part: counts, option flags, particle size and universal weight.
void read_options(HeaderCursor& c, McplHeader& h, std::uint32_t (&counts)[2],
                  std::string const& path)
{
    h.particles = c.pod<std::uint64_t>("particle count");
    std::uint32_t a[8];
    c.read(a, sizeof a, "counts and options");
    counts[0] = a[0];
    counts[1] = a[1];
    h.layout.user_flags = read_flag(a[2], "user-flags", path);
    h.layout.polarisation = read_flag(a[3], "polarisation", path);
    h.layout.single_precision = read_flag(a[4], "single-precision", path);
    h.layout.universal_pdg_code = std::int32_t(a[5]);
    bool const universal_weight = read_flag(a[7], "universal-weight", path);
    if (universal_weight)
    {
        h.layout.universal_weight = c.pod<double>("universal weight");
        MCDOSE_VALIDATE(std::isfinite(h.layout.universal_weight) && h.layout.universal_weight > 0,
                        << path << ": the MCPL header's universal weight "
                        << h.layout.universal_weight
                        << " is not a positive finite number; the file is corrupt");
    }
    h.particle_bytes = a[6];
    MCDOSE_VALIDATE(h.particle_bytes == h.layout.record_bytes(),
                    << path << ": the MCPL header gives " << h.particle_bytes
                    << " bytes per particle, but its options make " << h.layout.record_bytes()
                    << "; the file is corrupt");
}
} // namespace

McplHeader read_mcpl_header(McplByteSource const& source, std::uint64_t file_bytes,
                            std::string const& path)
{
    HeaderCursor c(source, file_bytes, path);
    McplHeader h;
    h.version = read_start(c, path);
    std::uint32_t counts[2];
    read_options(c, h, counts, path);
    h.source_name = c.text("source name");
    c.need_strings(std::uint64_t(counts[0]) + 2 * std::uint64_t(counts[1]), "comments and blobs");
    for (std::uint32_t i = 0; i < counts[0]; ++i)
        h.comments.push_back(c.text("comment"));
    std::vector<std::string> keys;
    for (std::uint32_t i = 0; i < counts[1]; ++i)
        keys.push_back(c.text("blob key"));
    for (std::uint32_t i = 0; i < counts[1]; ++i)
        h.blobs.emplace_back(keys[i], c.text("blob"));
    h.header_bytes = c.position();
    return h;
}

std::uint64_t mcpl_particle_count(McplHeader const& h, std::uint64_t file_bytes, bool recover,
                                  std::string const& path)
{
    MCDOSE_ASSERT(file_bytes >= h.header_bytes && h.particle_bytes > 0);
    std::uint64_t const data = file_bytes - h.header_bytes;
    std::uint64_t const whole = data / h.particle_bytes;
    bool const exact = data % h.particle_bytes == 0 && whole == h.particles;
    if (exact || recover)
        return recover ? whole : h.particles;
    MCDOSE_VALIDATE(h.particles != 0,
                    << path << ": the MCPL file was not closed by the program that wrote it (its "
                    << "header counts 0 particles, but " << data << " bytes of records follow); "
                    << "finish the file with mcpltool --repair, or read the " << whole
                    << " whole particles there are with \"recover\": true in the phase-space "
                       "source");
    MCDOSE_VALIDATE(false, << path << ": the MCPL header counts " << h.particles
                           << " particles, but the file holds " << data << " bytes of records ("
                           << whole << " particles of " << h.particle_bytes << " bytes"
                           << (data % h.particle_bytes ? " and part of one" : "")
                           << "): the file is truncated or was changed; write it again, or read "
                              "the whole particles there are with \"recover\": true in the "
                              "phase-space source");
    return 0;
}

std::string mcpl_primary_histories_comment(std::uint64_t histories)
{
    return "mcdose primary histories: " + std::to_string(histories);
}

namespace
{
//! A positive decimal integer, or refused naming the record.
std::uint64_t parse_histories(std::string text, std::string const& path)
{
    while (!text.empty() && text.back() == ' ')
        text.pop_back(); // the room left for the digits
    if (text.empty())
        return 0; // a writer that did not fill it in: not recorded
    std::uint64_t n = 0;
    bool ok = !text.empty() && text.size() <= 19;
    for (char ch : text)
    {
        ok = ok && ch >= '0' && ch <= '9';
        n = ok ? n * 10 + std::uint64_t(ch - '0') : 0;
    }
    MCDOSE_VALIDATE(ok && n > 0, << path << ": the MCPL header's primary history count '"
                                 << text.substr(0, 40)
                                 << "' is not a positive integer; correct the header or give "
                                    "remove the comment (mcpltool)");
    return n;
}
} // namespace

std::uint64_t mcpl_primary_histories(McplHeader const& h, std::string const& path)
{
    std::string const prefix = mcpl_primary_histories_comment(0).substr(0, 26);
    for (auto const& c : h.comments)
    {
        if (c.compare(0, prefix.size(), prefix) == 0)
            return parse_histories(c.substr(prefix.size()), path);
    }
    for (auto const& [key, data] : h.blobs)
    {
        if (key == "mcdose_primary_histories")
            return parse_histories(data, path);
    }
    return 0;
}
} // namespace mcdose
