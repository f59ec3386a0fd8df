#include "text_format.h"

#include <cmath>
#include <cstdio>

namespace reduction {

std::string format_number(const char* fmt, double value) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, value);
    return text;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];  // %x needs an unsigned, not the double format_number takes
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_number(double value, const char* fmt) {
    return std::isfinite(value) ? format_number(fmt, value) : "null";
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string size_text(std::size_t n) {
    if (n == 0 || (n & (n - 1)) != 0) return std::to_string(n);
    int log2 = 0;
    while ((std::size_t{1} << log2) < n) ++log2;
    return "2^" + std::to_string(log2);
}

}  // namespace reduction
