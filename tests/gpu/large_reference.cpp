#include "large_reference.h"

#include "input.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <type_traits>

namespace reduction::test {
namespace {
static_assert(std::is_trivially_copyable_v<Reference>, "the file holds References byte for byte");

// Written and read by the same build of this file: its layout needs no portability, only a check.
struct LargeReferenceFile {
    char magic[8] = {'l', 'a', 'r', 'g', 'e', 'r', 'e', 'f'};
    std::uint64_t reference_bytes = sizeof(Reference);
    std::uint64_t n = large_n;
    std::uint64_t seed = 0;
    Reference int32, float32;
};

template <class T>
Reference LargeReferenceFile::*member() {
    if constexpr (std::is_same_v<T, float>) return &LargeReferenceFile::float32;
    else return &LargeReferenceFile::int32;
}

// The file's contents, or why it cannot be used.
bool read_file(const char* path, LargeReferenceFile& contents, std::string& why) {
    std::FILE* file = std::fopen(path, "rb");
    if (!file) {
        why = "cannot open it";
        return false;
    }
    const bool whole = std::fread(&contents, sizeof contents, 1, file) == 1 && std::fgetc(file) == EOF;
    std::fclose(file);
    const LargeReferenceFile expected;
    if (!whole) why = "not one whole record";
    else if (std::memcmp(contents.magic, expected.magic, sizeof expected.magic) != 0 ||
             contents.reference_bytes != expected.reference_bytes || contents.n != expected.n)
        why = "written by another build";
    return why.empty();
}
}  // namespace

template <class T>
std::optional<LargeInput> stored_large_input() {
    static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, float>, "the large tests' types");
    const char* path = std::getenv("REDUCTION_LARGE_REFERENCE");
    if (!path) return std::nullopt;
    LargeReferenceFile contents;
    std::string why;
    if (read_file(path, contents, why)) return LargeInput{contents.seed, contents.*member<T>()};
    std::cout << "large reference: " << path << ": " << why << "; computed here instead\n";
    return std::nullopt;
}

bool write_large_references(const std::string& path, std::uint64_t seed, std::string& error) {
    LargeReferenceFile contents;
    contents.seed = seed;
    contents.int32 = generated_reference<std::int32_t>(large_n, Pattern::random, seed);
    contents.float32 = generated_reference<float>(large_n, Pattern::random, seed);
    const std::string temporary = path + "." + std::to_string(seed) + ".partial";  // each writer its own
    std::FILE* file = std::fopen(temporary.c_str(), "wb");
    bool written = file && std::fwrite(&contents, sizeof contents, 1, file) == 1;
    if (file) written = std::fclose(file) == 0 && written;
    if (written && std::rename(temporary.c_str(), path.c_str()) == 0) return true;
    error = std::string("cannot write ") + (written ? path : temporary) + ": " + std::strerror(errno);
    std::remove(temporary.c_str());
    return false;
}

template std::optional<LargeInput> stored_large_input<std::int32_t>();
template std::optional<LargeInput> stored_large_input<float>();

}  // namespace reduction::test
