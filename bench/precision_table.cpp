// make bench's side-by-side table of the precisions (bench/ort_compare.py): for each reference
// configuration, the time of one forward pass in f32, f16, int8 and a16w8 (one thread, one
// sequence, the build's default backend; repetitions interleaved across the precisions, the
// median) and their SQNR against f32 on held-out inputs, output and branch
// (tests/common/held_out.hpp, the test suite's measurement). With --export DIR it also writes
// what the ONNX Runtime comparison reads, per configuration: DIR/<config>/weights.f32 (the f32
// weights, each layer's members in declaration order, then the final norm's gamma and beta),
// input.f32 (the held-out sequences) and output.f32 (the f32 encoder's outputs of them).
//   precision_table [--export DIR] [--repetitions N] [--configs tiny,small,mini,wide]
// Prints one JSON object per configuration and precision.
#include <staticformer/staticformer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/held_out.hpp"
#include "configs.hpp"

namespace {

namespace sf = staticformer;
using clock_type = std::chrono::steady_clock;

struct options {
    std::string export_dir, configs = "tiny,small,mini,wide";
    int repetitions = 21;
};

void write_floats(const std::string& path, const float* p, std::size_t n) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(p, sizeof(float), n, f) != n || std::fclose(f) != 0) {
        std::fprintf(stderr, "precision_table: cannot write %s\n", path.c_str());
        std::exit(1);
    }
}

template <class Cfg>
void export_case(const sftest::held_out_case<Cfg>& c, const std::string& dir) {
    std::vector<float> w;
    for (const auto& layer : c.w32->layer)
        sf::layer_weights<Cfg, float>::for_each_member([&](std::size_t n, const float* p) { w.insert(w.end(), p, p + n); },
                                                      layer);
    w.insert(w.end(), c.w32->final_norm.gamma, c.w32->final_norm.gamma + Cfg::d_model);
    w.insert(w.end(), c.w32->final_norm.beta, c.w32->final_norm.beta + Cfg::d_model);
    write_floats(dir + "/weights.f32", w.data(), w.size());
    write_floats(dir + "/input.f32", c.input.data(), c.input.size());
    write_floats(dir + "/output.f32", c.output.data(), c.output.size());
}

// One precision's pass on the first held-out sequence, as a callable timed by the loop below.
template <class Cfg, class P>
struct timed_pass {
    std::unique_ptr<sf::encoder_weights<Cfg, P>> w;
    using io = typename std::conditional<sf::is_integer_precision<P>, std::int16_t, float>::type;
    using ws_type = typename std::conditional<
        sf::is_integer_precision<P>,
        typename sf::precision_traits<P>::template workspace<Cfg, sf::tile_for<Cfg, sf::default_backend>>,
        sf::workspace_for<Cfg, sf::default_backend>>::type;
    std::unique_ptr<ws_type> ws = std::make_unique<ws_type>();
    std::vector<io> x, y;

    timed_pass(const sftest::held_out_case<Cfg>& c, std::unique_ptr<sf::encoder_weights<Cfg, P>> weights)
        : w(std::move(weights)), x(c.n), y(c.n) {
        if constexpr (sf::is_integer_precision<P>)
            sftest::require_ok(sf::quantize_input(*w, c.input.data(), x.data(), c.n), "quantize_input");
        else
            std::memcpy(x.data(), c.input.data(), c.n * sizeof(float));
    }
    void operator()() { sftest::require_ok(sf::forward<sf::default_backend>(*w, *ws, x.data(), y.data(), Cfg::seq_len), "forward"); }
};

// Microseconds per call: calls per repetition set so that one lasts about 20 ms.
template <class Pass>
double time_repetition(Pass& pass, int calls) {
    const auto start = clock_type::now();
    for (int i = 0; i < calls; ++i) pass();
    return std::chrono::duration<double, std::micro>(clock_type::now() - start).count() / calls;
}

template <class Pass>
int calls_for(Pass& pass) {
    pass();
    const double us = time_repetition(pass, 3);
    return std::max(1, int(20000.0 / std::max(us, 1.0)));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void print_row(const char* config, const char* precision, double us, const sftest::sqnr_pair* db) {
    std::printf("{\"config\": \"%s\", \"precision\": \"%s\", \"us\": %.3f", config, precision, us);
    if (db) std::printf(", \"output_db\": %.3f, \"branch_db\": %.3f", db->output, db->branch);
    std::printf("}\n");
    std::fflush(stdout);
}

template <class Cfg>
void measure(const char* name, const options& o) {
    const sftest::held_out_case<Cfg> c;
    if (!o.export_dir.empty()) {
        std::filesystem::create_directories(o.export_dir + "/" + name);
        export_case(c, o.export_dir + "/" + name);
    }
    timed_pass<Cfg, sf::f32> f32(c, std::make_unique<sf::encoder_weights<Cfg, sf::f32>>(*c.w32));
    timed_pass<Cfg, sf::f16> f16(c, sftest::held_out_weights<Cfg, sf::f16>(c));
    timed_pass<Cfg, sf::int8> int8(c, sftest::held_out_weights<Cfg, sf::int8>(c));
    timed_pass<Cfg, sf::a16w8> a16w8(c, sftest::held_out_weights<Cfg, sf::a16w8>(c));
    sftest::sqnr_pair db[3];
    std::vector<float> y;
    sftest::held_out_forward(c, *f16.w, y), db[0] = sftest::held_out_sqnr(c, y);
    sftest::held_out_forward(c, *int8.w, y), db[1] = sftest::held_out_sqnr(c, y);
    sftest::held_out_forward(c, *a16w8.w, y), db[2] = sftest::held_out_sqnr(c, y);

    const int calls[4] = {calls_for(f32), calls_for(f16), calls_for(int8), calls_for(a16w8)};
    std::vector<double> us[4];
    std::mt19937 order_rng(12345);
    int order[4] = {0, 1, 2, 3};
    for (int r = 0; r < o.repetitions; ++r) {
        std::shuffle(order, order + 4, order_rng);  // a slow spell hits every precision alike
        for (int p : order)
            us[p].push_back(p == 0   ? time_repetition(f32, calls[0])
                            : p == 1 ? time_repetition(f16, calls[1])
                            : p == 2 ? time_repetition(int8, calls[2])
                                     : time_repetition(a16w8, calls[3]));
    }
    print_row(name, "f32", median(us[0]), nullptr);
    print_row(name, "f16", median(us[1]), &db[0]);
    print_row(name, "int8", median(us[2]), &db[1]);
    print_row(name, "a16w8", median(us[3]), &db[2]);
}

bool listed(const std::string& list, const char* name) { return ("," + list + ",").find(std::string(",") + name + ",") != std::string::npos; }

}  // namespace

int main(int argc, char** argv) {
    options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--export") o.export_dir = argv[i + 1];
        else if (flag == "--repetitions") o.repetitions = std::max(1, std::atoi(argv[i + 1]));
        else if (flag == "--configs") o.configs = argv[i + 1];
        else return std::fprintf(stderr, "precision_table: unknown option %s\n", argv[i]), 2;
    }
    if (listed(o.configs, "tiny")) measure<sfbench::tiny>("tiny", o);
    if (listed(o.configs, "small")) measure<sfbench::small>("small", o);
    if (listed(o.configs, "mini")) measure<sfbench::mini>("mini", o);
    if (listed(o.configs, "wide")) measure<sfbench::wide>("wide", o);
    return 0;
}
