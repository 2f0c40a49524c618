// The demo's second part: the trained digits models (tools/train_digits.py, data/digits/) on
// this host in every precision: test-set accuracy and the median latency of one classification.
// Built once per instruction-set level (dispatched.hpp).
#include <staticformer/quant/convert.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <type_traits>

#include "dispatched.hpp"

namespace sf = staticformer;

namespace {

// Test image i as the model's input: token ids (pixel values), or pixels / 16 (int8: quantised).
template <class Model, class W>
void load_image(const W& w, const std::uint8_t (&image)[64], typename Model::input_type* in) {
    using cfg = typename Model::config;
    for (int p = 0; p < 64; ++p) {
        const int v = image[p];
        if constexpr (cfg::input == sf::input_kind::tokens)
            in[p] = v;
        else if constexpr (std::is_same<typename Model::precision, sf::int8>::value)
            in[p] = sf::quantize_value(float(v) / 16.0f, w.quant.input);
        else
            in[p] = float(v) / 16.0f;
    }
}

constexpr int max_images = 1024;

template <class Cfg, class P>
void report(const char* name, const sf::model_weights<Cfg, P>& w, const digits_data& d) {
    using model = sf::model<Cfg, P>;
    static model net{w};
    static typename model::input_type in[Cfg::input_values];
    typename model::output_type logits[Cfg::classes];
    static double seconds[max_images];
    const int count = std::min(d.count, max_images);
    int correct = 0;
    for (int i = 0; i < count; ++i) {
        load_image<model>(w, d.images[i], in);
        int label = -1;
        const auto t0 = std::chrono::steady_clock::now();
        net.classify(in, logits, &label);
        seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        correct += label == d.labels[i];
    }
    std::sort(seconds, seconds + count);
    std::printf("  %-19s %6.2f%%  %8.1f us  %7zu B weights  %6zu B workspace\n", name,
                100.0 * correct / count, 1e6 * seconds[count / 2], sizeof(w),
                model::workspace_bytes);
}

}  // namespace

template <>
void run_digits<sf::compiled_isa>(const digits_data& d) {
    std::printf("\ntrained digits models (tools/train_digits.py), %d test images, kernels of %s:\n", d.count,
                sf::isa_name(sf::compiled_isa));
    std::printf("  %-19s %7s  %11s\n", "model", "accuracy", "latency");
    report("digits_vit", d.vit, d);
    report("digits_vit_f16", d.vit_f16, d);
    report("digits_vit_int8", d.vit_int8, d);
    report("digits_tokens", d.tokens, d);
    report("digits_tokens_f16", d.tokens_f16, d);
    report("digits_tokens_int8", d.tokens_int8, d);
}
