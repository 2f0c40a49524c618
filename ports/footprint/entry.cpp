// staticformer footprint: main() of one measured program; SF_FP_ENTRY (set by CMakeLists.txt)
// names the entry point in footprint_main.cpp's object: sf_fp_main_base, _fwd, _probe, _profile.
extern "C" int SF_FP_ENTRY(int argc, char** argv);

int main(int argc, char** argv) { return SF_FP_ENTRY(argc, argv); }
