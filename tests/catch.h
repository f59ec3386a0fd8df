// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04, Fedora, vcpkg, FetchContent) have different headers;
// the test sources include this one and use the macros both versions share.
#pragma once

#if __has_include(<catch2/catch_test_macros.hpp>)
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#else
#include <catch2/catch.hpp>
#endif
