// Splits [0, n) into one contiguous chunk per hardware thread: generating and summing 2^31
// elements on one core takes seconds, and the GPU tests do it for every step.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace reduction {

inline unsigned host_threads_for(std::size_t n) {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t useful = n / (std::size_t{1} << 20) + 1;  // not worth a thread below ~1M elements
    return static_cast<unsigned>(std::min<std::size_t>(hardware, useful));
}

// Calls body(chunk, begin, end) for each chunk, concurrently; returns once all are done.
template <class Body>
void for_each_chunk(std::size_t n, unsigned chunks, Body body) {
    if (chunks <= 1) {
        body(0u, std::size_t{0}, n);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(chunks);
    for (unsigned c = 0; c < chunks; ++c)
        threads.emplace_back(body, c, n * c / chunks, n * (c + 1) / chunks);
    for (auto& t : threads) t.join();
}

}  // namespace reduction
