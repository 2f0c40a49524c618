// staticformer: runtime status codes. Only data that arrives at run time (valid_len, buffers,
// token ids, input values, weight blobs) can fail; configuration errors are compile errors.
#pragma once

namespace staticformer {

enum class status : int {
    ok = 0,
    bad_valid_len,        // valid_len == 0 or valid_len > seq_len
    null_pointer,         // an input or output pointer is null
    overlapping_buffers,  // input and output overlap without being the same buffer
    blob_too_small,       // fewer bytes than the header or the payload it announces
    blob_bad_magic,       // not a staticformer weights blob
    blob_bad_version,     // a blob format this library does not read
    blob_bad_endianness,  // written on a machine of the other byte order
    blob_config_mismatch, // dimensions or options differ from the encoder_config
    blob_precision_mismatch,
    blob_bad_size,        // payload size differs from sizeof(encoder_weights<...>)
    blob_bad_checksum,
    blob_misaligned,      // zero-copy needs the blob at an address aligned for its weights
    blob_bad_quantization,  // int8: a multiplier, shift, zero point, scale, bias, LayerNorm beta or
                            // padding weight out of the range its kernel handles (weights_int8.hpp)
    bad_token_id,           // a token id outside 0..vocab-1
    blob_kind_mismatch,     // an encoder blob where a model blob is expected, or the other way round
    blob_input_mismatch,    // a model blob of another input: kind, vocab, features, image or patch
    blob_embedding_mismatch,  // other positions, CLS token, embedding LayerNorm or scaling, or fewer
                              // learned positions than seq_len
    blob_head_mismatch,     // another pooling or number of classes
    blob_non_finite,        // f32 / f16 weights: a NaN or an infinity
    non_finite_input,       // a NaN or an infinity among the valid input values (nothing written)
    non_finite_output,      // the pass overflowed to infinity or NaN: every valid output value is
                            // the canonical quiet NaN (0x7fc00000), on every backend alike
    bad_mask_length,        // a key padding mask shorter than valid_len or longer than seq_len
                            // (a model: than its input tokens)
    all_keys_masked,        // a key padding mask that leaves no valid key to attend (nothing written)
    bad_batch_size,         // forward_batch: no sequence, or more than the workspace holds
    input_out_of_range,     // an a16w8 model's int16 feature or image value beyond the limit its
                            // projection reads (quantize_model_input keeps within it; nothing written)
};

// A short, stable, human-readable name for logs.
constexpr const char* to_string(status s) noexcept {
    switch (s) {
    case status::ok: return "ok";
    case status::bad_valid_len: return "bad_valid_len";
    case status::null_pointer: return "null_pointer";
    case status::overlapping_buffers: return "overlapping_buffers";
    case status::blob_too_small: return "blob_too_small";
    case status::blob_bad_magic: return "blob_bad_magic";
    case status::blob_bad_version: return "blob_bad_version";
    case status::blob_bad_endianness: return "blob_bad_endianness";
    case status::blob_config_mismatch: return "blob_config_mismatch";
    case status::blob_precision_mismatch: return "blob_precision_mismatch";
    case status::blob_bad_size: return "blob_bad_size";
    case status::blob_bad_checksum: return "blob_bad_checksum";
    case status::blob_misaligned: return "blob_misaligned";
    case status::blob_bad_quantization: return "blob_bad_quantization";
    case status::bad_token_id: return "bad_token_id";
    case status::blob_kind_mismatch: return "blob_kind_mismatch";
    case status::blob_input_mismatch: return "blob_input_mismatch";
    case status::blob_embedding_mismatch: return "blob_embedding_mismatch";
    case status::blob_head_mismatch: return "blob_head_mismatch";
    case status::blob_non_finite: return "blob_non_finite";
    case status::non_finite_input: return "non_finite_input";
    case status::non_finite_output: return "non_finite_output";
    case status::bad_mask_length: return "bad_mask_length";
    case status::all_keys_masked: return "all_keys_masked";
    case status::bad_batch_size: return "bad_batch_size";
    case status::input_out_of_range: return "input_out_of_range";
    }
    return "unknown";
}

}  // namespace staticformer
