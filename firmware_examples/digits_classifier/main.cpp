// digits_classifier: a trained model (tools/train_digits.py) classifies the 450 test digits of
// scikit-learn's digits on the device, from weights in flash and a workspace in RAM. Prints each
// prediction, the accuracy, the instructions per inference (Cortex-M under QEMU: the port's
// counter), how many f32 predictions equal PyTorch's, and a hash of every logit byte: the same
// hash on the host and on every core for a given weights header, as the library is bit-exact.
//
// Built with DIGITS_WEIGHTS=<header name>, e.g. digits_vit_int8 (digits_vit_int8.hpp defines
// digits_vit_int8_config and digits_vit_int8), and DIGITS_TOKENS=1 for the token model.
#include <staticformer/quant/convert.hpp>
#include <staticformer/staticformer.hpp>

#include <cstdint>
#include <cstdio>

#include "digits_test.hpp"

#define DIGITS_STRING(x) #x
#define DIGITS_HEADER(name) DIGITS_STRING(name.hpp)
#define DIGITS_PASTE(a, b) a##b
#define DIGITS_CONFIG(name) DIGITS_PASTE(name, _config)
#include DIGITS_HEADER(DIGITS_WEIGHTS)

#if __has_include(<cycle_counter.h>)
#include <cycle_counter.h>
#define DIGITS_COUNTER 1
#endif

namespace sf = staticformer;
using cfg = DIGITS_CONFIG(DIGITS_WEIGHTS);
using precision = std::remove_cv_t<std::remove_reference_t<decltype(DIGITS_WEIGHTS)>>::precision;
using net_type = sf::model<cfg, precision>;

namespace {

net_type net{DIGITS_WEIGHTS};  // weights: .rodata (flash); workspace: .bss (RAM)
net_type::input_type input[cfg::input_values];
net_type::output_type logits[cfg::classes];

// The model's input for test image i: token ids (pixel values 0..16), or pixels / 16 (int8:
// quantised with the model's input quantisation).
template <class W>
void load_image(const W& w, int i) {
    for (int p = 0; p < 64; ++p) {
        const int v = digits_test_images[i][p];
        if constexpr (cfg::input == sf::input_kind::tokens) {
            input[p] = v;
        } else if constexpr (std::is_same<typename W::precision, sf::int8>::value) {
            input[p] = sf::quantize_value(float(v) / 16.0f, w.quant.input);
        } else {
            input[p] = float(v) / 16.0f;
        }
    }
}

std::uint64_t fnv1a(std::uint64_t h, const void* data, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) h = (h ^ static_cast<const unsigned char*>(data)[k]) * 0x100000001b3ull;
    return h;
}

}  // namespace

int main() {
    const std::uint8_t* torch = DIGITS_TOKENS ? digits_torch_tokens : digits_torch_vit;
    std::uint64_t hash = 0xcbf29ce484222325ull;
#ifdef DIGITS_COUNTER
    std::uint64_t instructions = 0;
#endif
    int correct = 0, as_torch = 0;
    std::printf("digits_classifier: " DIGITS_STRING(DIGITS_WEIGHTS) ", %d test images, weights %u B, workspace %u B\n",
                digits_test_count, unsigned(net_type::weight_bytes), unsigned(net_type::workspace_bytes));
    std::printf("predictions:");
    for (int i = 0; i < digits_test_count; ++i) {
        load_image(DIGITS_WEIGHTS, i);
        int label = -1;
#ifdef DIGITS_COUNTER
        sf_port_counter_start();
#endif
        const sf::status s = net.classify(input, logits, &label);
#ifdef DIGITS_COUNTER
        instructions += sf_port_counter_read();
#endif
        if (s != sf::status::ok) {
            std::printf("\nimage %d: %s\n", i, sf::to_string(s));
            return 1;
        }
        hash = fnv1a(hash, logits, sizeof logits);
        correct += label == digits_test_labels[i];
        as_torch += label == torch[i];
        std::printf("%s%d", i % 50 ? "" : "\n  ", label);
    }
    std::printf("\naccuracy %d / %d\n", correct, digits_test_count);
    std::printf("same prediction as PyTorch (f32 model) %d / %d\n", as_torch, digits_test_count);
#ifdef DIGITS_COUNTER
    std::printf("instructions per inference %llu\n", (unsigned long long)(instructions / digits_test_count));
#endif
    std::printf("logits hash %08lx%08lx\n", (unsigned long)(hash >> 32), (unsigned long)(hash & 0xffffffffu));
    return 0;
}
