// The int8 forward pass, of an encoder and of a whole model, links no floating point: built for Cortex-M3 with -mfloat-abi=soft,
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
using value = std::int16_t;  // the int8 encoder's rows: its int16 stream
#endif

// A model with every step: patches, learned positions, CLS, embedding LayerNorm, mean pooling,
// a head (tokens, sinusoidal positions: the same steps on other inputs).
using vit = sf::model_config<sf::encoder_config<32, 4, 64, 17, 1, sf::pre_norm, sf::gelu>, sf::patch_input<1, 8, 8, 2>,
                             sf::learned_positions, sf::cls_token, sf::embedding_norm, sf::mean_pooling,
                             sf::classifier_head<10>>;

// Weights from elsewhere (another translation unit, a flash partition): nothing to fold.
extern const sf::encoder_weights<cfg, precision> weights;
const sf::encoder_weights<cfg, precision> weights{};
extern const sf::model_weights<vit, precision> vit_weights;
const sf::model_weights<vit, precision> vit_weights{};

namespace {
value x[cfg::seq_len * cfg::d_model], y[cfg::seq_len * cfg::d_model];
sf::model<vit, precision, sf::reference>::input_type image[vit::input_values];
sf::model<vit, precision, sf::reference>::output_type logits[vit::classes];
}

int main(int argc, char**) {
    static sf::encoder<cfg, precision, sf::reference> encoder{weights};
    static sf::model<vit, precision, sf::reference> model{vit_weights};
    for (int i = 0; i < cfg::seq_len * cfg::d_model; ++i) x[i] = value(i % 7);
    for (std::size_t i = 0; i < vit::input_values; ++i) image[i] = decltype(+image[0])(i % 5);
    int label = 0;
    const bool ok = encoder.forward(x, y, argc > 1 ? cfg::seq_len : 1) == sf::status::ok &&
                    model.classify(image, logits, &label) == sf::status::ok;
    return ok ? label : 100;
}
