// Cortex-M bring-up: an image whose FLASH and RAM are both nearly full boots and reads both ends
// of each (3 MiB of .rodata, 1.5 MiB of .bss, on the MPS2 boards' 4 MiB of FLASH). cortex_m.segments
// checks its program headers: a .bss zero-filled at a load address in FLASH (ld's layout without
// sections.ld's PHDRS, when .data and .bss share a segment) ran past FLASH's end into its mirror at
// 0 and locked a test image up at reset.
#include <cstdio>
#include <cstring>

extern const unsigned char large_rodata[0x300000];
const unsigned char large_rodata[0x300000] = {0x5a};
static unsigned char large_bss[0x180000];

int main() {
    std::memset(large_bss, 0xa5, sizeof large_bss);
    const volatile unsigned char* rodata = large_rodata;  // read from memory, not the initialiser
    const bool ok = rodata[0] == 0x5a && rodata[sizeof large_rodata - 1] == 0 &&
                    large_bss[sizeof large_bss - 1] == 0xa5;
    std::printf("large_image: 3 MiB .rodata, 1.5 MiB .bss: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
