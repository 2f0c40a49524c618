// staticformer: a batch of sequences in one call (forward_batch). The valid rows of all the
// sequences are packed one after the other at the front of the output buffer, so that each tile
// of the linear layers holds rows of several sequences and each weight matrix streamed from
// memory serves them all; attention runs each row over its own sequence's keys (composition.hpp,
// batch_rows). Each row's values depend on its own sequence only: every sequence's bytes are
// those of a call of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "composition.hpp"
#include "config.hpp"
#include "mask.hpp"
#include "status.hpp"

namespace staticformer {
namespace detail {

// x and y hold count sequences of seq_len * d_model values of `element` bytes each; y may equal
// x but must not partly overlap it; 1 <= count <= Batch; each sequence's valid_len and mask
// (masks: null, or one per sequence) as for one call.
template <class Cfg, int Batch>
inline status check_batch(const void* x, const void* y, std::size_t element, const int* valid_lens, int count,
                          const key_padding_mask* masks) noexcept {
    if (x == nullptr || y == nullptr || valid_lens == nullptr) return status::null_pointer;
    if (count < 1 || count > Batch) return status::bad_batch_size;
    const std::uintptr_t bytes = std::size_t(count) * Cfg::seq_len * Cfg::d_model * element;
    const auto xa = reinterpret_cast<std::uintptr_t>(x), ya = reinterpret_cast<std::uintptr_t>(y);
    if (xa != ya && xa < ya + bytes && ya < xa + bytes) return status::overlapping_buffers;
    for (int b = 0; b < count; ++b) {
        if (valid_lens[b] <= 0 || valid_lens[b] > Cfg::seq_len) return status::bad_valid_len;
        const status s = check_mask<Cfg::seq_len>(masks != nullptr ? masks[b] : key_padding_mask{}, valid_lens[b]);
        if (s != status::ok) return s;
    }
    return status::ok;
}

// Stages the batch into y packed (sequence b's valid rows from row start[b]), runs
// run(y, rows, batch_rows), and moves each sequence back to row b * seq_len, its padded rows set
// to the byte `pad`. The last sequence moves first: none lands on one not yet moved.
template <class Cfg, int Batch, class V, class Run>
inline void run_packed(const V* x, V* y, const int* valid_lens, int count, const key_padding_mask* masks,
                       unsigned char pad, Run&& run) noexcept {
    constexpr std::size_t row = Cfg::d_model, sequence = std::size_t(Cfg::seq_len) * row;
    int start[Batch];
    kept_keys kept[Batch];
    int rows = 0;
    for (int b = 0; b < count; ++b) {
        start[b] = rows;
        kept[b] = {masks != nullptr ? masks[b].masked : nullptr, 0};
        std::memmove(y + rows * row, x + b * sequence, valid_lens[b] * row * sizeof(V));  // (rows <= b seq_len)
        rows += valid_lens[b];
    }
    run(y, rows, batch_rows{start, valid_lens, kept, count});
    for (int b = count - 1; b >= 0; --b)
        std::memmove(y + b * sequence, y + start[b] * row, valid_lens[b] * row * sizeof(V));
    for (int b = 0; b < count; ++b)
        std::memset(y + b * sequence + valid_lens[b] * row, pad, (sequence - valid_lens[b] * row) * sizeof(V));
}

}  // namespace detail
}  // namespace staticformer
