// Built by staticformer_add_dispatch once per level: the default backend of the level's flags.
#include "dispatch_levels.hpp"

namespace sf = staticformer;

template <>
sf::status forward_at<sf::compiled_isa>(const sf::encoder_weights<dispatch_cfg, sf::f32>& w, const float* x, float* y) {
    static sf::workspace_for<dispatch_cfg, sf::default_backend> ws;
    return sf::forward<sf::default_backend>(w, ws, x, y, dispatch_cfg::seq_len);
}
