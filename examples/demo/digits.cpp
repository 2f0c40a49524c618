// The demo's second part: the trained digits models (tools/train_digits.py, tools/digits/) on
// this host in every precision: test-set accuracy and the median latency of one classification.
#include <staticformer/quant/convert.hpp>
#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <type_traits>

#include "digits_test.hpp"
#include "digits_tokens.hpp"
#include "digits_tokens_f16.hpp"
#include "digits_tokens_int8.hpp"
#include "digits_vit.hpp"
#include "digits_vit_f16.hpp"
#include "digits_vit_int8.hpp"

namespace sf = staticformer;

namespace {

// Test image i as the model's input: token ids (pixel values), or pixels / 16 (int8: quantised).
template <class Model, class W>
void load_image(const W& w, int i, typename Model::input_type* in) {
    using cfg = typename Model::config;
    for (int p = 0; p < 64; ++p) {
        const int v = digits_test_images[i][p];
        if constexpr (cfg::input == sf::input_kind::tokens)
            in[p] = v;
        else if constexpr (std::is_same<typename Model::precision, sf::int8>::value)
            in[p] = sf::quantize_value(float(v) / 16.0f, w.quant.input);
        else
            in[p] = float(v) / 16.0f;
    }
}

template <class Cfg, class P>
void report(const char* name, const sf::model_weights<Cfg, P>& w) {
    using model = sf::model<Cfg, P>;
    static model net{w};
    static typename model::input_type in[Cfg::input_values];
    typename model::output_type logits[Cfg::classes];
    static double seconds[digits_test_count];
    int correct = 0;
    for (int i = 0; i < digits_test_count; ++i) {
        load_image<model>(w, i, in);
        int label = -1;
        const auto t0 = std::chrono::steady_clock::now();
        net.classify(in, logits, &label);
        seconds[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        correct += label == digits_test_labels[i];
    }
    std::sort(seconds, seconds + digits_test_count);
    std::printf("  %-19s %6.2f%%  %8.1f us  %7zu B weights  %6zu B workspace\n", name,
                100.0 * correct / digits_test_count, 1e6 * seconds[digits_test_count / 2], sizeof(w),
                model::workspace_bytes);
}

}  // namespace

void run_digits() {
    std::printf("\ntrained digits models (tools/train_digits.py), %d test images, default backend:\n",
                digits_test_count);
    std::printf("  %-19s %7s  %11s\n", "model", "accuracy", "latency");
    report("digits_vit", digits_vit);
    report("digits_vit_f16", digits_vit_f16);
    report("digits_vit_int8", digits_vit_int8);
    report("digits_tokens", digits_tokens);
    report("digits_tokens_f16", digits_tokens_f16);
    report("digits_tokens_int8", digits_tokens_int8);
}
