// One forward pass with the default backend of the flags this file is compiled with, through a
// static workspace of that backend's tile: the body of a per-level entry point of run-time
// dispatch (tests/dispatch, bench/bench_dispatch). Each level's copy has its own workspace.
#pragma once

#include <staticformer/staticformer.hpp>

#include <type_traits>

namespace sftest {

template <class Cfg, class P, class T>
staticformer::status default_forward(const staticformer::encoder_weights<Cfg, P>& w, const T* x, T* y, int valid_len) {
    namespace sf = staticformer;
    using workspace = std::conditional_t<std::is_same<P, sf::int8>::value, sf::workspace_int8_for<Cfg, sf::default_backend>,
                                         sf::workspace_for<Cfg, sf::default_backend>>;
    static workspace ws;
    return sf::forward<sf::default_backend>(w, ws, x, y, valid_len);
}

}  // namespace sftest
