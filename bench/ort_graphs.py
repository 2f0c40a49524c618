"""ONNX graphs of the reference configurations for make bench's comparison with ONNX Runtime
(bench/ort_compare.py): the same encoder as the library's (pre-norm, exact GELU, final LayerNorm;
tests/common/held_out.hpp's weights, read from precision_table's export), in f32 and as ONNX
Runtime's dynamic int8 quantisation builds it (onnxruntime.quantization.quantize_dynamic with its
defaults): each weight MatMul becomes DynamicQuantizeLinear of its input (uint8, per tensor, per
run) and MatMulInteger with the weight quantised once (int8, symmetric, per tensor, -127..127,
round half to even), rescaled by the product of the two scales, plus the float bias; LayerNorm,
attention, softmax, GELU and the residual stream stay float. Needs Debian's python3-onnx.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization


class Graph:
    """Nodes and initializers under unique names."""

    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, value, hint="c"):
        n = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.asarray(value), n))
        return n

    def op(self, kind, inputs, hint=None, outputs=1, **attrs):
        names = [self.name(hint or kind.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(kind, inputs, names, **attrs))
        return names[0] if outputs == 1 else names


def read_weights(path, d, f, layers):
    """The export's f32 weights: per layer qkv_w, qkv_b, out_w, out_b, ff1_w, ff1_b, ff2_w, ff2_b,
    norm1 gamma / beta, norm2 gamma / beta (declaration order), then the final norm's gamma, beta."""
    flat = np.fromfile(path, dtype=np.float32)
    shapes = [("qkv_w", (d, 3 * d)), ("qkv_b", (3 * d,)), ("out_w", (d, d)), ("out_b", (d,)),
              ("ff1_w", (d, f)), ("ff1_b", (f,)), ("ff2_w", (f, d)), ("ff2_b", (d,)),
              ("norm1_gamma", (d,)), ("norm1_beta", (d,)), ("norm2_gamma", (d,)), ("norm2_beta", (d,))]
    at, out = 0, []
    for _ in range(layers):
        layer = {}
        for key, shape in shapes:
            size = int(np.prod(shape))
            layer[key] = flat[at:at + size].reshape(shape)
            at += size
        out.append(layer)
    final = {"gamma": flat[at:at + d], "beta": flat[at + d:at + 2 * d]}
    if at + 2 * d != flat.size:
        raise ValueError(f"{path}: {flat.size} floats, expected {at + 2 * d}")
    return out, final


def quantize_weight(w):
    """quantize_dynamic's int8 weights: symmetric per tensor, scale max|w| / 127."""
    scale = np.float32(np.abs(w).max() / 127.0)
    return np.clip(np.rint(w / scale), -127, 127).astype(np.int8), scale


def linear(g, x, w, b, int8):
    if not int8:
        return g.op("Add", [g.op("MatMul", [x, g.const(w, "w")]), g.const(b, "b")])
    wq, w_scale = quantize_weight(w)
    xq, x_scale, x_zero = g.op("DynamicQuantizeLinear", [x], outputs=3)
    acc = g.op("MatMulInteger", [xq, g.const(wq, "wq"), x_zero, g.const(np.int8(0), "wzero")])
    scale = g.op("Mul", [x_scale, g.const(w_scale, "wscale")])
    return g.op("Add", [g.op("Mul", [g.op("Cast", [acc], to=TensorProto.FLOAT), scale]), g.const(b, "b")])


def attention(g, x, layer, heads, s, d, int8):
    dh = d // heads
    qkv = linear(g, x, layer["qkv_w"], layer["qkv_b"], int8)
    q, k, v = g.op("Split", [qkv, g.const(np.array([d, d, d], np.int64))], outputs=3, axis=1)
    shape = g.const(np.array([s, heads, dh], np.int64))
    q, k, v = (g.op("Transpose", [g.op("Reshape", [t, shape])], perm=[1, 0, 2]) for t in (q, k, v))
    scores = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 2, 1])]),
                          g.const(np.float32(1.0 / np.sqrt(dh)))])
    context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    merged = g.op("Reshape", [g.op("Transpose", [context], perm=[1, 0, 2]), g.const(np.array([s, d], np.int64))])
    return linear(g, merged, layer["out_w"], layer["out_b"], int8)


def gelu(g, x):
    """0.5 x (1 + erf(x / sqrt 2)): ONNX Runtime fuses it into its Gelu kernel."""
    e = g.op("Erf", [g.op("Mul", [x, g.const(np.float32(1.0 / np.sqrt(2.0)))])])
    return g.op("Mul", [g.op("Mul", [x, g.const(np.float32(0.5))]), g.op("Add", [e, g.const(np.float32(1.0))])])


def norm(g, x, gamma, beta):
    return g.op("LayerNormalization", [x, g.const(gamma, "gamma"), g.const(beta, "beta")], axis=-1, epsilon=1e-5)


def encoder(shape, weights_path, int8):
    """The ONNX model of shape (d_model, heads, d_ff, seq_len, layers): input x [seq_len, d_model]."""
    d, heads, f, s, n = shape
    layers, final = read_weights(weights_path, d, f, n)
    g = Graph()
    x = "x"
    for layer in layers:
        x = g.op("Add", [x, attention(g, norm(g, x, layer["norm1_gamma"], layer["norm1_beta"]), layer, heads, s, d, int8)])
        hidden = gelu(g, linear(g, norm(g, x, layer["norm2_gamma"], layer["norm2_beta"]), layer["ff1_w"], layer["ff1_b"], int8))
        x = g.op("Add", [x, linear(g, hidden, layer["ff2_w"], layer["ff2_b"], int8)])
    y = g.op("Identity", [norm(g, x, final["gamma"], final["beta"])], hint="y")
    graph = helper.make_graph(g.nodes, "staticformer_reference_encoder",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [s, d])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, [s, d])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="staticformer bench")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model
