// The C++ API's side of c_classifier: staticformer::model (its own workspace, the default
// backend's tile) on the same weights headers as the C API.
#include "reference.h"

#include <staticformer/staticformer.hpp>

#include "cmodel_a16w8.hpp"
#include "cmodel_f16.hpp"
#include "cmodel_f32.hpp"
#include "cmodel_int8.hpp"

namespace sf = staticformer;

namespace {

template <class Cfg, class P>
int classify(const sf::model_weights<Cfg, P>& w, const std::int32_t* ids, int valid, sf::key_padding_mask mask,
             void* logits, int* label) {
    static sf::model<Cfg, P> net{w};
    using output_type = typename sf::model<Cfg, P>::output_type;
    return int(net.classify(ids, static_cast<output_type*>(logits), label, valid, mask));
}

}  // namespace

extern "C" int reference_classify(int precision, const std::int32_t* ids, int valid_tokens, const std::uint8_t* mask,
                                  int mask_length, void* logits, int* label) {
    const sf::key_padding_mask m{mask, mask_length};
    switch (precision) {
    case 0: return classify(cmodel_f32, ids, valid_tokens, m, logits, label);
    case 1: return classify(cmodel_f16, ids, valid_tokens, m, logits, label);
    case 2: return classify(cmodel_int8, ids, valid_tokens, m, logits, label);
    default: return classify(cmodel_a16w8, ids, valid_tokens, m, logits, label);
    }
}

// precision 2: int8, else a16w8.
extern "C" void reference_quantization(int precision, float* input_scale, std::int32_t* input_zero_point,
                                       float* output_scale, std::int32_t* output_zero_point) {
    const sf::quantization in = precision == 2 ? cmodel_int8.quant.input : cmodel_a16w8.quant.input;
    const sf::quantization out = precision == 2 ? cmodel_int8.quant.logits : cmodel_a16w8.quant.logits;
    *input_scale = in.scale, *input_zero_point = in.zero_point;
    *output_scale = out.scale, *output_zero_point = out.zero_point;
}
