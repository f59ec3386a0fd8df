// The element types a reduction can run on, named as on the command line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace reduction {
enum class ElementType { int32, float32, float64 };
inline constexpr const char* accepted_types = "int32, float32, float64";
template <class T> constexpr ElementType element_type_of();
template <> constexpr ElementType element_type_of<std::int32_t>() { return ElementType::int32; }
template <> constexpr ElementType element_type_of<float>() { return ElementType::float32; }
template <> constexpr ElementType element_type_of<double>() { return ElementType::float64; }
// Calls f(T{}) with T the C++ type behind `type`: the one switch from run-time type to template.
template <class F>
decltype(auto) dispatch_type(ElementType type, F&& f) {
    switch (type) {
        case ElementType::int32: return f(std::int32_t{});
        case ElementType::float32: return f(float{});
        case ElementType::float64: break;
    }
    return f(double{});
}

inline const char* type_name(ElementType type) {  // "int32", "float32", "float64"
    return dispatch_type(type, [](auto zero) {
        return std::is_integral_v<decltype(zero)> ? "int32" : sizeof(zero) == 4 ? "float32" : "float64";
    });
}

inline std::size_t type_size(ElementType type) {  // bytes per element
    return dispatch_type(type, [](auto zero) { return sizeof(zero); });
}
}  // namespace reduction
