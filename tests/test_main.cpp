// gtest main that also takes --reference-dir=DIR and --golden-dir=DIR.
#include <gtest/gtest.h>

#include <cstring>

#include "common/options.hpp"

namespace sftest {
options& test_options() {
    static options o;
    return o;
}
}  // namespace sftest

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    for (int i = 1; i < argc; ++i) {
        const char* a = argv[i];
        if (std::strncmp(a, "--reference-dir=", 16) == 0) sftest::test_options().reference_dir = a + 16;
        else if (std::strncmp(a, "--golden-dir=", 13) == 0) sftest::test_options().golden_dir = a + 13;
    }
    return RUN_ALL_TESTS();
}
