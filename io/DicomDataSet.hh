//! \file io/DicomDataSet.hh
//! Thin typed access to DICOM data sets over GDCM, so that GDCM's headers stay in io/: a
//! data set built element by element and encoded as the bytes of a Part 10 file
//! (DicomDataSet, new_dicom_uid), and a DICOM image file read back: its elements' text,
//! its grid of pixels and their decoded values (DicomImageFile), and any DICOM file's data
//! set read back element by element, sequences included (DicomReadSet). Which elements a file
//! holds is the caller's (e.g. dose/RtDose.cc); the tags and value representations are
//! those of DICOM PS3.5 and PS3.6.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mcdose
{
//! A data element's tag (group, element).
struct DicomTag
{
    std::uint16_t group;
    std::uint16_t element;
};

//! The value representations DicomDataSet writes (PS3.5 section 6.2).
enum class DicomVr
{
    AT, //!< attribute tag
    CS, //!< code string
    DA, //!< date
    DS, //!< decimal string
    IS, //!< integer string
    LO, //!< long string
    OW, //!< other word
    PN, //!< person name
    SH, //!< short string
    TM, //!< time
    UI  //!< unique identifier
};

//! A data set being built: each element put replaces the one of its tag, if any.
class DicomDataSet
{
  public:
    DicomDataSet();
    ~DicomDataSet();
    DicomDataSet(DicomDataSet const& other);
    DicomDataSet& operator=(DicomDataSet const& other);

    //! A text element, padded to an even length (a UI with NUL, other text with a space).
    void put(DicomTag tag, DicomVr vr, std::string value);
    //! An element whose value is `size` bytes as given (e.g. AT, OW; an even number).
    void put_bytes(DicomTag tag, DicomVr vr, void const* bytes, std::size_t size);
    //! An unsigned 16-bit element (VR US), as GDCM's Attribute writes one.
    void put_us(DicomTag tag, std::uint16_t value);
    //! A sequence (VR SQ) of undefined length holding `items`, each of undefined length.
    void put_sequence(DicomTag tag, std::vector<DicomDataSet> const& items);

    //! The data set as the bytes of a Part 10 file (the file meta information made from it)
    //! in Explicit VR Little Endian; none where GDCM cannot encode it.
    std::optional<std::string> encode_explicit_little_endian() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

//! GDCM's own warnings and errors (printed on stderr) turned off: mcdose reports every problem
//! itself, naming the file and the element. Called before GDCM reads a file.
void quiet_gdcm();

//! A new UID: GDCM's root and a suffix unique to this call.
std::string new_dicom_uid();

//! A data set read from a DICOM file, or an item of one of its sequences (the items share
//! the file, which stays in memory while any of them lives). Read-only; copies are cheap.
class DicomReadSet
{
  public:
    //! Read the Part 10 file `path` (any transfer syntax GDCM reads); none where GDCM cannot.
    static std::optional<DicomReadSet> read(std::string const& path);

    //! Whether the data set holds the element (with or without a value).
    bool has(DicomTag tag) const;
    //! A text element's value without its padding (io/DicomValue.hh); "" when the element
    //! is absent or has no value.
    std::string text(DicomTag tag) const;
    //! The items of a sequence element, in order; none when the element is absent or empty.
    std::vector<DicomReadSet> items(DicomTag tag) const;

  private:
    struct Impl;
    explicit DicomReadSet(std::shared_ptr<Impl const> impl);
    std::shared_ptr<Impl const> impl_;
};

//! A DICOM image file read by GDCM (any transfer syntax it decodes).
class DicomImageFile
{
  public:
    DicomImageFile();
    ~DicomImageFile();
    DicomImageFile(DicomImageFile const&) = delete;
    DicomImageFile& operator=(DicomImageFile const&) = delete;

    //! Read `path` as an image; false where GDCM cannot.
    bool read(std::string const& path);

    //! A text element's value without its padding (io/DicomValue.hh); "" when the element
    //! is absent or has no value.
    std::string text(DicomTag tag) const;

    //! The image's number of dimensions (2, or 3 for several frames).
    unsigned number_of_dimensions() const;
    //! Columns, rows and frames (the third only with 3 dimensions).
    std::array<unsigned, 3> dimensions() const;

    //! How the pixels are stored: Samples per Pixel, Bits Allocated and Pixel
    //! Representation (0 unsigned, 1 signed).
    struct PixelFormat
    {
        unsigned samples_per_pixel;
        unsigned bits_allocated;
        unsigned representation;
    };
    PixelFormat pixel_format() const;
    //! The pixels decoded (frames after one another, rows, columns fastest); none where GDCM
    //! cannot decode them (e.g. an unsupported compression).
    std::optional<std::vector<char>> decoded_pixels() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
} // namespace mcdose
