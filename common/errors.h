// The two kinds of failure that are the user's or the machine's, not the program's.
#pragma once

#include <stdexcept>

namespace reduction {

// A malformed flag, a value out of range, an unreadable or wrong-sized --input file: exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// No CUDA device or driver, or too little memory for the requested size: exit 3.
class EnvironmentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace reduction
