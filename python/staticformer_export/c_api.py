"""A C API for one exported encoder or model: PREFIX.h (C99 / C11 / C++) and PREFIX.cpp, the
extern "C" functions around the C++ header export_pytorch.py wrote (--c-api PREFIX).

The header carries no C++: sizes as macros, the status codes as a C enum that mirrors
staticformer::status (read from include/staticformer/status.hpp, checked value by value by
static_asserts in PREFIX.cpp), and the functions. The numbers come from the C++ itself: a small
probe program (export_report.run_probe) compiled against the exported header prints them; PREFIX.cpp
static_asserts each one again on whatever target compiles it.
"""

import re
from pathlib import Path

from . import cpp, export_report
# Element types an input or output can have (int8: an encoder's int16 stream rows, a model's
# int8 features or image, its int32 logits or int16 rows).
C_TYPES = ("float", "int8_t", "int16_t", "int32_t")
# A C API status of its own, after every staticformer::status: a workspace buffer that is null,
# too small or misaligned (the _ws functions).
BAD_WORKSPACE = 100


def status_names() -> list:
    """staticformer::status's enumerators in order (their values are 0, 1, 2, ...)."""
    text = (cpp.include_dir() / "staticformer" / "status.hpp").read_text()
    body = re.search(r"enum class status : int \{(.*?)\n\};", text, re.S).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    names = [re.match(r"\s*(\w+)", item).group(1) for item in body.split(",") if item.strip()]
    assert names[0] == "ok" and "= 0" in body.split(",")[0], "status.hpp: ok = 0 first"
    return names


def _types(name: str, model: bool, precision: str, batch: int, workers: int) -> str:
    """The C++ aliases PREFIX.cpp and the probe share: weights, workspaces, element types, sizes."""
    lines = [f"using cfg = {name}_config;", f"using precision = sf::{precision};",
             f"constexpr int max_batch = {batch}, max_workers = {workers};"]
    if model:
        lines += ["using weights_type = sf::model_weights<cfg, precision>;",
                  "// The configuration's own tile on every target (not the simd backend's wider one), so",
                  "// that one workspace size holds for every target.",
                  "using workspace_type = sf::model_workspace<cfg, cfg::encoder::tile, sf::activation_precision<precision>>;",
                  "// _forward_batch_ws: up to max_batch inputs on up to max_workers threads; tiles of the simd",
                  "// backend's rows of any of the inputs on every target (any backend runs any tile).",
                  "using batch_workspace_type = sf::batch_model_workspace_for<cfg, max_batch, sf::simd, precision, max_workers>;",
                  "using input_type = sf::model_input_t<cfg, precision>;",
                  "using output_type = sf::model_output_t<cfg, precision>;",
                  "constexpr std::size_t input_values = cfg::input_values, output_values = cfg::output_values;",
                  "constexpr int input_tokens = cfg::input_tokens, classes = cfg::classes;"]
    else:
        lines += ["using weights_type = sf::encoder_weights<cfg, precision>;",
                  "using traits = sf::precision_traits<precision>;",
                  "// The configuration's own tile on every target, so one workspace size holds everywhere.",
                  "using workspace_type = traits::workspace<cfg, cfg::tile>;",
                  "// _forward_batch_ws: up to max_batch inputs on up to max_workers threads (see the model's).",
                  "using batch_workspace_type =",
                  "    traits::workspace<cfg, sf::worker_tile<cfg, sf::simd, max_batch * cfg::seq_len, max_workers>, max_workers, max_batch>;",
                  "// int8, a16w8: the encoder reads and writes its residual stream, int16 rows (zero point 0).",
                  "using input_type = traits::value;",
                  "using output_type = input_type;",
                  "constexpr std::size_t input_values = std::size_t(cfg::seq_len) * cfg::d_model, output_values = input_values;",
                  "constexpr int input_tokens = cfg::seq_len, classes = 0;"]
    return "\n".join(lines)


PROBE_MAIN = r"""
template <class T> constexpr int c_type = std::is_same<T, float>::value ? 0 : std::is_same<T, std::int8_t>::value ? 1
                                        : std::is_same<T, std::int16_t>::value ? 2
                                        : std::is_same<T, std::int32_t>::value ? 3 : -1;
int main() {
    std::printf("%d %d %zu %zu %d %d %zu %zu %zu %zu %zu\n", c_type<input_type>, c_type<output_type>, input_values,
                output_values, input_tokens, classes, sizeof(weights_type), sizeof(workspace_type),
                alignof(workspace_type), sizeof(batch_workspace_type), alignof(batch_workspace_type));
}
"""


def probe(cpp_header: Path, name: str, model: bool, precision: str, batch: int, workers: int) -> dict:
    """The sizes and element types of the exported header, as the C++ compiler sees them."""
    types = _types(name, model, precision, batch, workers)
    source = (f'#include <cstdio>\n#include <type_traits>\n#include <staticformer/staticformer.hpp>\n'
              f'#include "{cpp_header.resolve()}"\nnamespace sf = staticformer;\n{types}\n{PROBE_MAIN}')
    out = export_report.run_probe(source, "C API probe").split()
    keys = ("input_type", "output_type", "input_values", "output_values", "input_tokens", "classes",
            "weight_bytes", "workspace_bytes", "workspace_align", "batch_workspace_bytes", "batch_workspace_align")
    info = dict(zip(keys, map(int, out)))
    info["max_batch"], info["max_workers"] = batch, workers
    # An element type C_TYPES lacks (-1) must fail here, not wrap to its last entry.
    if not all(0 <= info[k] < len(C_TYPES) for k in ("input_type", "output_type")):
        raise RuntimeError(f"C API probe: an input or output element type outside {', '.join(C_TYPES)}")
    info["input_type"], info["output_type"] = C_TYPES[info["input_type"]], C_TYPES[info["output_type"]]
    return info


def header_text(prefix: str, name: str, precision: str, model: bool, info: dict, describe: str) -> str:
    P = prefix.upper()
    statuses = status_names()
    enum = [f"    {P}_STATUS_{s.upper()} = {i}," for i, s in enumerate(statuses)]
    enum.append(f"    {P}_STATUS_BAD_WORKSPACE = {BAD_WORKSPACE}  /* C API only: workspace null, too small or misaligned */")
    classify = info["classes"] > 0
    out = [f"/* {prefix}.h: the C API of {name} ({describe}, {precision}).",
           " * Generated by tools/export_pytorch.py --c-api; C99, C11 and C++. Link it with the C++ source",
           f" * {prefix}.cpp (compiled as C++17 with staticformer's include/ and {name}.hpp on the include path).",
           " *",
            " * Memory: no heap. The weights are a constant in section .rodata.sf_weights, the workspace of",
           f" * {prefix}_forward / {prefix}_classify a static buffer in section .bss.sf_workspace. Compile {prefix}.cpp",
           f" * with -D{P}_WEIGHTS_SECTION='__attribute__((section(\".my_flash\")))' (and {P}_WORKSPACE_SECTION",
           " * for the workspace) to place them elsewhere, or define either empty for the compiler's default.",
           " *",
           f" * Re-entrancy: {prefix}_forward and {prefix}_classify share that one static workspace: not re-entrant",
           " * (one call at a time: not from two threads, nor from an interrupt that preempts a call). The _ws",
           f" * variants take the caller's workspace, {P}_WORKSPACE_BYTES bytes aligned to {P}_WORKSPACE_ALIGN",
           " * (e.g. C11 _Alignas, or GCC's __attribute__((aligned(N)))): one buffer per concurrent caller.",
           " *",
           " * Errors: a status other than _OK means nothing was written (except _NON_FINITE_OUTPUT: every",
           " * output value is the canonical NaN), as in the C++ API (include/staticformer/status.hpp). */",
           f"#ifndef {P}_H", f"#define {P}_H", "", "#include <stddef.h>", "#include <stdint.h>", "",
           "#ifdef __cplusplus", 'extern "C" {', "#endif", "",
           f"#define {P}_PRECISION \"{precision}\"",
           f"#define {P}_INPUT_TOKENS {info['input_tokens']}  /* valid_tokens: 1 .. this */",
           f"#define {P}_INPUT_VALUES {info['input_values']}  /* {prefix}_input_t values of one input */",
           f"#define {P}_OUTPUT_VALUES {info['output_values']}  /* {prefix}_output_t values forward writes */"]
    if classify:
        out.append(f"#define {P}_CLASSES {info['classes']}")
    out += [f"#define {P}_WEIGHT_BYTES {info['weight_bytes']}u",
            f"#define {P}_WORKSPACE_BYTES {info['workspace_bytes']}u",
            f"#define {P}_WORKSPACE_ALIGN {info['workspace_align']}u",
            f"#define {P}_MAX_BATCH {info['max_batch']}  /* {prefix}_forward_batch_ws: inputs per call */",
            f"#define {P}_MAX_WORKERS {info['max_workers']}  /* ... and tasks per stage on the caller's threads */",
            f"#define {P}_BATCH_WORKSPACE_BYTES {info['batch_workspace_bytes']}u",
            f"#define {P}_BATCH_WORKSPACE_ALIGN {info['batch_workspace_align']}u", "",
            f"typedef {info['input_type']} {prefix}_input_t;",
            f"typedef {info['output_type']} {prefix}_output_t;", "",
            f"typedef enum {prefix}_status {{", *enum, f"}} {prefix}_status;", "",
            "/* A short, stable name for logs (\"ok\", \"bad_valid_len\", ...). */",
            f"const char* {prefix}_status_string({prefix}_status s);", "",
            f"/* One pass: input[{P}_INPUT_VALUES] (the first valid_tokens tokens are read) -> output[{P}_OUTPUT_VALUES]. */",
            f"{prefix}_status {prefix}_forward(const {prefix}_input_t* input, {prefix}_output_t* output, int valid_tokens);",
            f"{prefix}_status {prefix}_forward_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
            f"    {prefix}_output_t* output, int valid_tokens);", "",
            "/* The same with a key padding mask, torch's src_key_padding_mask for this input: mask[t] != 0 hides",
            " * token t's key from every row (and leaves its row out of mean pooling). mask_length: valid_tokens",
            f" * .. {P}_INPUT_TOKENS entries (_BAD_MASK_LENGTH else); NULL with length 0 is no mask; a mask that",
            " * hides every valid token (without a CLS token) returns _ALL_KEYS_MASKED. */",
            f"{prefix}_status {prefix}_forward_masked(const {prefix}_input_t* input, {prefix}_output_t* output, int valid_tokens,",
            "    const uint8_t* mask, int mask_length);",
            f"{prefix}_status {prefix}_forward_masked_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
            f"    {prefix}_output_t* output, int valid_tokens, const uint8_t* mask, int mask_length);", "",
            *_batch_header_text(prefix)]
    if precision in ("int8", "a16w8"):
        element = "int8" if precision == "int8" else "int16 (zero point 0)"
        out += ["", f"/* {precision}: how the caller quantises the input values and reads the output values:",
                " * real = scale * (q - zero_point). An encoder's input and output rows are int16 (its residual",
                f" * stream, zero point 0); a model's features or image {element}, its output int32 logits or int16",
                " * rows. Any pointer may be NULL. */",
                f"void {prefix}_quantization(float* input_scale, int32_t* input_zero_point, float* output_scale,",
                "    int32_t* output_zero_point);"]
    if classify:
        out += ["", f"/* Logits[{P}_CLASSES] and their arg-max (the first largest); label may be NULL. */",
                f"{prefix}_status {prefix}_classify(const {prefix}_input_t* input, {prefix}_output_t* logits, int* label,",
                "    int valid_tokens);",
                f"{prefix}_status {prefix}_classify_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
                f"    {prefix}_output_t* logits, int* label, int valid_tokens);",
                f"{prefix}_status {prefix}_classify_masked(const {prefix}_input_t* input, {prefix}_output_t* logits, int* label,",
                "    int valid_tokens, const uint8_t* mask, int mask_length);",
                f"{prefix}_status {prefix}_classify_masked_ws(void* workspace, size_t workspace_bytes,",
                f"    const {prefix}_input_t* input, {prefix}_output_t* logits, int* label, int valid_tokens, const uint8_t* mask,",
                "    int mask_length);"]
    out += ["", "#ifdef __cplusplus", "}", "#endif", f"#endif /* {P}_H */"]
    return "\n".join(out) + "\n"


def _batch_header_text(prefix: str) -> list:
    """The executor types and PREFIX_forward_batch_ws's declaration."""
    P = prefix.upper()
    return [
        "/* Work on the caller's threads: an executor runs task(task_state, 0) .. task(task_state, count - 1),",
        " * in any order and on any threads, and returns when all have returned (an OpenMP parallel for, a",
        " * thread pool). count <= " + f"{P}_MAX_WORKERS; context is the caller's, passed through. */",
        f"typedef void (*{prefix}_task)(const void* task_state, int index);",
        f"typedef void (*{prefix}_executor)(void* context, int count, {prefix}_task task, const void* task_state);", "",
        f"/* count (1 .. {P}_MAX_BATCH) inputs in one call: inputs[count * {P}_INPUT_VALUES] ->",
        f" * outputs[count * {P}_OUTPUT_VALUES], input b with valid_tokens[b] tokens and, when masks is not",
        " * NULL, the key padding mask masks[b] of mask_lengths[b] entries (NULL and 0: none). The weights",
        " * stream once for the rows of all of them; each output is the bytes of its own _forward_masked",
        " * call. executor NULL: on the caller's thread; else on its threads (the same bytes). The workspace:",
        f" * {P}_BATCH_WORKSPACE_BYTES bytes aligned to {P}_BATCH_WORKSPACE_ALIGN, one per concurrent caller.",
        f" * A count outside 1 .. {P}_MAX_BATCH returns _BAD_BATCH_SIZE; any input's fault, its status,",
        " * before anything is written. */",
        f"{prefix}_status {prefix}_forward_batch_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* inputs,",
        f"    {prefix}_output_t* outputs, const int* valid_tokens, int count, const uint8_t* const* masks,",
        f"    const int* mask_lengths, {prefix}_executor executor, void* executor_context);"]


def _workspace_lines(P: str, kind: str = "workspace_type") -> list:
    """The start of a _ws function: the caller's buffer as a workspace, or the status that refuses it."""
    return [f"    {kind}* ws = as_workspace<{kind}>(workspace, workspace_bytes);",
            f"    if (ws == nullptr) return {P}_STATUS_BAD_WORKSPACE;"]


def _batch_source_text(prefix: str) -> list:
    """PREFIX_forward_batch_ws: the masks gathered, the C executor wrapped (parallel.hpp)."""
    P = prefix.upper()
    return [
        f"{prefix}_status {prefix}_forward_batch_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* inputs,",
        f"    {prefix}_output_t* outputs, const int* valid_tokens, int count, const uint8_t* const* masks,",
        f"    const int* mask_lengths, {prefix}_executor executor, void* executor_context) {{",
        *_workspace_lines(P, "batch_workspace_type"),
        f"    if (count < 1 || count > max_batch) return {P}_STATUS_BAD_BATCH_SIZE;",
        f"    if (masks != nullptr && mask_lengths == nullptr) return {P}_STATUS_NULL_POINTER;",
        "    sf::key_padding_mask kept[max_batch];",
        "    for (int b = 0; b < count; ++b) kept[b] = masks != nullptr ? sf::key_padding_mask{masks[b], mask_lengths[b]} : sf::key_padding_mask{};",
        "    if (executor == nullptr)",
        f"        return {prefix}_status(sf::forward_batch(weights, *ws, inputs, outputs, valid_tokens, count, kept));",
        "    const auto exec = [&](int tasks, sf::parallel_task task) { executor(executor_context, tasks, task.run(), task.state()); };",
        f"    return {prefix}_status(sf::forward_batch(weights, *ws, inputs, outputs, valid_tokens, count, kept, exec));",
        "}"]


def _masked_forward_text(prefix: str) -> list:
    """PREFIX_forward_masked and its _ws twin: PREFIX_forward with a key padding mask."""
    P = prefix.upper()
    return [
        f"{prefix}_status {prefix}_forward_masked(const {prefix}_input_t* input, {prefix}_output_t* output, int valid_tokens,",
        f"    const uint8_t* mask, int mask_length) {{",
        f"    return {prefix}_status(sf::forward(weights, static_workspace, input, output, valid_tokens, {{mask, mask_length}}));",
        "}", "",
        f"{prefix}_status {prefix}_forward_masked_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
        f"    {prefix}_output_t* output, int valid_tokens, const uint8_t* mask, int mask_length) {{",
        *_workspace_lines(P),
        f"    return {prefix}_status(sf::forward(weights, *ws, input, output, valid_tokens, {{mask, mask_length}}));",
        "}"]


def _masked_classify_text(prefix: str) -> list:
    """PREFIX_classify_masked and its _ws twin: PREFIX_classify with a key padding mask."""
    P = prefix.upper()
    return [
        f"{prefix}_status {prefix}_classify_masked(const {prefix}_input_t* input, {prefix}_output_t* logits, int* label,",
        f"    int valid_tokens, const uint8_t* mask, int mask_length) {{",
        f"    return {prefix}_status(classify(static_workspace, input, logits, label, valid_tokens, {{mask, mask_length}}));",
        "}", "",
        f"{prefix}_status {prefix}_classify_masked_ws(void* workspace, size_t workspace_bytes,",
        f"    const {prefix}_input_t* input, {prefix}_output_t* logits, int* label,",
        f"    int valid_tokens, const uint8_t* mask, int mask_length) {{",
        *_workspace_lines(P),
        f"    return {prefix}_status(classify(*ws, input, logits, label, valid_tokens, {{mask, mask_length}}));",
        "}"]


def source_text(prefix: str, name: str, cpp_header: str, precision: str, model: bool, info: dict) -> str:
    P = prefix.upper()
    checks = [f"static_assert(int(sf::status::{s}) == {P}_STATUS_{s.upper()}, \"status {s}\");"
              for s in status_names()]
    out = [f"// {prefix}.cpp: the extern \"C\" functions of {prefix}.h around {cpp_header}. Generated by",
           "// tools/export_pytorch.py --c-api.",
           f'#include "{prefix}.h"', "", "#include <staticformer/staticformer.hpp>", "",
           "#include <cstdint>", "#include <new>", "#include <type_traits>", "",
           f'#include "{cpp_header}"', "",
           f"#ifndef {P}_WEIGHTS_SECTION",
           f"#define {P}_WEIGHTS_SECTION __attribute__((section(\".rodata.sf_weights\")))",
           "#endif",
           f"#ifndef {P}_WORKSPACE_SECTION",
           f"#define {P}_WORKSPACE_SECTION __attribute__((section(\".bss.sf_workspace\")))",
           "#endif", "", "namespace sf = staticformer;", "", "namespace {", "",
           _types(name, model, precision, info["max_batch"], info["max_workers"]), "",
           "// The header's numbers and types, checked on the target that compiles this.",
           f"static_assert(std::is_same<input_type, {prefix}_input_t>::value && std::is_same<output_type, {prefix}_output_t>::value, \"types\");",
           f"static_assert(input_values == {P}_INPUT_VALUES && output_values == {P}_OUTPUT_VALUES && input_tokens == {P}_INPUT_TOKENS, \"sizes\");",
           f"static_assert(sizeof(weights_type) == {P}_WEIGHT_BYTES, \"weight bytes\");",
           f"static_assert(sizeof(workspace_type) == {P}_WORKSPACE_BYTES && alignof(workspace_type) == {P}_WORKSPACE_ALIGN, \"workspace\");",
           f"static_assert(sizeof(batch_workspace_type) == {P}_BATCH_WORKSPACE_BYTES && alignof(batch_workspace_type) == {P}_BATCH_WORKSPACE_ALIGN, \"batch workspace\");",
           f"static_assert(max_batch == {P}_MAX_BATCH && max_workers == {P}_MAX_WORKERS, \"batch\");",
           f"static_assert(std::is_same<{prefix}_task, sf::parallel_task::function>::value, \"task\");",
           *checks, "",
           f"// A constexpr copy of {name}: constant-initialised into its own section.",
           f"{P}_WEIGHTS_SECTION alignas(sf::weights_alignment) constexpr weights_type weights = {name};",
           f"{P}_WORKSPACE_SECTION workspace_type static_workspace;  // zero-initialised, no constructor runs", "",
           "// The caller's buffer as a workspace, or null when it is null, short or misaligned.",
           "template <class W = workspace_type>",
           "W* as_workspace(void* buffer, std::size_t bytes) noexcept {",
           "    if (buffer == nullptr || bytes < sizeof(W) || reinterpret_cast<std::uintptr_t>(buffer) % alignof(W) != 0)",
           "        return nullptr;",
           "    return ::new (buffer) W;  // trivial: begins its lifetime, writes nothing",
           "}", ""]
    if info["classes"] > 0:
        out += ["sf::status classify(workspace_type& ws, const input_type* in, output_type* logits, int* label, int valid,",
                "                    sf::key_padding_mask mask = {}) noexcept {",
                "    const sf::status s = sf::forward(weights, ws, in, logits, valid, mask);",
                "    if (s == sf::status::ok && label != nullptr) *label = sf::arg_max(logits, classes);",
                "    return s;",
                "}", ""]
    out += ["}  // namespace", "", 'extern "C" {', "",
            f"const char* {prefix}_status_string({prefix}_status s) {{",
            f"    return s == {P}_STATUS_BAD_WORKSPACE ? \"bad_workspace\" : sf::to_string(static_cast<sf::status>(s));",
            "}", "",
            f"{prefix}_status {prefix}_forward(const {prefix}_input_t* input, {prefix}_output_t* output, int valid_tokens) {{",
            f"    return {prefix}_status(sf::forward(weights, static_workspace, input, output, valid_tokens));",
            "}", "",
            f"{prefix}_status {prefix}_forward_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
            f"                               {prefix}_output_t* output, int valid_tokens) {{",
            *_workspace_lines(P),
            f"    return {prefix}_status(sf::forward(weights, *ws, input, output, valid_tokens));",
            "}", "", *_masked_forward_text(prefix), "", *_batch_source_text(prefix)]
    if info["classes"] > 0:
        out += ["",
                f"{prefix}_status {prefix}_classify(const {prefix}_input_t* input, {prefix}_output_t* logits, int* label, int valid_tokens) {{",
                f"    return {prefix}_status(classify(static_workspace, input, logits, label, valid_tokens));",
                "}", "",
                f"{prefix}_status {prefix}_classify_ws(void* workspace, size_t workspace_bytes, const {prefix}_input_t* input,",
                f"                                {prefix}_output_t* logits, int* label, int valid_tokens) {{",
                *_workspace_lines(P),
                f"    return {prefix}_status(classify(*ws, input, logits, label, valid_tokens));",
                "}", "", *_masked_classify_text(prefix)]
    if precision in ("int8", "a16w8"):
        # A model's output scale is its logits' (headless: its rows', the encoder's or pooled_norm's).
        q_in, q_out = ("weights.quant.input", "weights.quant.logits") if model else ("weights.input", "weights.output")
        out += ["",
                f"void {prefix}_quantization(float* input_scale, int32_t* input_zero_point, float* output_scale,",
                f"{' ' * (len(prefix) + 18)}int32_t* output_zero_point) {{",
                f"    const sf::quantization in = {q_in}, out = {q_out};",
                "    if (input_scale != nullptr) *input_scale = in.scale;",
                "    if (input_zero_point != nullptr) *input_zero_point = in.zero_point;",
                "    if (output_scale != nullptr) *output_scale = out.scale;",
                "    if (output_zero_point != nullptr) *output_zero_point = out.zero_point;",
                "}"]
    out += ["", '}  // extern "C"']
    return "\n".join(out) + "\n"


def write_c_api(prefix: str, out_dir, cpp_header, name: str, precision: str, model: bool, describe: str,
                batch: int = 8, workers: int = 4) -> str:
    """Writes out_dir/PREFIX.h and out_dir/PREFIX.cpp; returns a summary. batch, workers: the most
    inputs and threads of PREFIX_forward_batch_ws (they size its workspace)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", prefix):
        raise ValueError(f"--c-api {prefix!r}: a C identifier prefix is needed")
    if not (1 <= batch <= 1024 and 1 <= workers <= 256):
        raise ValueError(f"--c-api-batch {batch} / --c-api-workers {workers}: 1..1024 inputs and 1..256 workers")
    cpp_header = Path(cpp_header)
    info = probe(cpp_header, name, model, precision, batch, workers)
    out_dir = Path(out_dir)
    (out_dir / f"{prefix}.h").write_text(header_text(prefix, name, precision, model, info, describe))
    (out_dir / f"{prefix}.cpp").write_text(source_text(prefix, name, cpp_header.name, precision, model, info))
    return (f"C API {out_dir / prefix}.h / .cpp (weights {info['weight_bytes']:,} B, "
            f"workspace {info['workspace_bytes']:,} B aligned {info['workspace_align']})")
