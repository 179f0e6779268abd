//! \file io/MetaImageWriter.cc
#include "io/MetaImageWriter.hh"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "core/Assert.hh"
#include "core/ParallelFor.hh"
#include "io/Deflate.hh"

namespace mcdose
{
namespace
{
//! Bytes of input per independently deflated piece.
constexpr std::size_t piece_bytes = std::size_t(1) << 20;
//! zlib level: the images are views of the HDF5 file's grids, so speed first.
constexpr int image_deflate_level = Z_BEST_SPEED;
constexpr double mm_per_cm = 10.0;

char const* element_type(float const*)
{
    return "MET_FLOAT";
}
char const* element_type(std::uint16_t const*)
{
    return "MET_USHORT";
}

//! The header lines (ITK MetaIO's keys), with the compressed size, `pad` spaces after the
//! comment (so that headers of any size can be made the same length).
std::string metaimage_header(GridGeometry const& g, char const* type, std::size_t compressed,
                             std::size_t pad, std::string const& comment)
{
    std::ostringstream h;
    h.precision(17);
    h << "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n"
      << "CompressedData = True\nCompressedDataSize = " << compressed << "\nTransformMatrix =";
    // Index axis a's direction (column a of the row-major matrix), axis after axis.
    for (int a = 0; a < 3; ++a)
    {
        for (int r = 0; r < 3; ++r)
            h << ' ' << g.direction[3 * r + a];
    }
    h << "\nOffset =";
    for (int a = 0; a < 3; ++a)
        h << ' ' << g.origin_cm[a] * mm_per_cm;
    h << "\nCenterOfRotation = 0 0 0\nElementSpacing =";
    for (int a = 0; a < 3; ++a)
        h << ' ' << g.spacing_cm[a] * mm_per_cm;
    h << "\nDimSize = " << g.dims[0] << ' ' << g.dims[1] << ' ' << g.dims[2]
      << "\nElementType = " << type
      << "\nComment = " << (comment.empty() ? std::string("mcdose") : comment)
      << std::string(pad, ' ') << "\nElementDataFile = LOCAL\n";
    return h.str();
}

//! Closes a file left open by an error.
struct FileCloser
{
    void operator()(std::FILE* f) const { std::fclose(f); }
};

//! fwrite that reports a short write (a full disk) with the path and the reason.
void write_all(std::FILE* f, void const* data, std::size_t size, std::string const& path)
{
    if (size == 0)
        return;
    errno = 0;
    std::size_t const written = std::fwrite(data, 1, size, f);
    int const err = errno;
    if (written != size)
    {
        MCDOSE_VALIDATE(false, << "cannot write image '" << path
                               << "': " << (err ? std::strerror(err) : "short write")
                               << "; check the free disk space");
    }
}

template <class T>
void write_metaimage_impl(std::string const& path, GridGeometry const& geometry,
                          ImageFill<T> const& fill, std::string const& description)
{
    // One line of printable text (a newline would end the header's Comment early).
    std::string comment = description.substr(0, 200);
    for (char& c : comment)
        c = (c >= ' ' && c != 0x7f) ? c : ' ';
    static_assert(piece_bytes % sizeof(T) == 0);
    {
        std::uint16_t const one = 1;
        unsigned char first;
        std::memcpy(&first, &one, 1);
        MCDOSE_EXPECT(first == 1); // little-endian host: the data are written as they lie
    }
    size_type const voxels = geometry.num_voxels();
    size_type const per_piece = piece_bytes / sizeof(T);
    std::size_t const pieces = std::max<std::size_t>(1, (voxels + per_piece - 1) / per_piece);
    char const* const type = element_type(static_cast<T const*>(nullptr));
    // The data go after a header of fixed length (that of the largest size), written last
    // with the size padded out, so that each round of pieces is written as it is made.
    std::size_t const header_bytes =
        metaimage_header(geometry, type, std::numeric_limits<std::size_t>::max(), 0, comment)
            .size();

    // A new file, never one through a link (`path` is a staged name: core/AtomicFile.hh);
    // closed on every path out (an error anywhere below throws).
    int const fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    std::unique_ptr<std::FILE, FileCloser> file(fd >= 0 ? ::fdopen(fd, "wb") : nullptr);
    if (fd >= 0 && !file)
        ::close(fd);
    MCDOSE_VALIDATE(file, << "cannot write image '" << path << "': " << std::strerror(errno)
                          << "; check that the directory exists and is writable");
    std::FILE* const f = file.get();
    auto seek = [&](std::size_t offset)
    {
        MCDOSE_VALIDATE(fseeko(f, off_t(offset), SEEK_SET) == 0,
                        << "cannot write image '" << path << "': " << std::strerror(errno));
    };
    seek(header_bytes);
    // zlib stream: header (deflate, 32 KiB window, fastest), the pieces, Adler-32 (big-endian).
    unsigned char const zlib_header[2] = {0x78, 0x01};
    write_all(f, zlib_header, sizeof(zlib_header), path);
    std::size_t compressed = sizeof(zlib_header);
    uLong adler = adler32(0L, Z_NULL, 0);
    // Rounds of a few pieces per thread: filled and deflated on all cores, written in order.
    std::size_t const round = 4 * std::size_t(host_loop_threads(0));
    std::vector<DeflatedPiece> deflated(std::min(round, pieces));
    for (std::size_t first = 0; first < pieces; first += round)
    {
        std::size_t const m = std::min(round, pieces - first);
        parallel_for_each(m,
                          [&](size_type j)
                          {
                              size_type const k = first + j;
                              size_type const begin = k * per_piece;
                              size_type const end = std::min(voxels, begin + per_piece);
                              std::vector<T> values(end - begin);
                              fill(begin, end, values.data());
                              deflated[j] = deflate_raw_piece(
                                  values.data(), values.size() * sizeof(T), image_deflate_level,
                                  k + 1 == pieces, sizeof(T));
                          });
        for (std::size_t j = 0; j < m; ++j)
        {
            size_type const k = first + j;
            size_type const len =
                (std::min(voxels, (k + 1) * per_piece) - k * per_piece) * sizeof(T);
            adler = adler32_combine(adler, deflated[j].adler, z_off_t(len));
            write_all(f, deflated[j].bytes.data(), deflated[j].bytes.size(), path);
            compressed += deflated[j].bytes.size();
        }
    }
    unsigned char const trailer[4] = {
        static_cast<unsigned char>(adler >> 24), static_cast<unsigned char>(adler >> 16),
        static_cast<unsigned char>(adler >> 8), static_cast<unsigned char>(adler)};
    write_all(f, trailer, sizeof(trailer), path);
    compressed += sizeof(trailer);
    std::string header = metaimage_header(geometry, type, compressed, 0, comment);
    MCDOSE_EXPECT(header.size() <= header_bytes);
    header = metaimage_header(geometry, type, compressed, header_bytes - header.size(), comment);
    seek(0);
    write_all(f, header.data(), header.size(), path);
    errno = 0;
    bool const flushed = std::fflush(f) == 0;
    int const err = errno;
    bool const closed = std::fclose(file.release()) == 0;
    MCDOSE_VALIDATE(flushed && closed, << "cannot write image '" << path
                                       << "': " << std::strerror(err ? err : errno)
                                       << "; check the free disk space");
}
} // namespace

void write_metaimage(std::string const& path, GridGeometry const& geometry,
                     ImageFill<float> const& fill, std::string const& description)
{
    write_metaimage_impl(path, geometry, fill, description);
}

void write_metaimage(std::string const& path, GridGeometry const& geometry,
                     ImageFill<std::uint16_t> const& fill, std::string const& description)
{
    write_metaimage_impl(path, geometry, fill, description);
}
} // namespace mcdose
