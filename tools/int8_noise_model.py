#!/usr/bin/env python3
"""Where int8 noise enters a pre-norm encoder, and what a wider residual stream buys: a numpy
model of the int8 pass (fake quantisation, not the library's kernels).

Each quantised tensor is rounded to its grid: activations asymmetric int8 with min-max ranges
from calibration inputs, queries / keys / values / context symmetric int8, weights per output
channel symmetric int8, probabilities Q15. Schemes:
  int8-stream    the residual stream (input, each residual add, output) int8, a range each
  int16-stream   the stream int16, symmetric, one range for the whole encoder
  a16w8          the int16 stream, and every other activation int16 too (int8 weights)
Prints the SQNR against float of the output and of the branch (output - input) on inputs the
calibration never saw, for the four reference configurations (torch's default init,
standard-normal inputs). Usage: int8_noise_model.py [tiny small mini wide] [--samples N]
"""
import argparse
import math

import numpy as np
import torch

CONFIGS = {  # d_model, heads, d_ff, seq_len, layers
    'tiny': (64, 4, 256, 32, 2), 'small': (128, 4, 512, 64, 4),
    'mini': (256, 4, 1024, 128, 4), 'wide': (384, 12, 1536, 128, 6)}
STREAM = ('input', 'attention_add', 'feed_forward_add', 'output')


def linear_params(rng, n_in, n_out):
    bound = 1 / math.sqrt(n_in)  # nn.Linear's default init
    return rng.uniform(-bound, bound, (n_in, n_out)), rng.uniform(-bound, bound, n_out)


def layer_norm(x):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)


def gelu(x):
    return 0.5 * x * (1 + torch.erf(torch.from_numpy(x / math.sqrt(2))).numpy())


class Grid:
    """Records ranges (calibration), then rounds each tensor to its grid (mode 'int8')."""

    def __init__(self, stream_bits, activation_bits=8):
        self.mode, self.ranges, self.stream_bits, self.bits = 'calibrate', {}, stream_bits, activation_bits

    def key(self, name):  # int16: one range for every stream tensor
        return 'stream' if self.stream_bits == 16 and name.split('.')[0] in STREAM else name

    def __call__(self, name, x, symmetric=False):
        if self.mode == 'float':
            return x
        key = self.key(name)
        if self.mode == 'calibrate':
            lo, hi = self.ranges.get(key, (0.0, 0.0))
            self.ranges[key] = (min(lo, x.min()), max(hi, x.max()))
            return x
        lo, hi = self.ranges[key]
        if key == 'stream' or symmetric:
            bits = 16 if key == 'stream' else self.bits
            top = 2 ** (bits - 1) - 1
            step = max(-lo, hi) / top
            return np.clip(np.round(x / step), -top, top) * step
        levels = 2 ** self.bits
        step = (hi - lo) / (levels - 1)
        zero = np.round(-lo / step) - levels // 2
        return (np.clip(np.round(x / step) + zero, -levels // 2, levels // 2 - 1) - zero) * step


def weight_grid(w):
    step = np.abs(w).max(0, keepdims=True) / 127
    return np.round(w / step) * step


def forward(layers, x, heads, grid):
    rows, d = x.shape
    dh = d // heads
    quantised = grid.mode == 'int8'

    def linear(params, a):
        w, b = params
        return a @ (weight_grid(w) if quantised else w) + b

    x = grid('input', x)
    for i, p in enumerate(layers):
        def q(name, a, symmetric=False):
            return grid(f'{name}.{i}', a, symmetric)
        h = q('norm1', layer_norm(x))
        queries = q('query', linear(p['q'], h) / math.sqrt(dh), True)
        keys, values = q('key', linear(p['k'], h), True), q('value', linear(p['v'], h), True)
        context = np.zeros_like(x)
        for head in range(heads):
            cols = slice(head * dh, (head + 1) * dh)
            scores = queries[:, cols] @ keys[:, cols].T
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            if quantised:
                probs = np.minimum(np.round(probs * 32768), 32767) / 32768
            context[:, cols] = probs @ values[:, cols]
        x = q('attention_add', x + q('attention_out', linear(p['o'], q('context', context, True))))
        hidden = q('activation', gelu(q('ff1', linear(p['f1'], q('norm2', layer_norm(x))))))
        x = q('feed_forward_add', x + q('ff2', linear(p['f2'], hidden)))
    return grid('output', layer_norm(x))


def sqnr(reference, test):
    return 10 * np.log10((reference ** 2).sum() / ((reference - test) ** 2).sum())


def measure(name, stream_bits, samples, activation_bits=8):
    d, heads, d_ff, seq_len, depth = CONFIGS[name]
    rng = np.random.default_rng(1)
    layers = [dict(q=linear_params(rng, d, d), k=linear_params(rng, d, d), v=linear_params(rng, d, d),
                   o=linear_params(rng, d, d), f1=linear_params(rng, d, d_ff), f2=linear_params(rng, d_ff, d))
              for _ in range(depth)]
    calibration = [rng.standard_normal((seq_len, d)) for _ in range(samples)]
    held_out = [rng.standard_normal((seq_len, d)) for _ in range(samples)]
    grid = Grid(stream_bits, activation_bits)
    for x in calibration:
        forward(layers, x, heads, grid)
    reference, test = [], []
    for x in held_out:
        grid.mode = 'float'
        reference.append(forward(layers, x, heads, grid))
        grid.mode = 'int8'
        test.append(forward(layers, x, heads, grid))
    x, y, t = np.concatenate(held_out), np.concatenate(reference), np.concatenate(test)
    return sqnr(y, t), sqnr(y - x, t - x)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('configs', nargs='*', default=list(CONFIGS))
    parser.add_argument('--samples', type=int, default=4)
    args = parser.parse_args()
    print('| config | int8 stream: output / branch | int16 stream | a16w8 |\n|---|--:|--:|--:|')
    for name in args.configs:
        cells = ['%.2f / %.2f dB' % measure(name, stream, args.samples, bits) for stream, bits in ((8, 8), (16, 8), (16, 16))]
        print(f'| {name} | ' + ' | '.join(cells) + ' |', flush=True)


if __name__ == '__main__':
    main()
