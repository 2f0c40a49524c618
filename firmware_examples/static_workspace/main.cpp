// Firmware-style use of staticformer: constant weights (flash), a caller-owned workspace placed
// in its own RAM section, no heap, no exceptions, a status check on every call. Builds and runs
// on the host; the same code is what a Cortex-M image links.
#include <staticformer/staticformer.hpp>

#include <cstdio>
#include <cstring>

#include "demo_model.hpp"  // examples/demo: 64/4/256/32/2, pre-norm, gelu, final norm

namespace sf = staticformer;
using cfg = demo_model_config;

// The linker script decides where this lands (e.g. DTCM on a Cortex-M7).
__attribute__((section(".bss.staticformer_workspace"))) static sf::workspace_for<cfg> encoder_ram;  // the default backend's tile
static float window[cfg::seq_len * cfg::d_model];
static float features[cfg::seq_len * cfg::d_model];

static_assert(sizeof(encoder_ram) == sf::encoder<cfg>::workspace_bytes, "one workspace, one size");

int main() {
    // A sensor window: `frames` valid frames of d_model features; the rest is padding.
    const int frames = 24;
    for (int t = 0; t < frames; ++t)
        for (int d = 0; d < cfg::d_model; ++d) window[t * cfg::d_model + d] = 0.01f * float((t * 7 + d * 3) % 101) - 0.5f;

    if (sf::forward(demo_model, encoder_ram, window, features, frames) != sf::status::ok) return 1;
    // A bad frame count is refused and leaves the output alone.
    if (sf::forward(demo_model, encoder_ram, window, features, cfg::seq_len + 1) != sf::status::bad_valid_len) return 2;

    // Mean-pool the valid frames into one embedding, as a classifier head would.
    float pooled[cfg::d_model] = {};
    for (int t = 0; t < frames; ++t)
        for (int d = 0; d < cfg::d_model; ++d) pooled[d] += features[t * cfg::d_model + d] / float(frames);

    const std::uint32_t crc = sf::blob::crc32(reinterpret_cast<const unsigned char*>(features), sizeof features);
    // (%lu and casts: newlib's printf has no %zu, and uint32_t is unsigned long on Arm EABI.)
    std::printf("static_workspace: workspace %lu B in .bss.staticformer_workspace, weights %lu B const\n",
                static_cast<unsigned long>(sizeof encoder_ram), static_cast<unsigned long>(sizeof demo_model));
    std::printf("features crc32 %08lx, pooled[0..2] %.6f %.6f %.6f\n", static_cast<unsigned long>(crc), pooled[0],
                pooled[1], pooled[2]);
    return 0;
}
