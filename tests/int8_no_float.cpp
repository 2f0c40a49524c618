// The int8 forward pass links no floating point: built for Cortex-M3 with -mfloat-abi=soft,
// where every float or double operation becomes a call to a libgcc helper (__aeabi_fadd,
// __aeabi_i2f, __aeabi_dmul, ...), this image must contain none (no_float_check.cmake reads its
// symbol table). Built with SF_FLOAT_CONTROL it runs the f32 forward pass instead: the same
// check must then find helpers, which shows the check can fail.
#include <staticformer/staticformer.hpp>

namespace sf = staticformer;

using cfg = sf::encoder_config<64, 4, 256, 32, 2, sf::pre_norm, sf::gelu, sf::final_norm>;
#ifdef SF_FLOAT_CONTROL
using precision = sf::f32;
using value = float;
#else
using precision = sf::int8;
using value = std::int8_t;
#endif

// Weights from elsewhere (another translation unit, a flash partition): nothing to fold.
extern const sf::encoder_weights<cfg, precision> weights;
const sf::encoder_weights<cfg, precision> weights{};

namespace {
value x[cfg::seq_len * cfg::d_model], y[cfg::seq_len * cfg::d_model];
}

int main(int argc, char**) {
    static sf::encoder<cfg, precision, sf::reference> encoder{weights};
    for (int i = 0; i < cfg::seq_len * cfg::d_model; ++i) x[i] = value(i % 7);
    return encoder.forward(x, y, argc > 1 ? cfg::seq_len : 1) == sf::status::ok ? 0 : 1;
}
