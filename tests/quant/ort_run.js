#!/usr/bin/env node
// Runs one ONNX model in ONNX Runtime (the npm package onnxruntime-node) on
// one float32 .npy input and writes its first output as a float32 .npy: the
// reference that make_qdq_models.py --ort compares with PyTorch.
//
// usage: node ort_run.js MODEL.onnx INPUT.npy OUTPUT.npy [--ort DIR] [--opt LEVEL]
//   DIR    the onnxruntime-node package directory (default: $ORT_NODE_DIR)
//   LEVEL  ORT's graphOptimizationLevel: all (default; QDQ groups become
//          ORT's int8 kernels), or disabled (every Q/DQ/float op runs as
//          written: the float simulation of the quantized graph)
'use strict';
const fs = require('fs');
const path = require('path');

function usage(msg) {
  if (msg) console.error('ort_run.js: ' + msg);
  console.error('usage: node ort_run.js MODEL.onnx INPUT.npy OUTPUT.npy [--ort DIR] [--opt LEVEL]');
  process.exit(2);
}

// .npy v1-v3 reader for little-endian float32 in C order; that is all
// make_qdq_models.py writes, so anything else is refused rather than guessed.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']*)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(file + ': bad .npy header ' + header);
  if (descr[1] !== '<f4') throw new Error(file + ': dtype ' + descr[1] + ', want <f4 (float32)');
  if (order[1] !== 'False') throw new Error(file + ': Fortran order is not supported');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  if (buf.length - offset !== count * 4) throw new Error(file + ': size does not match shape');
  // Copy: the data offset need not be 4-byte aligned for a Float32Array view.
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = buf.readFloatLE(offset + 4 * i);
  return { data, dims };
}

function writeNpy(file, data, dims) {
  const shape = dims.length === 1 ? '(' + dims[0] + ',)' : '(' + dims.join(', ') + ')';
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ', }';
  // The header, with its 10-byte preamble and trailing newline, is padded
  // to a multiple of 64 bytes as the format asks.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header + ' '.repeat(total - 10 - header.length - 1) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const body = Buffer.alloc(data.length * 4);
  for (let i = 0; i < data.length; i++) body.writeFloatLE(data[i], 4 * i);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

async function main() {
  const args = process.argv.slice(2);
  const files = [];
  let ortDir = process.env.ORT_NODE_DIR;
  let opt = 'all';
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--ort') ortDir = args[++i];
    else if (args[i] === '--opt') opt = args[++i];
    else if (args[i].startsWith('-')) usage('unknown option ' + args[i]);
    else files.push(args[i]);
  }
  if (files.length !== 3) usage();
  if (!ortDir) usage('give the onnxruntime-node directory with --ort DIR or ORT_NODE_DIR');
  const [modelFile, inFile, outFile] = files;

  let ort;
  try {
    ort = require(path.resolve(ortDir));
  } catch (e) {
    console.error('ort_run.js: cannot load onnxruntime-node from ' + ortDir + ': ' + e.message);
    process.exit(3);
  }
  const input = readNpy(inFile);
  const session = await ort.InferenceSession.create(modelFile, {
    graphOptimizationLevel: opt,
    executionProviders: ['cpu'],
    // The machine is shared: two threads at most, like make_qdq_models.py.
    intraOpNumThreads: 2,
    interOpNumThreads: 1,
  });
  const feeds = {};
  feeds[session.inputNames[0]] = new ort.Tensor('float32', input.data, input.dims);
  const results = await session.run(feeds);
  const out = results[session.outputNames[0]];
  if (out.type !== 'float32') throw new Error('output type ' + out.type + ', want float32');
  writeNpy(outFile, out.data, out.dims);
}

main().catch((e) => {
  console.error('ort_run.js: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
