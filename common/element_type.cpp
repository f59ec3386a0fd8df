#include "element_type.h"

namespace reduction {

const char* type_name(ElementType type) {
    switch (type) {
        case ElementType::int32: return "int32";
        case ElementType::float32: return "float32";
        case ElementType::float64: return "float64";
    }
    return "?";
}

std::size_t type_size(ElementType type) {
    return dispatch_type(type, [](auto zero) { return sizeof(zero); });
}

std::optional<ElementType> parse_type(const std::string& text) {
    for (ElementType t : {ElementType::int32, ElementType::float32, ElementType::float64})
        if (text == type_name(t)) return t;
    return std::nullopt;
}

}  // namespace reduction
