// Built once per level by staticformer_add_dispatch: each forward pass below runs the kernels
// these flags give (sf::default_backend), as an explicit specialisation for sf::compiled_isa.
#include "levels.hpp"

namespace sftest {

namespace {
template <class Cfg, class P, class T>
sf::status run(const weights_of<Cfg, P>& w, const T* x, T* y, int valid_len) {
    using workspace = std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8_for<Cfg, sf::default_backend>,
                                         sf::workspace_for<Cfg, sf::default_backend>>;
    static workspace ws;
    return sf::forward<sf::default_backend>(w, ws, x, y, valid_len);
}
}  // namespace

#define SFTEST_DISPATCH_ENTRIES(Cfg)                                                                                   \
    template <>                                                                                                        \
    sf::status forward_f32<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::f32>& w, const float* x, float* y, int n) { \
        return run(w, x, y, n);                                                                                        \
    }                                                                                                                  \
    template <>                                                                                                        \
    sf::status forward_f16<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::f16>& w, const float* x, float* y, int n) { \
        return run(w, x, y, n);                                                                                        \
    }                                                                                                                  \
    template <>                                                                                                        \
    sf::status forward_int8<sf::compiled_isa, Cfg>(const weights_of<Cfg, sf::int8>& w, const std::int8_t* x,          \
                                                   std::int8_t* y, int n) {                                            \
        return run(w, x, y, n);                                                                                        \
    }
SFTEST_DISPATCH_CASES(SFTEST_DISPATCH_ENTRIES)

template <>
sf::isa level_seen_by<sf::compiled_isa>() {
    return level_of_inline_code();
}

}  // namespace sftest
