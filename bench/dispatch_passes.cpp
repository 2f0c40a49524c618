// The passes of dispatch_passes.hpp with this build's default backend, as the encoder runs them.
#include "dispatch_passes.hpp"

#include "common/default_forward.hpp"

namespace sfbench {

#define SFBENCH_PASSES(Cfg)                                                                                          \
    template <>                                                                                                      \
    sf::status pass_f32<sf::compiled_isa, Cfg>(const sf::encoder_weights<Cfg, sf::f32>& w, const float* x, float* y) { \
        return sftest::default_forward(w, x, y, Cfg::seq_len);                                                                                         \
    }                                                                                                                \
    template <>                                                                                                      \
    sf::status pass_int8<sf::compiled_isa, Cfg>(const sf::encoder_weights<Cfg, sf::int8>& w, const std::int16_t* x, \
                                                std::int16_t* y) {                                                   \
        return sftest::default_forward(w, x, y, Cfg::seq_len);                                                                                         \
    }
SFBENCH_DISPATCH_CONFIGS(SFBENCH_PASSES)

}  // namespace sfbench
