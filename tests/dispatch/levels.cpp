// Built once per level by staticformer_add_dispatch: each forward pass below runs the kernels
// these flags give (sf::default_backend), as an explicit specialisation for sf::compiled_isa.
#include "levels.hpp"

#include "../common/default_forward.hpp"

namespace sftest {

#define SFTEST_DISPATCH_ENTRIES(Cfg)                                                                                   \
    template <>                                                                                                        \
    sf::status forward_f32<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::f32>& w, const float* x, float* y, int n) { \
        return default_forward(w, x, y, n);                                                                                        \
    }                                                                                                                  \
    template <>                                                                                                        \
    sf::status forward_f16<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::f16>& w, const float* x, float* y, int n) { \
        return default_forward(w, x, y, n);                                                                                        \
    }                                                                                                                  \
    template <>                                                                                                        \
    sf::status forward_int8<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::int8>& w, const std::int16_t* x,         \
                                                   std::int16_t* y, int n) {                                           \
        return default_forward(w, x, y, n);                                                                                        \
    }
SFTEST_DISPATCH_CASES(SFTEST_DISPATCH_ENTRIES)

template <>
sf::isa level_seen_by<sf::compiled_isa>() {
    return level_of_inline_code();
}

}  // namespace sftest
