#include "../catch.h"
#include "options.h"
TEST_CASE("a power-of-two count parses", "[options]") { CHECK(reduction::parse_count("--n", "2^24") == (std::size_t{1} << 24)); }
