//! \file transport/engine/TableBuildStamp.hh
//! What the build contributes to the transport tables, for the key of cached tables
//! (transport_table_key). Defined in a file generated at build time by
//! cmake/TableBuildStamp.cmake, rewritten whenever the table code changes.
#pragma once

namespace mcdose
{
struct TableBuildStamp
{
    //! SHA-256 over the sources the tables are computed by (the physics models, the
    //! interactors' sampling data, the materials, the table builders), 64 hex digits.
    static char const* const code_sha256;
    static char const* const xraylib_version; //!< the element data source
    static char const* const compiler;        //!< C++ compiler, version and flags
};
} // namespace mcdose
