// The generated input, written on the device: the GPU makes a 32 GiB input in milliseconds, where
// building it on the host and copying it took most of a large run's time and all of its memory.
#pragma once

#include "pattern.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace reduction {

// out[k] = element first + k of the input (pattern, seed), for k in [0, count): the same values as
// generate_input, from the same formula (input_formula.h). `first` places a small window anywhere
// in a virtual index space, so a window past 2^32 needs no buffer of that size. Asynchronous on
// `stream`; count 0 launches nothing.
template <class T>
void fill_input(T* out, std::size_t first, std::size_t count, Pattern pattern, std::uint64_t seed, cudaStream_t stream);

}  // namespace reduction
