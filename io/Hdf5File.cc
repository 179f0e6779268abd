//! \file io/Hdf5File.cc
//! HDF5 is used only here (the C++ API, and the C API where it has no C++ call).
#include "io/Hdf5File.hh"

#include <cstdlib>
#include <cstring>
#include <utility>

#include <H5Cpp.h>

#include "core/Assert.hh"
#include "core/HostMemory.hh"

namespace mcdose
{
namespace
{
/*!
 * The memory of a file built by HDF5's core driver, which it grows through these callbacks
 * (H5Pset_file_image_callbacks): see Hdf5MemoryFile. When the file closes the memory is
 * kept, the closed file's bytes.
 */
struct CoreMemory
{
    void* bytes{nullptr};
    std::size_t size{0};

    CoreMemory() = default;
    CoreMemory(CoreMemory const&) = delete;
    CoreMemory& operator=(CoreMemory const&) = delete;
    ~CoreMemory() { std::free(bytes); }

    static CoreMemory& of(void* udata) { return *static_cast<CoreMemory*>(udata); }

    //! The property list's callbacks, with this as their data.
    H5FD_file_image_callbacks_t callbacks()
    {
        H5FD_file_image_callbacks_t c{};
        c.image_malloc = [](std::size_t size, H5FD_file_image_op_t op, void* udata)
        { return resize(nullptr, size, op, udata); };
        c.image_memcpy = [](void* dest, void const* src, std::size_t size, H5FD_file_image_op_t,
                            void*) { return std::memcpy(dest, src, size); };
        c.image_realloc = resize;
        c.image_free = [](void* ptr, H5FD_file_image_op_t op, void* udata) -> herr_t
        {
            CoreMemory& m = of(udata);
            if (ptr == m.bytes && op == H5FD_FILE_IMAGE_OP_FILE_CLOSE)
                return 0; // kept: the closed file
            if (ptr == m.bytes)
                m.bytes = nullptr, m.size = 0;
            std::free(ptr);
            return 0;
        };
        c.udata_copy = [](void* udata) { return udata; }; // one CoreMemory serves the copies
        c.udata_free = [](void*) -> herr_t { return 0; };
        c.udata = this;
        return c;
    }

  private:
    static void* resize(void* ptr, std::size_t size, H5FD_file_image_op_t, void* udata)
    {
        CoreMemory& m = of(udata);
        std::size_t const before = ptr == m.bytes ? m.size : 0;
        void* grown = std::realloc(ptr, size);
        if (!grown)
            return nullptr;
        if (size > before)
            prefault_pages(static_cast<char*>(grown) + before, size - before);
        m.bytes = grown;
        m.size = size;
        return grown;
    }
};

//! f() with HDF5's error print off on this thread (a thread-safe HDF5 keeps the setting per
//! thread), an HDF5 exception turned into an Hdf5Error.
template <class F>
auto translated(F&& f) -> decltype(f())
{
    H5::Exception::dontPrint();
    try
    {
        return f();
    }
    catch (H5::Exception const& e)
    {
        throw Hdf5Error(e.getFuncName(), e.getDetailMsg());
    }
}

H5::StrType vlen_string_type()
{
    H5::StrType t(H5::PredType::C_S1, H5T_VARIABLE);
    t.setCset(H5T_CSET_UTF8);
    return t;
}

//! A dataset's creation properties without its modification time.
H5::DSetCreatPropList untimed_dataset()
{
    H5::DSetCreatPropList props;
    H5Pset_obj_track_times(props.getId(), false);
    return props;
}

template <class T>
H5::PredType const& native_type();
template <>
H5::PredType const& native_type<double>()
{
    return H5::PredType::NATIVE_DOUBLE;
}
template <>
H5::PredType const& native_type<float>()
{
    return H5::PredType::NATIVE_FLOAT;
}
template <>
H5::PredType const& native_type<std::uint16_t>()
{
    return H5::PredType::NATIVE_UINT16;
}

std::vector<hsize_t> hsizes(std::vector<std::uint64_t> const& values)
{
    return std::vector<hsize_t>(values.begin(), values.end());
}
} // namespace

//! The HDF5 object of a handle; a handle of an object in a file keeps the file's handle.
struct Hdf5Object::Impl
{
    std::shared_ptr<Impl const> file;   //!< the file's (none for a file)
    std::unique_ptr<CoreMemory> memory; //!< an Hdf5MemoryFile's (before `object`, which
                                        //!< frees it when it closes)
    //! (shared: H5Object's destructor is protected; the control block destroys the T it made)
    std::shared_ptr<H5::H5Object> object;

    template <class T>
    T& as() const
    {
        return static_cast<T&>(*object);
    }
    //! A handle of `child`, an object in this one's file.
    template <class Handle, class T>
    Handle child_of(std::shared_ptr<Impl> const& self, T child) const
    {
        auto impl = std::make_shared<Impl>();
        impl->file = file ? file : self;
        impl->object = std::make_shared<T>(std::move(child));
        return Handle(std::move(impl));
    }
};

Hdf5Error::Hdf5Error(std::string function, std::string detail)
    : std::runtime_error(function + ": " + detail), function_(std::move(function)),
      detail_(std::move(detail))
{
}

Hdf5Object::Hdf5Object(std::shared_ptr<Impl> impl) : impl_(std::move(impl))
{
}

void Hdf5Object::write_attr_string(char const* name, std::string const& value) const
{
    translated(
        [&]
        {
            auto const type = vlen_string_type();
            H5::Attribute a = impl_->object->createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
            char const* s = value.c_str();
            a.write(type, &s);
        });
}

void Hdf5Object::write_attr_strings(char const* name, std::vector<std::string> const& values) const
{
    translated(
        [&]
        {
            auto const type = vlen_string_type();
            hsize_t const n = values.size();
            std::vector<char const*> pointers;
            for (auto const& s : values)
                pointers.push_back(s.c_str());
            H5::Attribute a = impl_->object->createAttribute(name, type, H5::DataSpace(1, &n));
            if (n > 0)
                a.write(type, pointers.data());
            a.close();
        });
}

void Hdf5Object::write_attr_double(char const* name, double value) const
{
    translated(
        [&]
        {
            H5::Attribute a = impl_->object->createAttribute(name, H5::PredType::NATIVE_DOUBLE,
                                                             H5::DataSpace(H5S_SCALAR));
            a.write(H5::PredType::NATIVE_DOUBLE, &value);
        });
}

void Hdf5Object::write_attr_doubles(char const* name, double const* values, std::size_t n) const
{
    translated(
        [&]
        {
            hsize_t const count = n;
            H5::DataSpace space(1, &count);
            H5::Attribute a =
                impl_->object->createAttribute(name, H5::PredType::NATIVE_DOUBLE, space);
            a.write(H5::PredType::NATIVE_DOUBLE, values);
        });
}

void Hdf5Object::write_attr_u64(char const* name, std::uint64_t value) const
{
    translated(
        [&]
        {
            H5::Attribute a = impl_->object->createAttribute(name, H5::PredType::NATIVE_UINT64,
                                                             H5::DataSpace(H5S_SCALAR));
            a.write(H5::PredType::NATIVE_UINT64, &value);
        });
}

void Hdf5Object::write_attr_int(char const* name, int value) const
{
    translated(
        [&]
        {
            H5::Attribute a = impl_->object->createAttribute(name, H5::PredType::NATIVE_INT,
                                                             H5::DataSpace(H5S_SCALAR));
            a.write(H5::PredType::NATIVE_INT, &value);
        });
}

bool Hdf5Object::has_attr(char const* name) const
{
    return translated([&] { return impl_->object->attrExists(name); });
}

std::size_t Hdf5Object::attr_size(char const* name) const
{
    return translated(
        [&]
        {
            H5::Attribute a = impl_->object->openAttribute(name);
            return std::size_t(a.getSpace().getSimpleExtentNpoints());
        });
}

void Hdf5Object::read_attr_doubles(char const* name, double* out) const
{
    translated(
        [&]
        {
            H5::Attribute a = impl_->object->openAttribute(name);
            a.read(H5::PredType::NATIVE_DOUBLE, out);
        });
}

std::string Hdf5Object::read_attr_string(char const* name) const
{
    return translated(
        [&]
        {
            H5::Attribute a = impl_->object->openAttribute(name);
            std::string value;
            a.read(a.getStrType(), value);
            return value;
        });
}

void Hdf5Object::close()
{
    translated([&] { impl_->object->close(); });
}

std::vector<std::uint64_t> Hdf5Dataset::dims() const
{
    return translated(
        [&]
        {
            H5::DataSpace space = impl_->as<H5::DataSet>().getSpace();
            std::vector<hsize_t> dims(std::size_t(space.getSimpleExtentNdims()));
            space.getSimpleExtentDims(dims.data());
            return std::vector<std::uint64_t>(dims.begin(), dims.end());
        });
}

void Hdf5Dataset::read_doubles(double* out) const
{
    translated([&] { impl_->as<H5::DataSet>().read(out, H5::PredType::NATIVE_DOUBLE); });
}

bool Hdf5Dataset::write_chunk(std::vector<std::uint64_t> const& offset, std::uint32_t filter_mask,
                              void const* bytes, std::size_t size) const
{
    std::vector<hsize_t> const at = hsizes(offset);
    return H5Dwrite_chunk(impl_->as<H5::DataSet>().getId(), H5P_DEFAULT, filter_mask, at.data(),
                          size, bytes) >= 0;
}

Hdf5Group Hdf5Group::create_group(char const* name) const
{
    return translated(
        [&]
        { return impl_->child_of<Hdf5Group>(impl_, impl_->as<H5::Group>().createGroup(name)); });
}

Hdf5Dataset Hdf5Group::write_dataset(char const* name, std::vector<double> const& values) const
{
    return translated(
        [&]
        {
            hsize_t const n = values.size();
            H5::DataSet ds = impl_->as<H5::Group>().createDataSet(
                name, H5::PredType::NATIVE_DOUBLE, H5::DataSpace(1, &n), untimed_dataset());
            if (n > 0)
                ds.write(values.data(), H5::PredType::NATIVE_DOUBLE);
            return impl_->child_of<Hdf5Dataset>(impl_, std::move(ds));
        });
}

Hdf5Dataset Hdf5Group::write_string_dataset(char const* name, std::string const& value) const
{
    return translated(
        [&]
        {
            auto const type = vlen_string_type();
            H5::DataSet ds = impl_->as<H5::Group>().createDataSet(
                name, type, H5::DataSpace(H5S_SCALAR), untimed_dataset());
            char const* s = value.c_str();
            ds.write(&s, type);
            return impl_->child_of<Hdf5Dataset>(impl_, std::move(ds));
        });
}

template <class T>
Hdf5Dataset
Hdf5Group::create_chunked_dataset(char const* name, std::vector<std::uint64_t> const& dims,
                                  std::vector<std::uint64_t> const& chunk, int deflate_level) const
{
    return translated(
        [&]
        {
            std::vector<hsize_t> const extent = hsizes(dims), chunk_extent = hsizes(chunk);
            H5::DataSpace space(int(extent.size()), extent.data());
            H5::DSetCreatPropList props = untimed_dataset();
            props.setChunk(int(chunk_extent.size()), chunk_extent.data());
            props.setDeflate(deflate_level);
            H5::DataSet ds =
                impl_->as<H5::Group>().createDataSet(name, native_type<T>(), space, props);
            return impl_->child_of<Hdf5Dataset>(impl_, std::move(ds));
        });
}

template Hdf5Dataset Hdf5Group::create_chunked_dataset<double>(char const*,
                                                               std::vector<std::uint64_t> const&,
                                                               std::vector<std::uint64_t> const&,
                                                               int) const;
template Hdf5Dataset Hdf5Group::create_chunked_dataset<float>(char const*,
                                                              std::vector<std::uint64_t> const&,
                                                              std::vector<std::uint64_t> const&,
                                                              int) const;
template Hdf5Dataset
Hdf5Group::create_chunked_dataset<std::uint16_t>(char const*, std::vector<std::uint64_t> const&,
                                                 std::vector<std::uint64_t> const&, int) const;

bool Hdf5Group::has_link(char const* name) const
{
    return translated([&] { return impl_->as<H5::Group>().nameExists(name); });
}

Hdf5Dataset Hdf5Group::open_dataset(char const* name) const
{
    return translated(
        [&]
        { return impl_->child_of<Hdf5Dataset>(impl_, impl_->as<H5::Group>().openDataSet(name)); });
}

Hdf5File Hdf5File::open_read_only(std::string const& path)
{
    return translated(
        [&]
        {
            auto impl = std::make_shared<Impl>();
            impl->object = std::make_shared<H5::H5File>(path, H5F_ACC_RDONLY);
            return Hdf5File(std::move(impl));
        });
}

Hdf5MemoryFile::Hdf5MemoryFile(std::string const& path)
    : Hdf5Group(translated(
          [&]
          {
              auto impl = std::make_shared<Impl>();
              impl->memory = std::make_unique<CoreMemory>();
              H5::FileAccPropList fapl;
              fapl.setCore(std::size_t(1) << 24, false);
              H5FD_file_image_callbacks_t callbacks = impl->memory->callbacks();
              MCDOSE_VALIDATE(H5Pset_file_image_callbacks(fapl.getId(), &callbacks) >= 0,
                              << "HDF5 refused the memory callbacks of '" << path << "'");
              impl->object = std::make_shared<H5::H5File>(path, H5F_ACC_TRUNC,
                                                          H5::FileCreatPropList::DEFAULT, fapl);
              return impl;
          }))
{
}

std::size_t Hdf5MemoryFile::close_image()
{
    CoreMemory const& memory = *impl_->memory;
    ssize_t const size = translated(
        [&]
        {
            auto& file = impl_->as<H5::H5File>();
            file.flush(H5F_SCOPE_GLOBAL);
            ssize_t const n = H5Fget_file_image(file.getId(), nullptr, 0);
            file.close();
            return n;
        });
    MCDOSE_VALIDATE(size > 0 && std::size_t(size) <= memory.size && memory.bytes,
                    << "HDF5 gave a file of " << size << " bytes in " << memory.size
                    << " bytes of memory");
    // The closed file's own length: a version 0 superblock with 8-byte addresses holds its
    // end-of-file address at byte 40 (HDF5 file format specification, "Superblock").
    auto const* b = static_cast<unsigned char const*>(memory.bytes);
    if (size >= 48 && b[8] == 0 && b[13] == 8)
    {
        std::uint64_t eof = 0;
        for (int k = 7; k >= 0; --k)
            eof = eof << 8 | b[40 + k];
        MCDOSE_VALIDATE(eof == std::uint64_t(size),
                        << "HDF5 closed the file at " << eof << " bytes, not " << size);
    }
    return std::size_t(size);
}

void const* Hdf5MemoryFile::image() const
{
    return impl_->memory->bytes;
}
} // namespace mcdose
