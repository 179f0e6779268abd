//! \file core/Assert.cc
#include "core/Assert.hh"

namespace mcdose
{
namespace
{
std::string debug_message(ErrorKind which, char const* condition, char const* file, int line)
{
    std::ostringstream os;
    os << "mcdose internal error: " << to_cstring(which) << " '" << condition << "' failed at "
       << file << ':' << line;
    return os.str();
}
} // namespace

char const* to_cstring(ErrorKind kind)
{
    switch (kind)
    {
    case ErrorKind::precondition:
        return "precondition";
    case ErrorKind::internal:
        return "internal assertion";
    case ErrorKind::postcondition:
        return "postcondition";
    case ErrorKind::unreachable:
        return "unreachable code reached";
    case ErrorKind::validate:
        return "invalid input";
    case ErrorKind::not_configured:
        return "not configured";
    case ErrorKind::device:
        return "device error";
    }
    return "unknown";
}

DebugError::DebugError(ErrorKind which, char const* condition, char const* file, int line)
    : std::logic_error(debug_message(which, condition, file, line))
{
}

// User-facing errors carry only the message: the condition and source location
// help developers but confuse users, so they are appended only in debug builds.
RuntimeError::RuntimeError(ErrorKind which, std::string const& message, char const* condition,
                           char const* file, int line)
    : std::runtime_error(
          [&]
          {
              std::string result = message;
#if MCDOSE_DEBUG
              std::ostringstream os;
              os << " [" << to_cstring(which) << (condition ? std::string(": ") + condition : "")
                 << " at " << file << ':' << line << ']';
              result += os.str();
#else
              MCDOSE_DISCARD(which);
              MCDOSE_DISCARD(condition);
              MCDOSE_DISCARD(file);
              MCDOSE_DISCARD(line);
#endif
              return result;
          }())
{
}

void throw_debug_error(ErrorKind which, char const* condition, char const* file, int line)
{
    throw DebugError(which, condition, file, line);
}

} // namespace mcdose
