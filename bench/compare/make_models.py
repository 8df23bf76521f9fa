#!/usr/bin/env python3
"""Writes the ONNX models of tfn's side-by-side benchmark against ONNX Runtime
(bench/compare/, issue 7) into OUT_DIR, with Debian's python3-onnx
(onnx.helper, opset 17) and weights from numpy with a fixed seed:

  mlp          784-512-512-10, relu, softmax; x: f32[batch,784], batch a dim_param
  chain        tanh(x*1.5+0.5)*sigmoid(x) - x/3 on x: f32[4096,4096]
  lenet        LeNet-5: conv5x5(6,pad 2) relu maxpool2, conv5x5(16) relu maxpool2,
               flatten, gemm 120 relu, gemm 84 relu, gemm 10; x: f32[1,1,28,28]
  convstack    3 x (conv3x3 pad 1, 32->32, bias, relu); x: f32[1,32,56,56]
  transformer  one post-LN encoder block: seq 128, d_model 256, 4 heads, FFN 1024,
               GELU written with Erf; x: f32[1,128,256]
  trivial      y = x + 1 on x: f32[4]

and, unless --no-torch, resnet18, mobilenet_v2 and
deeplabv3_mobilenet_v3_large by running the model zoo's exporter
(tests/zoo/make_zoo.py: torchvision, random weights, fixed seeds) into
OUT_DIR/torch/ and copying those three.

Every model is passed through ONNX shape inference before it is saved, so
that the intermediate shapes are in the file's value_info: the benchmark
driver counts the FLOPs of MatMul/Gemm/Conv from them without a shape
inference of its own.

usage: make_models.py OUT_DIR [--no-torch]
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
SEED = 20261207


class Builder:
    """Collects the nodes and initializers of one graph; names are unique."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.inits = []
        self.count = 0

    def name(self, base):
        self.count += 1
        return "%s_%d" % (base, self.count)

    def const(self, base, array):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), n))
        return n

    def const_i64(self, base, values):
        n = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), n))
        return n

    def weight(self, base, shape, fan_in):
        # He-style scale keeps activations near unit size through relu
        # stacks, so the outputs are well-conditioned for the agreement check.
        w = self.rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        return self.const(base, w)

    def bias(self, base, n):
        return self.const(base, (self.rng.standard_normal(n) * 0.1).astype(np.float32))

    def op(self, op_type, inputs, output=None, **attrs):
        out = output or self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=self.name("n_" + op_type), **attrs))
        return out

    def model(self, name, inputs, outputs):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, initializer=self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="tfn-bench-compare")
        # ONNX 1.12's make_model writes its own newest IR version; pin the one
        # that goes with opset 17 so older and newer readers agree.
        m.ir_version = 8
        onnx.checker.check_model(m)
        return onnx.shape_inference.infer_shapes(m, strict_mode=True)


def f32(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def make_mlp(rng):
    b = Builder(rng)
    h = "x"
    sizes = [784, 512, 512, 10]
    for i in range(3):
        w = b.weight("w%d" % i, (sizes[i + 1], sizes[i]), sizes[i])  # [out, in] as PyTorch stores it
        h = b.op("Gemm", [h, w, b.bias("b%d" % i, sizes[i + 1])], transB=1)
        if i < 2:
            h = b.op("Relu", [h])
    b.op("Softmax", [h], "y", axis=-1)
    return b.model("mlp", [f32("x", ["batch", 784])], [f32("y", ["batch", 10])])


def make_chain(rng):
    b = Builder(rng)
    t = b.op("Mul", ["x", b.const("c1_5", 1.5)])
    t = b.op("Add", [t, b.const("c0_5", 0.5)])
    t = b.op("Tanh", [t])
    s = b.op("Sigmoid", ["x"])
    t = b.op("Mul", [t, s])
    d = b.op("Div", ["x", b.const("c3", 3.0)])
    b.op("Sub", [t, d], "y")
    return b.model("chain", [f32("x", [4096, 4096])], [f32("y", [4096, 4096])])


def make_lenet(rng):
    b = Builder(rng)
    h = b.op("Conv", ["x", b.weight("conv1_w", (6, 1, 5, 5), 25), b.bias("conv1_b", 6)],
             kernel_shape=[5, 5], pads=[2, 2, 2, 2])
    h = b.op("Relu", [h])
    h = b.op("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = b.op("Conv", [h, b.weight("conv2_w", (16, 6, 5, 5), 150), b.bias("conv2_b", 16)], kernel_shape=[5, 5])
    h = b.op("Relu", [h])
    h = b.op("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = b.op("Flatten", [h], axis=1)
    sizes = [400, 120, 84, 10]
    for i in range(3):
        w = b.weight("fc%d_w" % i, (sizes[i + 1], sizes[i]), sizes[i])
        h = b.op("Gemm", [h, w, b.bias("fc%d_b" % i, sizes[i + 1])], "y" if i == 2 else None, transB=1)
        if i < 2:
            h = b.op("Relu", [h])
    return b.model("lenet", [f32("x", [1, 1, 28, 28])], [f32("y", [1, 10])])


CONVSTACK_LAYERS = 3


def make_convstack(rng):
    b = Builder(rng)
    h = "x"
    for i in range(CONVSTACK_LAYERS):
        h = b.op("Conv", [h, b.weight("conv%d_w" % i, (32, 32, 3, 3), 32 * 9), b.bias("conv%d_b" % i, 32)],
                 kernel_shape=[3, 3], pads=[1, 1, 1, 1])
        h = b.op("Relu", [h], "y" if i == CONVSTACK_LAYERS - 1 else None)
    return b.model("convstack", [f32("x", [1, 32, 56, 56])], [f32("y", [1, 32, 56, 56])])


def make_transformer(rng):
    seq, d, heads, ffn = 128, 256, 4, 1024
    dh = d // heads
    b = Builder(rng)

    def linear(x, n_in, n_out, base):
        # MatMul + Add as PyTorch exports nn.Linear on a 3-D input.
        w = b.weight(base + "_w", (n_in, n_out), n_in)
        return b.op("Add", [b.op("MatMul", [x, w]), b.bias(base + "_b", n_out)])

    def layer_norm(x, base):
        gamma = b.const(base + "_g", (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32))
        return b.op("LayerNormalization", [x, gamma, b.bias(base + "_b", d)], axis=-1, epsilon=1e-5)

    def split_heads(x, perm):
        r = b.op("Reshape", [x, b.const_i64("heads_shape", [1, seq, heads, dh])])
        return b.op("Transpose", [r], perm=perm)

    q = split_heads(linear("x", d, d, "q"), [0, 2, 1, 3])   # [1,h,s,dh]
    k = split_heads(linear("x", d, d, "k"), [0, 2, 3, 1])   # [1,h,dh,s]
    v = split_heads(linear("x", d, d, "v"), [0, 2, 1, 3])   # [1,h,s,dh]
    q = b.op("Mul", [q, b.const("inv_sqrt_dh", 1.0 / np.sqrt(dh))])
    p = b.op("Softmax", [b.op("MatMul", [q, k])], axis=-1)  # [1,h,s,s]
    ctx = b.op("Transpose", [b.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, b.const_i64("merge_shape", [1, seq, d])])
    h = layer_norm(b.op("Add", ["x", linear(ctx, d, d, "o")]), "ln1")
    # GELU(u) = 0.5 * u * (1 + erf(u / sqrt(2))), as PyTorch exports it at opset 17.
    u = linear(h, d, ffn, "ff1")
    g = b.op("Erf", [b.op("Div", [u, b.const("sqrt2", np.sqrt(2.0))])])
    g = b.op("Mul", [b.op("Mul", [u, b.op("Add", [g, b.const("one", 1.0)])]), b.const("half", 0.5)])
    f = linear(g, ffn, d, "ff2")
    out = layer_norm(b.op("Add", [h, f]), "ln2")
    b.op("Identity", [out], "y")
    return b.model("transformer", [f32("x", [1, seq, d])], [f32("y", [1, seq, d])])


def make_trivial(rng):
    b = Builder(rng)
    b.op("Add", ["x", b.const("one", np.ones([1], np.float32))], "y")
    return b.model("trivial", [f32("x", [4])], [f32("y", [4])])


TORCH_MODELS = ("resnet18", "mobilenet_v2", "deeplabv3_mobilenet_v3_large")


def torch_models(out_dir):
    """resnet18, mobilenet_v2 and deeplabv3_mobilenet_v3_large from the model
    zoo's exporter."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "zoo", "make_zoo.py")
    work = os.path.join(out_dir, "torch")
    subprocess.run([sys.executable, script, work] + list(TORCH_MODELS), check=True)
    for name in TORCH_MODELS:
        m = onnx.load(os.path.join(work, name + ".onnx"))
        # PyTorch's exporter leaves out most intermediate shapes; the driver
        # needs them to count FLOPs.
        m = onnx.shape_inference.infer_shapes(m)
        onnx.save(m, os.path.join(out_dir, name + ".onnx"))


def main():
    args = [a for a in sys.argv[1:] if a != "--no-torch"]
    if len(args) != 1:
        sys.exit(__doc__)
    out_dir = args[0]
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(SEED)
    makers = [("mlp", make_mlp), ("chain", make_chain), ("lenet", make_lenet), ("convstack", make_convstack),
              ("transformer", make_transformer), ("trivial", make_trivial)]
    for name, make in makers:
        onnx.save(make(rng), os.path.join(out_dir, name + ".onnx"))
    written = [n for n, _ in makers]
    if "--no-torch" not in sys.argv[1:]:
        torch_models(out_dir)
        written += list(TORCH_MODELS)
    print("make_models.py: wrote %s to %s" % (", ".join(written), out_dir))


if __name__ == "__main__":
    main()
