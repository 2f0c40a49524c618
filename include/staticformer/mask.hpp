// staticformer: key padding masks, torch's src_key_padding_mask for one sequence. A masked key
// gets no attention from any query row; every query row is still computed (as torch's math path
// does). Masked keys cost no attention work: their keys and values are never stored, so the
// attention of every row runs over the kept keys only, in their order.
#pragma once

#include <cstdint>

#include "config.hpp"
#include "status.hpp"

namespace staticformer {

// masked[j] != 0 (torch: True) leaves the key of row j out of attention. length entries: at
// least valid_len, at most seq_len (a model: its input tokens); entries from valid_len on are
// not read. The default mask leaves every key in.
struct key_padding_mask {
    const std::uint8_t* masked = nullptr;
    int length = 0;

    constexpr key_padding_mask() noexcept = default;
    constexpr key_padding_mask(const std::uint8_t* m, int n) noexcept : masked(m), length(n) {}
    // bool arrays (std::array<bool, N>, torch's dtype) read as bytes: false is 0, true is 1.
    key_padding_mask(const bool* m, int n) noexcept : masked(reinterpret_cast<const std::uint8_t*>(m)), length(n) {}
};

namespace detail {

// The rows whose keys are kept: all of them without a mask; rows before `first` always (a
// model's CLS row, which its mask does not cover).
struct kept_keys {
    const std::uint8_t* masked = nullptr;
    int first = 0;
    bool kept(int row) const noexcept { return masked == nullptr || row < first || masked[row - first] == 0; }
    // How many of rows [0, end) are kept. Out of line (STATICFORMER_GUARD_GCC12_MVE_LITERAL_POOL):
    // GCC 12 vectorises this loop for Helium with a literal pool that, inlined into an encoder's
    // pass, can land beyond VLDR's reach.
    STATICFORMER_OUT_OF_LINE int kept_before(int end) const noexcept {
        if (masked == nullptr) return end;
        int count = 0;
        for (int row = 0; row < end; ++row) count += kept(row);
        return count;
    }
};

// A mask for rows [0, valid) of at most Length entries: no mask, or a non-null one covering the
// valid rows, at most Length long, keeping a key (unless rows before the mask are kept anyway).
template <int Length>
inline status check_mask(key_padding_mask m, int valid, bool keeps_a_key = false) noexcept {
    if (m.masked == nullptr) return m.length == 0 ? status::ok : status::null_pointer;
    if (m.length < valid || m.length > Length) return status::bad_mask_length;
    if (keeps_a_key) return status::ok;
    for (int j = 0; j < valid; ++j)
        if (m.masked[j] == 0) return status::ok;
    return status::all_keys_masked;
}

}  // namespace detail
}  // namespace staticformer
