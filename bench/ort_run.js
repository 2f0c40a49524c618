// ONNX Runtime's side of make bench's comparison (bench/ort_compare.py), through onnxruntime-node:
//   node bench/ort_run.js DIR CONFIGS REPETITIONS
// For each configuration DIR/<config>/{f32,int8}.onnx: one thread (intra- and inter-op), all graph
// optimisations; the outputs of the held-out sequences (input.f32) written to <graph>.out.f32;
// then the time of one run on the first sequence, the graphs' repetitions interleaved in random
// order (each about 20 ms of runs), the median. DIR/identity.onnx (x -> x, the smallest shape)
// measures the binding's own cost per run. Prints one JSON object per configuration and graph.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(process.env.ORT_NODE_MODULE || 'onnxruntime-node');

const options = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' };

function floats(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

async function timeRepetition(session, feeds, calls) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; ++i) await session.run(feeds);
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

async function callsFor(session, feeds) {
  await session.run(feeds);
  return Math.max(1, Math.round(20000 / Math.max(await timeRepetition(session, feeds, 3), 1)));
}

function shuffled(v) {
  const s = [...v];
  for (let i = s.length - 1; i > 0; --i) {
    const j = Math.floor(Math.random() * (i + 1));
    [s[i], s[j]] = [s[j], s[i]];
  }
  return s;
}

function median(v) {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function measure(dir, config, shape, repetitions) {
  const [d, s] = [shape[0], shape[3]];
  const input = floats(path.join(dir, config, 'input.f32'));
  const graphs = ['f32', 'int8', 'identity'];
  const sessions = {}, feeds = {}, calls = {}, us = {};
  for (const g of graphs) {
    const file = g === 'identity' ? path.join(dir, 'identity.onnx') : path.join(dir, config, g + '.onnx');
    sessions[g] = await ort.InferenceSession.create(file, options);
    const rows = g === 'identity' ? 1 : s, cols = g === 'identity' ? 1 : d;
    feeds[g] = { x: new ort.Tensor('float32', input.slice(0, rows * cols), [rows, cols]) };
  }
  for (const g of ['f32', 'int8']) {
    const n = s * d, out = new Float32Array(input.length);
    for (let k = 0; k * n < input.length; ++k) {
      const r = await sessions[g].run({ x: new ort.Tensor('float32', input.slice(k * n, (k + 1) * n), [s, d]) });
      out.set(r[sessions[g].outputNames[0]].data, k * n);
    }
    fs.writeFileSync(path.join(dir, config, g + '.out.f32'), Buffer.from(out.buffer));
  }
  for (const g of graphs) { calls[g] = await callsFor(sessions[g], feeds[g]); us[g] = []; }
  for (let r = 0; r < repetitions; ++r) {
    // in random order: a slow spell hits every graph alike
    for (const g of shuffled(graphs)) us[g].push(await timeRepetition(sessions[g], feeds[g], calls[g]));
  }
  for (const g of graphs)
    console.log(JSON.stringify({ config, graph: g, us: median(us[g]), version: ort.env.versions.common }));
}

async function main() {
  const [dir, configs, repetitions] = process.argv.slice(2);
  const shapes = JSON.parse(fs.readFileSync(path.join(dir, 'shapes.json'), 'utf8'));
  for (const config of configs.split(',')) await measure(dir, config, shapes[config], Number(repetitions));
}

main().catch((e) => { console.error('ort_run: ' + e.message); process.exit(1); });
