// A user's run-time dispatch (staticformer_add_dispatch): the dispatched pass must give the
// reference backend's bytes. Exit status 0 only then.
#include <cstdio>
#include <cstring>

#include "dispatch_levels.hpp"

namespace sf = staticformer;

alignas(sf::weights_alignment) static sf::encoder_weights<dispatch_cfg, sf::f32> weights;
static float x[dispatch_cfg::seq_len * dispatch_cfg::d_model], y[sizeof x / sizeof x[0]], y_ref[sizeof x / sizeof x[0]];

int main() {
    // A deterministic pattern over every float of the weights (f32 weights hold only floats).
    auto* bytes = reinterpret_cast<unsigned char*>(&weights);
    for (std::size_t i = 0; i < sizeof weights / sizeof(float); ++i) {
        const float v = float(int(i * 37 % 101) - 50) / 128.0f;
        std::memcpy(bytes + i * sizeof v, &v, sizeof v);
    }
    for (std::size_t i = 0; i < sizeof x / sizeof x[0]; ++i) x[i] = float(int(i * 13 % 29) - 14) / 7.0f;
    static sf::workspace_for<dispatch_cfg, sf::reference> ws;
    const sf::status ref = sf::forward<sf::reference>(weights, ws, x, y_ref, dispatch_cfg::seq_len);
    const sf::status got = sf::dispatch([](auto level) { return forward_at<level()>(weights, x, y); });
    const bool same = ref == sf::status::ok && got == sf::status::ok && std::memcmp(y, y_ref, sizeof y) == 0;
    std::printf("dispatched %s: %s\n", sf::isa_name(sf::dispatched_isa()), same ? "the reference's bytes" : "DIFFERENT");
    return same ? 0 : 1;
}
