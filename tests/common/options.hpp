// Paths handed to the test binaries on their command line (see test_main.cpp).
#pragma once

#include <string>

namespace sftest {

struct options {
    std::string reference_dir;  // --reference-dir: outputs of the baseline reference build
    std::string golden_dir;     // --golden-dir: PyTorch goldens (tests/golden or a live rebuild)
};

options& test_options();

}  // namespace sftest
