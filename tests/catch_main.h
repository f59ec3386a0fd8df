// For the one source file that defines main(): Catch::Session in either Catch2 version.
#pragma once

#ifdef REDUCTION_CATCH2_V2
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#else
#include <catch2/catch_session.hpp>
#endif
