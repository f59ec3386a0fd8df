// Small helpers the host tests share. Only Catch2 macros that v2 and v3 both have are used, so
// messages are checked by catching the exception (CHECK_THROWS_WITH's matcher forms differ).
#pragma once

#include "../catch.h"
#include "exit_codes.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace reduction::test {

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// CHECK(f(input) == text) for each (input, text) pair of a table, a failure naming its input.
template <class In, class F>
void check_each(const F& f, std::initializer_list<std::pair<In, const char*>> cases) {
    for (const auto& [input, text] : cases) {
        INFO("input " << input);
        CHECK(f(input) == text);
    }
}

// The message of the UsageError that f() throws. When f() throws nothing the result is a marker
// that no expected message contains, so the caller's CHECKs fail and show it. Any other exception
// propagates: a wrong exception type is a failure too.
template <class F>
std::string usage_error_message(F&& f) {
    try {
        f();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "<no UsageError was thrown>";
}

// |actual - expected| <= relative * |expected|: Catch's Approx lives in different headers in v2 and v3.
inline bool close_to(double actual, double expected, double relative) {
    return std::fabs(actual - expected) <= relative * std::fabs(expected);
}

// A fresh folder under the system's temporary directory, removed with its contents on destruction,
// so that tests never write into the source tree and never see each other's files.
class TempDir {
public:
    TempDir() {
        std::random_device random;
        path_ = std::filesystem::temp_directory_path() /
                ("reduction_host_tests_" + std::to_string((std::uint64_t{random()} << 32) ^ random()));
        std::filesystem::create_directories(path_);
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string file(const std::string& name) const { return (path_ / name).string(); }

    // Writes exactly these bytes, well-formed or not.
    std::string write_bytes(const std::string& name, const std::vector<unsigned char>& bytes) const {
        const std::string path = file(name);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        if (!out) throw std::system_error(errno, std::generic_category(), "writing " + path);
        return path;
    }

    // Writes raw values, as an --input file holds them.
    template <class T>
    std::string write_values(const std::string& name, const std::vector<T>& values) const {
        const auto* first = reinterpret_cast<const unsigned char*>(values.data());
        return write_bytes(name, std::vector<unsigned char>(first, first + values.size() * sizeof(T)));
    }

private:
    std::filesystem::path path_;
};

}  // namespace reduction::test
