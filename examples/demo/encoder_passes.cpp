// One forward pass of the example encoder with the default backend of this level's flags.
#include "dispatched.hpp"

namespace sf = staticformer;
using cfg = demo_model_config;

template <>
sf::status forward_f32<sf::compiled_isa>(const sf::encoder_weights<cfg, sf::f32>& w, const float* in, float* out,
                                         int valid_len) {
    static sf::workspace_for<cfg, sf::default_backend> workspace;
    return sf::forward<sf::default_backend>(w, workspace, in, out, valid_len);
}

template <>
sf::status forward_int8<sf::compiled_isa>(const sf::encoder_weights<cfg, sf::int8>& w, const std::int16_t* in,
                                          std::int16_t* out, int valid_len) {
    static sf::workspace_int8_for<cfg, sf::default_backend> workspace;
    return sf::forward<sf::default_backend>(w, workspace, in, out, valid_len);
}
