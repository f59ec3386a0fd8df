// The statistics over the timed repetitions and the bandwidth computed from them (no GPU needed:
// only the host-side arithmetic of timer.h).
#include "../catch.h"
#include "host_test_support.h"
#include "timer.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace reduction;

TEST_CASE("summarize: median and minimum of an odd count", "[timer]") {
    const TimingStats stats = summarize({3.0, 1.0, 2.0});
    CHECK(stats.median_ms == 2.0);
    CHECK(stats.min_ms == 1.0);
    CHECK(stats.count == 3);
}

TEST_CASE("summarize: an even count's median is the mean of the middle two", "[timer]") {
    const TimingStats stats = summarize({4.0, 1.0, 3.0, 2.0});
    CHECK(stats.median_ms == 2.5);
    CHECK(stats.min_ms == 1.0);
    CHECK(stats.count == 4);
    CHECK(summarize({1.0, 2.0}).median_ms == 1.5);
}

TEST_CASE("summarize: order of the samples does not matter", "[timer]") {
    // an outlier at either end (a slow first repetition, a lucky one) moves neither the median
    const std::vector<double> sorted{0.5, 1.0, 1.0, 1.1, 1.2, 1.3, 50.0};
    const std::vector<double> shuffled{1.2, 50.0, 1.0, 0.5, 1.3, 1.0, 1.1};
    for (const auto& samples : {sorted, shuffled}) {
        const TimingStats stats = summarize(samples);
        CHECK(stats.median_ms == 1.1);
        CHECK(stats.min_ms == 0.5);
        CHECK(stats.count == 7);
    }
}

TEST_CASE("summarize: one sample is its own median and minimum", "[timer]") {
    const TimingStats stats = summarize({7.25});
    CHECK(stats.median_ms == 7.25);
    CHECK(stats.min_ms == 7.25);
    CHECK(stats.count == 1);
}

TEST_CASE("summarize: no samples is an error, not a zero time", "[timer]") {
    CHECK_THROWS_AS(summarize({}), std::invalid_argument);
}

TEST_CASE("bandwidth is bytes over time in 10^9 bytes per second", "[timer]") {
    CHECK(test::close_to(bandwidth_gbps(1000000000, 1.0), 1000.0, 1e-12));
    // 2^24 int32 = 67108864 bytes in 0.1 ms
    CHECK(test::close_to(bandwidth_gbps((std::size_t{1} << 24) * sizeof(std::int32_t), 0.1), 671.08864, 1e-12));
    // halving the time doubles the bandwidth
    CHECK(test::close_to(bandwidth_gbps(1000000000, 0.5), 2000.0, 1e-12));
}
