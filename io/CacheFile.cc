//! \file io/CacheFile.cc
#include "io/CacheFile.hh"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

#include "core/Assert.hh"
#include "core/AtomicFile.hh"
#include "core/ByteStream.hh"
#include "core/Sha256.hh"
#include "io/InputError.hh"
#include "io/InputFile.hh"

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
//! No cache file mcdose writes comes near this (bytes).
constexpr std::uint64_t cache_file_limit = std::uint64_t(4) << 30;

std::string octal(unsigned mode)
{
    char text[8];
    std::snprintf(text, sizeof(text), "%04o", mode);
    return text;
}

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

std::string cache_directory_problem(std::string const& directory)
{
    struct stat st = {};
    if (::stat(directory.c_str(), &st) != 0)
        return errno == ENOENT ? std::string() : std::string(std::strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return "it is not a directory";
    if (st.st_uid != ::geteuid())
        return "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "other users can write into it (mode " + octal(st.st_mode & 07777) + ")";
    return {};
}

CacheFileRead read_cache_file(std::string const& path, std::string const& kind,
                              std::string const& key)
{
    CacheFileRead result;
    FileHandle fd;
    try
    {
        // A link is refused, and a FIFO or device refused without waiting on it.
        fd = open_input_file(path, "cache file", cache_file_limit, false);
    }
    catch (InputError const& e)
    {
        struct stat st = {};
        if (::lstat(path.c_str(), &st) != 0)
            return result; // no file: nothing cached
        result.exists = true;
        result.problem = e.problem();
        return result;
    }
    result.exists = true;
    struct stat st = {};
    ::fstat(fd.get(), &st);
    if (st.st_uid != ::geteuid())
    {
        result.problem = "it belongs to another user (uid " + std::to_string(st.st_uid) + ")";
        return result;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH))
    {
        result.problem = "other users can write it (mode " + octal(st.st_mode & 07777) + ")";
        return result;
    }
    try
    {
        result.payload = parse(read_opened_file(std::move(fd), path, "cache file"), kind, key);
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
    if (!dir.empty() && !std::filesystem::exists(dir, ec))
    {
        // The cache directory itself readable by its user alone.
        if (dir.has_parent_path())
            std::filesystem::create_directories(dir.parent_path(), ec);
        if (!ec && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
            ec = std::error_code(errno, std::generic_category());
    }
    MCDOSE_VALIDATE(!ec, << "cannot create the cache directory '" << dir.string()
                         << "': " << ec.message() << "; set " << cache_directory_variable
                         << " to a writable directory");
    if (std::string const problem = cache_directory_problem(dir.empty() ? "." : dir.string());
        !problem.empty())
    {
        MCDOSE_VALIDATE(false, << "the cache directory '" << dir.string() << "' is not used ("
                               << problem << "); set " << cache_directory_variable
                               << " to a directory of your own");
    }
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
    write_text_atomically(path, bytes, 0600);
}
} // namespace mcdose
