#include "timer.h"

#include <algorithm>
#include <stdexcept>

namespace reduction {

TimingStats summarize(std::vector<double> samples_ms) {
    if (samples_ms.empty()) throw std::invalid_argument("summarize: no timing samples");
    std::sort(samples_ms.begin(), samples_ms.end());
    const std::size_t count = samples_ms.size();
    TimingStats stats;
    stats.count = static_cast<int>(count);
    stats.min_ms = samples_ms.front();
    stats.median_ms = count % 2 == 1 ? samples_ms[count / 2]
                                     : (samples_ms[count / 2 - 1] + samples_ms[count / 2]) / 2;
    return stats;
}

}  // namespace reduction
