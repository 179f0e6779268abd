//! \file io/CacheFile.cc
#include "io/CacheFile.hh"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/ByteStream.hh"
#include "core/Sha256.hh"

namespace mcdose
{
namespace
{
//! Layout: magic, container version, byte-order mark, kind, key, payload (each a 64-bit
//! length and its bytes), then the SHA-256 of all of that.
constexpr char magic[8] = {'M', 'C', 'D', 'C', 'A', 'C', 'H', 'E'};
constexpr std::uint32_t container_version = 1;
constexpr std::uint32_t byte_order_mark = 0x01020304;
constexpr std::size_t digest_size = 32;

std::string env(char const* name)
{
    char const* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

//! The payload of a valid file's bytes, or throws saying what is wrong.
std::string parse(std::string const& bytes, std::string const& kind, std::string const& key)
{
    MCDOSE_VALIDATE(bytes.size() >= sizeof(magic) + digest_size &&
                        std::memcmp(bytes.data(), magic, sizeof(magic)) == 0,
                    << "not an mcdose cache file (or truncated to " << bytes.size() << " bytes)");
    std::size_t const body = bytes.size() - digest_size;
    auto const digest = Sha256().update(bytes.data(), body).finish();
    MCDOSE_VALIDATE(std::memcmp(digest.data(), bytes.data() + body, digest_size) == 0,
                    << "checksum mismatch: the file is truncated or corrupt");
    ByteReader r(std::string_view(bytes).substr(sizeof(magic), body - sizeof(magic)));
    std::uint32_t version = 0, bom = 0;
    r.value(version);
    r.value(bom);
    MCDOSE_VALIDATE(version == container_version && bom == byte_order_mark,
                    << "written by another version of the cache format (" << version
                    << ") or on a machine of other byte order");
    std::string const file_kind(r.text());
    MCDOSE_VALIDATE(file_kind == kind,
                    << "holds '" << file_kind << "', not '" << kind << "' (another format)");
    MCDOSE_VALIDATE(r.text() == key, << "built for other inputs");
    std::string payload(r.text());
    MCDOSE_VALIDATE(r.left() == 0, << r.left() << " unexpected bytes after the data");
    return payload;
}
} // namespace

std::string default_cache_directory()
{
    if (std::string const dir = env(cache_directory_variable); !dir.empty())
        return dir;
    if (std::string const xdg = env("XDG_CACHE_HOME"); !xdg.empty())
        return (std::filesystem::path(xdg) / "mcdose").string();
    if (std::string const home = env("HOME"); !home.empty())
        return (std::filesystem::path(home) / ".cache" / "mcdose").string();
    return {};
}

std::string cache_file_path(std::string const& directory, std::string const& stem,
                            std::string const& key)
{
    return (std::filesystem::path(directory) / (stem + "-" + sha256_hex(key) + ".mcdc")).string();
}

CacheFileRead read_cache_file(std::string const& path, std::string const& kind,
                              std::string const& key)
{
    CacheFileRead result;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return result;
    result.exists = true;
    std::string const bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
    {
        result.problem = std::string("cannot be read: ") + std::strerror(errno);
        return result;
    }
    try
    {
        result.payload = parse(bytes, kind, key);
    }
    catch (RuntimeError const& e)
    {
        result.problem = e.what();
    }
    return result;
}

void write_cache_file(std::string const& path, std::string const& kind, std::string const& key,
                      std::string const& payload)
{
    std::error_code ec;
    auto const dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
        std::filesystem::create_directories(dir, ec);
    MCDOSE_VALIDATE(!ec, << "cannot create the cache directory '" << dir.string()
                         << "': " << ec.message() << "; set " << cache_directory_variable
                         << " to a writable directory");
    ByteWriter w;
    w.value(container_version);
    w.value(byte_order_mark);
    w.text(kind);
    w.text(key);
    w.text(payload);
    std::string bytes(magic, sizeof(magic));
    bytes += w.bytes();
    auto const digest = Sha256().update(bytes).finish();
    bytes.append(reinterpret_cast<char const*>(digest.data()), digest.size());
    // The temporary is named by the process id: threads of one process take turns.
    static std::mutex write_mutex;
    std::lock_guard<std::mutex> const lock(write_mutex);
    write_text_atomically(path, bytes);
}
} // namespace mcdose
