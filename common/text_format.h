// Small text helpers for reports and tables: number formatting, JSON and CSV escaping, sizes.
// Host-only and free of CUDA, so the course table library can use them without the runtime.
#pragma once

#include <cstddef>
#include <string>

namespace reduction {

// printf-style formatting of one double, e.g. format_number("%.2f", 1.5) == "1.50".
std::string format_number(const char* fmt, double value);

// A JSON string literal: quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text);

// A JSON number, or null for NaN and infinities (JSON has neither).
std::string json_number(double value, const char* fmt = "%.6g");

// RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
std::string csv_field(const std::string& text);

// "2^12" for powers of two, the decimal number otherwise.
std::string size_text(std::size_t n);

}  // namespace reduction
