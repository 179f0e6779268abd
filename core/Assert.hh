//! \file core/Assert.hh
//! Two tiers of checks (model: celeritas `src/corecel/Assert.hh`):
//! - debug contracts MCDOSE_EXPECT (precondition), MCDOSE_ASSERT (internal),
//!   MCDOSE_ENSURE (postcondition): compiled only with MCDOSE_DEBUG, usable on
//!   host and device;
//! - MCDOSE_VALIDATE(cond, << "what is wrong (why); what to do"): always on,
//!   host only, for user input; throws mcdose::RuntimeError.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

#include "core/Macros.hh"

namespace mcdose
{
//! Kinds of failed checks.
enum class ErrorKind
{
    precondition,
    internal,
    postcondition,
    unreachable,
    validate,
    not_configured,
    device
};

char const* to_cstring(ErrorKind kind);

//! Failure of a debug contract (a bug in mcdose).
class DebugError : public std::logic_error
{
  public:
    DebugError(ErrorKind which, char const* condition, char const* file, int line);
};

//! Failure caused by input, configuration or the environment (a user-facing error).
class RuntimeError : public std::runtime_error
{
  public:
    explicit RuntimeError(std::string const& what) : std::runtime_error(what) {}
    RuntimeError(ErrorKind which, std::string const& message, char const* condition,
                 char const* file, int line);
};

[[noreturn]] void throw_debug_error(ErrorKind which, char const* condition, char const* file,
                                    int line);

} // namespace mcdose

//---------------------------------------------------------------------------//
// Debug contracts
//---------------------------------------------------------------------------//
#if MCDOSE_DEVICE_COMPILE
#    include <cstdio>
#    define MCDOSE_DEBUG_FAIL_(WHICH, COND)                                                        \
        do                                                                                         \
        {                                                                                          \
            printf("mcdose: %s failed at %s:%d: %s\n", #WHICH, __FILE__, __LINE__, COND);          \
            __trap();                                                                              \
        } while (0)
#else
#    define MCDOSE_DEBUG_FAIL_(WHICH, COND)                                                        \
        ::mcdose::throw_debug_error(::mcdose::ErrorKind::WHICH, COND, __FILE__, __LINE__)
#endif

#define MCDOSE_CHECK_IMPL_(WHICH, COND)                                                            \
    do                                                                                             \
    {                                                                                              \
        if (MCDOSE_UNLIKELY(!(COND)))                                                              \
        {                                                                                          \
            MCDOSE_DEBUG_FAIL_(WHICH, #COND);                                                      \
        }                                                                                          \
    } while (0)
#define MCDOSE_NOCHECK_IMPL_(COND)                                                                 \
    do                                                                                             \
    {                                                                                              \
        if (false && (COND))                                                                       \
        {                                                                                          \
        }                                                                                          \
    } while (0)

#if MCDOSE_DEBUG
#    define MCDOSE_EXPECT(COND) MCDOSE_CHECK_IMPL_(precondition, COND)
#    define MCDOSE_ASSERT(COND) MCDOSE_CHECK_IMPL_(internal, COND)
#    define MCDOSE_ENSURE(COND) MCDOSE_CHECK_IMPL_(postcondition, COND)
#    define MCDOSE_ASSERT_UNREACHABLE() MCDOSE_DEBUG_FAIL_(unreachable, "unreachable code")
#else
#    define MCDOSE_EXPECT(COND) MCDOSE_NOCHECK_IMPL_(COND)
#    define MCDOSE_ASSERT(COND) MCDOSE_NOCHECK_IMPL_(COND)
#    define MCDOSE_ENSURE(COND) MCDOSE_NOCHECK_IMPL_(COND)
#    if MCDOSE_CUDA_COMPILER || defined(__GNUC__)
#        define MCDOSE_ASSERT_UNREACHABLE() __builtin_unreachable()
#    else
#        define MCDOSE_ASSERT_UNREACHABLE() ((void)0)
#    endif
#endif

//---------------------------------------------------------------------------//
// Always-on input validation (host only)
//---------------------------------------------------------------------------//
//! Usage: MCDOSE_VALIDATE(n > 0, << "'histories' must be positive (got " << n << ")");
#define MCDOSE_VALIDATE(COND, MSG)                                                                 \
    do                                                                                             \
    {                                                                                              \
        if (MCDOSE_UNLIKELY(!(COND)))                                                              \
        {                                                                                          \
            std::ostringstream mcdose_validate_msg_;                                               \
            mcdose_validate_msg_ MSG;                                                              \
            throw ::mcdose::RuntimeError(::mcdose::ErrorKind::validate,                            \
                                         mcdose_validate_msg_.str(), #COND, __FILE__, __LINE__);   \
        }                                                                                          \
    } while (0)

//! Throw a clear error for a feature this build lacks (e.g. "CUDA").
#define MCDOSE_NOT_CONFIGURED(WHAT)                                                                \
    throw ::mcdose::RuntimeError(::mcdose::ErrorKind::not_configured,                              \
                                 std::string("mcdose was built without ") + (WHAT) +               \
                                     "; rebuild with it enabled or use the CPU backend",           \
                                 nullptr, __FILE__, __LINE__)
