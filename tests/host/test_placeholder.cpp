#include "../catch.h"
#include "options.h"
TEST_CASE("placeholder", "[options]") { CHECK(reduction::parse_count("--n", "2^24") == (1u << 24)); }
