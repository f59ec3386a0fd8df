// The input an Options asks for, on the host: read from --input, or generated from pattern and seed.
#pragma once

#include "options.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace reduction {

template <class T>
struct HostInput {
    std::vector<T> values;
    std::string description;  // "pattern random, seed 42" or "file 'data.bin'"
};

// The element count before anything is generated, so that memory can be checked first.
// With --input this reads the file (its size gives n).
template <class T>
class InputPlan {
public:
    explicit InputPlan(const Options& options);
    std::size_t n() const { return n_; }
    HostInput<T> load();  // generates (or hands over the file's values)

private:
    const Options& options_;
    std::size_t n_ = 0;
    std::uint64_t seed_ = 0;
    std::vector<T> from_file_;
};

}  // namespace reduction
