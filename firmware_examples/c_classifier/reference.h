/* The C++ API's results for main.c to compare with (reference.cpp). */
#ifndef C_CLASSIFIER_REFERENCE_H
#define C_CLASSIFIER_REFERENCE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* precision 0 f32, 1 f16, 2 int8, 3 a16w8: staticformer::model<cfg, P>::classify on ids with a key
 * padding mask of mask_length entries (NULL, 0: none); logits are floats (int8, a16w8: int32_t).
 * Returns the staticformer::status as an int. */
int reference_classify(int precision, const int32_t* ids, int valid_tokens, const uint8_t* mask, int mask_length,
                       void* logits, int* label);
/* The int8 (precision 2) or a16w8 (3) model's input and logits quantisation (weights.quant.input,
 * weights.quant.logits). */
void reference_quantization(int precision, float* input_scale, int32_t* input_zero_point, float* output_scale,
                            int32_t* output_zero_point);
#ifdef __cplusplus
}
#endif
#endif
