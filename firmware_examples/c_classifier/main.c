/* c_classifier: a firmware program in C that runs a model through the C API tools/export_pytorch.py
 * --c-api wrote (model/cmodel_<precision>.h, make_model.py), in f32, f16, int8 and a16w8, and checks every
 * result byte for byte (memcmp) against the C++ API's (reference.cpp: staticformer::model::classify)
 * on the same inputs, with the static workspace, with a caller-owned one and in batches (on the
 * caller's thread and through an executor); that bad input
 * returns its status and leaves the output alone; and the int8 and a16w8 quantisation it reports. Exit status 0 when all agree. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmodel_a16w8.h"
#include "cmodel_f16.h"
#include "cmodel_f32.h"
#include "cmodel_int8.h"
#include "reference.h"

#define INPUTS 12

/* The inputs: token ids, how many of them are valid and a key padding mask over them (main
 * fills them: left padding and every fourth token from the third, the last valid one kept). */
static int32_t ids[INPUTS][CMODEL_F32_INPUT_TOKENS];
static int valid[INPUTS];
static uint8_t mask[INPUTS][CMODEL_F32_INPUT_TOKENS];

static int failures = 0;

static void check(int ok, const char* what, int input) {
    if (!ok) {
        printf("FAIL %s (input %d)\n", what, input);
        ++failures;
    }
}

static uint32_t lcg_state = 23u;
static int32_t next_id(void) {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (int32_t)((lcg_state >> 16) % 17u);
}

/* FNV-1a over bytes: one printed line per precision, the same on every target. */
static uint32_t fnv1a(uint32_t h, const void* data, size_t n) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t k = 0; k < n; ++k) h = (h ^ p[k]) * 16777619u;
    return h;
}

/* One precision: PREFIX's C API against the C++ API's reference_classify(precision, ...). The
 * three APIs differ only in names and element types, hence a macro. */
#define CHECK_PRECISION(prefix, P, precision)                                                               \
    static void check_##prefix(void) {                                                                      \
        static _Alignas(P##_WORKSPACE_ALIGN) unsigned char workspace[P##_WORKSPACE_BYTES + 1];               \
        uint32_t hash = 2166136261u;                                                                        \
        for (int i = 0; i < INPUTS; ++i) {                                                                  \
            prefix##_output_t a[P##_CLASSES], b[P##_CLASSES], c[P##_CLASSES], expected[P##_CLASSES];         \
            int la = -1, lb = -1, lexpected = -2;                                                  \
            check(reference_classify(precision, ids[i], valid[i], NULL, 0, expected, &lexpected) == 0, "C++ API", i); \
            check(prefix##_classify(ids[i], a, &la, valid[i]) == P##_STATUS_OK, #prefix "_classify", i);     \
            check(prefix##_classify_ws(workspace, sizeof workspace, ids[i], b, &lb, valid[i]) == P##_STATUS_OK, \
                  #prefix "_classify_ws", i);                                                               \
            check(prefix##_forward(ids[i], c, valid[i]) == P##_STATUS_OK, #prefix "_forward", i);            \
            check(memcmp(a, expected, sizeof a) == 0 && la == lexpected, #prefix "_classify == C++", i);     \
            check(memcmp(b, expected, sizeof b) == 0 && lb == lexpected, #prefix "_classify_ws == C++", i);  \
            check(memcmp(c, expected, sizeof c) == 0, #prefix "_forward == C++", i);                          \
            hash = fnv1a(hash, a, sizeof a);                                                                \
            /* masked: the C API's _masked functions against the C++ API with the same mask */               \
            check(reference_classify(precision, ids[i], valid[i], mask[i], valid[i], expected, &lexpected) == 0, \
                  "C++ API masked", i);                                                                     \
            check(prefix##_classify_masked(ids[i], a, &la, valid[i], mask[i], valid[i]) == P##_STATUS_OK,     \
                  #prefix "_classify_masked", i);                                                           \
            check(prefix##_classify_masked_ws(workspace, sizeof workspace, ids[i], b, &lb, valid[i], mask[i],  \
                                              P##_INPUT_TOKENS) == P##_STATUS_OK, #prefix "_classify_masked_ws", i); \
            check(prefix##_forward_masked(ids[i], c, valid[i], mask[i], valid[i]) == P##_STATUS_OK,           \
                  #prefix "_forward_masked", i);                                                            \
            check(memcmp(a, expected, sizeof a) == 0 && la == lexpected, #prefix "_classify_masked == C++", i); \
            check(memcmp(b, expected, sizeof b) == 0 && lb == lexpected, #prefix "_classify_masked_ws == C++", i); \
            check(memcmp(c, expected, sizeof c) == 0, #prefix "_forward_masked == C++", i);                   \
            hash = fnv1a(hash, a, sizeof a);                                                                \
        }                                                                                                   \
        /* Bad input: its status, the output and label untouched. */                                        \
        prefix##_output_t out[P##_CLASSES];                                                                 \
        int32_t bad[P##_INPUT_TOKENS];                                                                      \
        int label = -7;                                                                                     \
        memcpy(bad, ids[0], sizeof bad);                                                                    \
        bad[3] = 17;                                                                                        \
        memset(out, 0xa5, sizeof out);                                                                      \
        unsigned char untouched[sizeof out];                                                                \
        memcpy(untouched, out, sizeof out);                                                                 \
        check(prefix##_classify(bad, out, &label, P##_INPUT_TOKENS) == P##_STATUS_BAD_TOKEN_ID, "bad id", 0); \
        check(prefix##_classify(ids[0], out, &label, 0) == P##_STATUS_BAD_VALID_LEN, "valid 0", 0);         \
        check(prefix##_classify(ids[0], out, &label, P##_INPUT_TOKENS + 1) == P##_STATUS_BAD_VALID_LEN, "valid +1", 0); \
        check(prefix##_forward(NULL, out, 1) == P##_STATUS_NULL_POINTER, "null input", 0);                  \
        static const uint8_t hide[P##_INPUT_TOKENS + 1] = {1, 1, 1};                                   \
        check(prefix##_classify_masked(ids[0], out, &label, 3, hide, 2) == P##_STATUS_BAD_MASK_LENGTH,    \
              "mask shorter than valid_tokens", 0);                                                         \
        check(prefix##_classify_masked(ids[0], out, &label, 3, hide, P##_INPUT_TOKENS + 1) ==             \
              P##_STATUS_BAD_MASK_LENGTH, "mask longer than the input", 0);                                 \
        check(prefix##_forward_masked(ids[0], out, 3, NULL, 3) == P##_STATUS_NULL_POINTER, "null mask", 0);  \
        check(prefix##_classify_ws(workspace + 1, P##_WORKSPACE_BYTES, ids[0], out, &label, 1) ==           \
              P##_STATUS_BAD_WORKSPACE, "misaligned workspace", 0);                                         \
        check(prefix##_classify_ws(workspace, P##_WORKSPACE_BYTES - 1, ids[0], out, &label, 1) ==           \
              P##_STATUS_BAD_WORKSPACE, "short workspace", 0);                                              \
        check(prefix##_classify_ws(NULL, P##_WORKSPACE_BYTES, ids[0], out, &label, 1) == P##_STATUS_BAD_WORKSPACE, \
              "null workspace", 0);                                                                         \
        check(memcmp(out, untouched, sizeof out) == 0 && label == -7, "output untouched on error", 0);     \
        check(strcmp(prefix##_status_string(P##_STATUS_BAD_TOKEN_ID), "bad_token_id") == 0, "status string", 0); \
        printf(#prefix ": %d inputs, weights %u B, workspace %u B, logits fnv1a %08lx\n", INPUTS,             \
               (unsigned)P##_WEIGHT_BYTES, (unsigned)P##_WORKSPACE_BYTES, (unsigned long)hash);             \
    }

CHECK_PRECISION(cmodel_f32, CMODEL_F32, 0)
CHECK_PRECISION(cmodel_f16, CMODEL_F16, 1)
CHECK_PRECISION(cmodel_int8, CMODEL_INT8, 2)
CHECK_PRECISION(cmodel_a16w8, CMODEL_A16W8, 3)

/* An executor in C: the tasks in reverse order (any order gives the same bytes); context counts
 * its calls. A host would run them on its threads. */
static void reverse_executor(void* context, int count, void (*task)(const void*, int), const void* task_state) {
    ++*(int*)context;
    for (int i = count - 1; i >= 0; --i) task(task_state, i);
}

/* PREFIX_forward_batch_ws: the inputs in batches of 1, 2, 3, ... (with and without their masks, on
 * the caller's thread and through reverse_executor) give each input's C++ logits; a bad count,
 * input or workspace returns its status and writes nothing. */
#define CHECK_BATCH(prefix, P, precision)                                                                   \
    static void check_batch_##prefix(void) {                                                                \
        static _Alignas(P##_BATCH_WORKSPACE_ALIGN) unsigned char workspace[P##_BATCH_WORKSPACE_BYTES];       \
        static prefix##_output_t logits[P##_MAX_BATCH][P##_CLASSES], expected[P##_CLASSES];                  \
        const uint8_t* masks[INPUTS];                                                                       \
        int lengths[INPUTS], label, calls = 0, size = 1;                                                    \
        for (int i = 0; i < INPUTS; ++i) masks[i] = mask[i], lengths[i] = valid[i];                         \
        for (int start = 0; start < INPUTS; start += size, ++size) {                                        \
            const int count = size > P##_MAX_BATCH ? P##_MAX_BATCH : size > INPUTS - start ? INPUTS - start : size; \
            const int masked = size % 2, threads = size % 3 != 0;                                          \
            check(prefix##_forward_batch_ws(workspace, sizeof workspace, ids[start], &logits[0][0], &valid[start], count, \
                                            masked ? &masks[start] : NULL, masked ? &lengths[start] : NULL,  \
                                            threads ? reverse_executor : NULL, &calls) == P##_STATUS_OK,     \
                  #prefix "_forward_batch_ws", start);                                                      \
            for (int b = 0; b < count; ++b) {                                                               \
                check(reference_classify(precision, ids[start + b], valid[start + b], masked ? mask[start + b] : NULL, \
                                         masked ? valid[start + b] : 0, expected, &label) == 0, "C++ API", start + b); \
                check(memcmp(logits[b], expected, sizeof expected) == 0, #prefix "_forward_batch_ws == C++", start + b); \
            }                                                                                               \
        }                                                                                                   \
        check(calls > 0, #prefix "_forward_batch_ws ran its executor", 0);                                  \
        int32_t bad[2][P##_INPUT_TOKENS];                                                                   \
        memcpy(bad, ids, sizeof bad);                                                                       \
        bad[1][0] = 17;                                                                                     \
        memset(logits, 0xa5, sizeof logits);                                                                \
        unsigned char untouched[sizeof logits];                                                             \
        memcpy(untouched, logits, sizeof logits);                                                           \
        check(prefix##_forward_batch_ws(workspace, sizeof workspace, bad[0], &logits[0][0], valid, 2, NULL, NULL, NULL, \
                                        NULL) == P##_STATUS_BAD_TOKEN_ID, "batch: bad id in the second", 0); \
        check(prefix##_forward_batch_ws(workspace, sizeof workspace, ids[0], &logits[0][0], valid, 0, NULL, NULL, NULL, \
                                        NULL) == P##_STATUS_BAD_BATCH_SIZE, "batch of 0", 0);               \
        check(prefix##_forward_batch_ws(workspace, sizeof workspace, ids[0], &logits[0][0], valid, P##_MAX_BATCH + 1, \
                                        NULL, NULL, NULL, NULL) == P##_STATUS_BAD_BATCH_SIZE, "batch too large", 0); \
        check(prefix##_forward_batch_ws(workspace, sizeof workspace - 1, ids[0], &logits[0][0], valid, 1, NULL, NULL, \
                                        NULL, NULL) == P##_STATUS_BAD_WORKSPACE, "batch: short workspace", 0); \
        check(memcmp(logits, untouched, sizeof logits) == 0, "batch: output untouched on error", 0);        \
    }

CHECK_BATCH(cmodel_f32, CMODEL_F32, 0)
CHECK_BATCH(cmodel_f16, CMODEL_F16, 1)
CHECK_BATCH(cmodel_int8, CMODEL_INT8, 2)
CHECK_BATCH(cmodel_a16w8, CMODEL_A16W8, 3)

int main(void) {
    for (int i = 0; i < INPUTS; ++i) {
        valid[i] = i == 0 ? CMODEL_F32_INPUT_TOKENS : 1 + i % CMODEL_F32_INPUT_TOKENS;  /* full, then 2, 3, ... */
        for (int t = 0; t < CMODEL_F32_INPUT_TOKENS; ++t) {
            ids[i][t] = t < valid[i] ? next_id() : 0;
            mask[i][t] = (uint8_t)(t < valid[i] / 3 || t % 4 == 2) && t != valid[i] - 1;
        }
    }
    check_cmodel_f32();
    check_cmodel_f16();
    check_cmodel_int8();
    check_cmodel_a16w8();
    check_batch_cmodel_f32();
    check_batch_cmodel_f16();
    check_batch_cmodel_int8();
    check_batch_cmodel_a16w8();
    /* int8, a16w8: the quantisation the C API reports is the weights' own. */
    for (int precision = 2; precision <= 3; ++precision) {
        float scale[2], expected_scale[2];
        int32_t zero[2], expected_zero[2];
        if (precision == 2)
            cmodel_int8_quantization(&scale[0], &zero[0], &scale[1], &zero[1]);
        else
            cmodel_a16w8_quantization(&scale[0], &zero[0], &scale[1], &zero[1]);
        reference_quantization(precision, &expected_scale[0], &expected_zero[0], &expected_scale[1], &expected_zero[1]);
        check(memcmp(scale, expected_scale, sizeof scale) == 0 && memcmp(zero, expected_zero, sizeof zero) == 0,
              "PREFIX_quantization", precision);
    }
    printf("c_classifier: %s\n", failures ? "FAILED" : "C API == C++ API, byte for byte");
    return failures ? 1 : 0;
}
