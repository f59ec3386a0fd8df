// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04, Fedora, vcpkg, FetchContent) have different headers;
// the test sources include this one and use the macros both versions share. CMake defines
// REDUCTION_CATCH2_V2 when the Catch2 it found is a v2.
#pragma once

#ifdef REDUCTION_CATCH2_V2
#include <catch2/catch.hpp>
#else
#include <catch2/catch_test_macros.hpp>
#endif
