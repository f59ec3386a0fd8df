// The values to sum: generated from a seed or read from a raw file, then put on the device with
// their reference. Every problem with --input is found before any GPU is looked for.
#pragma once

#include "device_buffer.h"
#include "element_type.h"
#include "pattern.h"
#include "reference.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace reduction {

struct Options;

// Element i depends only on (seed, i), so chunks are generated in parallel and any element can be
// recomputed on its own.
template <class T>
std::vector<T> generate_input(std::size_t n, Pattern pattern, std::uint64_t seed);

// The element count of a raw --input file of `type`, from its size alone (nothing is read):
// a missing, unreadable, empty or wrong-sized file throws UsageError naming the problem.
std::size_t input_file_count(const std::string& path, ElementType type);

// Raw little-endian values of T; checked as input_file_count does, then read whole.
template <class T>
std::vector<T> read_input_file(const std::string& path);

std::uint64_t fresh_seed();  // from std::random_device: a new input every run, printed for replay

// The element count the options ask for: --n, or the --input file's (checked as above).
std::size_t input_count(const Options& options, ElementType type);

// "pattern random, seed 42" or "file 'data.bin'". Generated input needs options.seed set.
std::string input_description(const Options& options);

template <class T>
struct DeviceInput {
    std::size_t n = 0;
    Reference reference;
    DeviceBuffer<T> values;
};

// Generates (or reads) the values the options ask for, computes their reference, copies them to
// the device and frees the host copy: big inputs are not held twice. Check device memory first.
template <class T>
DeviceInput<T> upload_input(const Options& options);

}  // namespace reduction
