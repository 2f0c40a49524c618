// The passes of dispatch_passes.hpp with this build's default backend, as the encoder runs them.
#include "dispatch_passes.hpp"

namespace sfbench {

namespace {
template <class Cfg, class P, class T>
sf::status run(const sf::encoder_weights<Cfg, P>& w, const T* x, T* y) {
    using workspace = std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8_for<Cfg, sf::default_backend>,
                                         sf::workspace_for<Cfg, sf::default_backend>>;
    static workspace ws;
    return sf::forward<sf::default_backend>(w, ws, x, y, Cfg::seq_len);
}
}  // namespace

#define SFBENCH_PASSES(Cfg)                                                                                          \
    template <>                                                                                                      \
    sf::status pass_f32<sf::compiled_isa, Cfg>(const sf::encoder_weights<Cfg, sf::f32>& w, const float* x, float* y) { \
        return run(w, x, y);                                                                                         \
    }                                                                                                                \
    template <>                                                                                                      \
    sf::status pass_int8<sf::compiled_isa, Cfg>(const sf::encoder_weights<Cfg, sf::int8>& w, const std::int8_t* x,  \
                                                std::int8_t* y) {                                                    \
        return run(w, x, y);                                                                                         \
    }
SFBENCH_DISPATCH_CONFIGS(SFBENCH_PASSES)

}  // namespace sfbench
