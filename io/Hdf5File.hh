//! \file io/Hdf5File.hh
//! Thin typed writers and readers over the HDF5 C++ API (model: OpenMC's
//! include/openmc/hdf5_interface.h), so that HDF5's headers stay in io/Hdf5File.cc. Objects
//! (a file, a group, a dataset) are handles; attributes and datasets are written and read
//! by C++ type; every dataset is created without its modification time (HDF5 would record
//! it), so that the same contents are the same bytes whenever they are written. An error
//! of the library is an Hdf5Error (the function that failed and HDF5's message), and HDF5's
//! own print of its error stack is switched off on the thread that calls these functions.
//!
//! The HDF5 library serves one thread at a time: a caller uses one file from one thread,
//! except Hdf5Dataset::write_chunk, which may be called from any thread, one at a time (it
//! reports a failure as false and leaves HDF5's error print as it is on that thread).
//! What the files hold (names, attributes, chunking) is the caller's: dose/DoseHdf5.hh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcdose
{
//! An error of the HDF5 library: the function that failed and HDF5's message.
class Hdf5Error : public std::runtime_error
{
  public:
    Hdf5Error(std::string function, std::string detail);
    std::string const& function() const { return function_; }
    std::string const& detail() const { return detail_; }

  private:
    std::string function_;
    std::string detail_;
};

/*!
 * An HDF5 object that carries attributes: a file, a group or a dataset (a handle: copies
 * name the same object, which stays open while one of them does, and keeps the file it is
 * in open). Attributes are scalars unless they hold several values; strings are
 * variable-length UTF-8.
 */
class Hdf5Object
{
  public:
    struct Impl; //!< the HDF5 object (io/Hdf5File.cc)
    //! A handle of `impl` (made by io/Hdf5File.cc).
    explicit Hdf5Object(std::shared_ptr<Impl> impl);

    void write_attr_string(char const* name, std::string const& value) const;
    void write_attr_strings(char const* name, std::vector<std::string> const& values) const;
    void write_attr_double(char const* name, double value) const;
    //! A 1D attribute of `n` doubles.
    void write_attr_doubles(char const* name, double const* values, std::size_t n) const;
    void write_attr_u64(char const* name, std::uint64_t value) const;
    void write_attr_int(char const* name, int value) const;

    bool has_attr(char const* name) const;
    //! The number of values of attribute `name`.
    std::size_t attr_size(char const* name) const;
    //! Attribute `name`'s attr_size(name) values as doubles, to `out`.
    void read_attr_doubles(char const* name, double* out) const;
    std::string read_attr_string(char const* name) const;

    //! Close the object (its other handles then name a closed object).
    void close();

  protected:
    std::shared_ptr<Impl> impl_;
};

//! A dataset: its shape, its values, and its chunks written as they are stored.
class Hdf5Dataset : public Hdf5Object
{
  public:
    using Hdf5Object::Hdf5Object;

    //! The extent of each dimension (slowest first).
    std::vector<std::uint64_t> dims() const;
    //! Every value, converted to double, to `out` (room for the product of dims()).
    void read_doubles(double* out) const;
    /*!
     * Write one chunk of a chunked dataset as it is stored (H5Dwrite_chunk): `size` bytes,
     * compressed by the dataset's filters except those whose bit of `filter_mask` is set
     * (bit 0: the first filter skipped, the chunk raw), at element `offset` (one index per
     * dimension, a multiple of the chunk's extent). False where HDF5 fails (no exception).
     */
    bool write_chunk(std::vector<std::uint64_t> const& offset, std::uint32_t filter_mask,
                     void const* bytes, std::size_t size) const;
};

//! A group (or a file's root group): its groups and datasets.
class Hdf5Group : public Hdf5Object
{
  public:
    using Hdf5Object::Hdf5Object;

    Hdf5Group create_group(char const* name) const;
    //! A 1D dataset of `values` (none written where empty).
    Hdf5Dataset write_dataset(char const* name, std::vector<double> const& values) const;
    //! A scalar string dataset.
    Hdf5Dataset write_string_dataset(char const* name, std::string const& value) const;
    /*!
     * A chunked dataset of element type T (double, float or std::uint16_t) and extent
     * `dims`, in chunks of extent `chunk`, deflated at `deflate_level` (HDF5's deflate filter,
     * H5Pset_deflate: its only filter); its values are written by Hdf5Dataset::write_chunk.
     */
    template <class T>
    Hdf5Dataset create_chunked_dataset(char const* name, std::vector<std::uint64_t> const& dims,
                                       std::vector<std::uint64_t> const& chunk,
                                       int deflate_level) const;

    //! Is there a link (a group or a dataset) called `name`?
    bool has_link(char const* name) const;
    Hdf5Dataset open_dataset(char const* name) const;
};

//! A file on disk, opened to be read.
class Hdf5File : public Hdf5Group
{
  public:
    using Hdf5Group::Hdf5Group;

    //! Open `path` read-only (an Hdf5Error where it is not an HDF5 file).
    static Hdf5File open_read_only(std::string const& path);
};

/*!
 * A new file built in memory by HDF5's core driver, with no backing store: nothing is on
 * disk until the caller writes its bytes (image()) where it wants them, e.g. through a
 * temporary file renamed on success. (HDF5 1.10 handles a failed write to disk badly:
 * objects whose close failed stay half-closed, and closing them again, as its exit handler
 * does, crashes the process; in memory nothing can fail that way.) The driver grows the
 * memory in steps of 16 MiB; each growth's new pages are mapped on all cores before HDF5
 * clears them (core/HostMemory.hh; else they would be mapped one by one by the thread that
 * writes the chunks, which the others wait for). When the file closes its memory is kept:
 * the closed file's bytes, written from there, not from a copy (H5Fget_file_image's).
 */
class Hdf5MemoryFile : public Hdf5Group
{
  public:
    //! Create the file; `path` is its name in HDF5's messages (nothing is written there).
    explicit Hdf5MemoryFile(std::string const& path);

    //! Flush and close the file, its bytes left at image(); returns their number.
    std::size_t close_image();
    //! The closed file's bytes (close_image's number of them).
    void const* image() const;
};
} // namespace mcdose
