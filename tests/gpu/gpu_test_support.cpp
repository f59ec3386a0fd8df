#include "gpu_test_support.h"

#include "input.h"

#include <cstdlib>

namespace reduction::test {
namespace {
std::string& reason_storage() {
    static std::string reason;
    return reason;
}
}  // namespace

std::uint64_t test_seed() {
    if (const char* text = std::getenv("REDUCTION_TEST_SEED")) return std::strtoull(text, nullptr, 10);
    return fresh_seed();
}

void mark_skipped(const std::string& reason) {
    std::string& all = reason_storage();
    all += (all.empty() ? "" : "; ") + reason;
}

bool skipped_for_resources() { return !reason_storage().empty(); }
std::string skip_reason() { return reason_storage(); }

}  // namespace reduction::test
