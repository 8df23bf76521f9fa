#!/usr/bin/env python3
"""Post-training-quantized models for tfn's int8 work: PyTorch 1.13's eager
post-training quantization (engine qnnpack, or onednn), exported to ONNX at
opset 13 as QDQ graphs (QuantizeLinear/DequantizeLinear around float ops).
Random weights from fixed seeds, nothing downloaded, nothing committed.

Per model NAME it writes NAME.onnx, NAME_input.npy (one seeded float32
input, batch 1), NAME_torch_output.npy (the quantized PyTorch model's output
on it) and a manifest qdq.txt, one line per model:

    NAME NAME_input.npy NAME_torch_output.npy OUTPUT_SCALE

OUTPUT_SCALE is the scale of the QuantizeLinear that feeds the graph's final
DequantizeLinear, so that a test can state its tolerance in quantization
steps. It prints a summary of each graph (op histogram, Q/DQ dtypes, weight
and bias representation, the DQ -> op -> Q patterns) and, given
onnxruntime-node (--ort DIR or $ORT_NODE_DIR), max |ORT - torch| in steps.

usage: make_qdq_models.py [--engine ENGINE] [--ort DIR] OUT_DIR [NAME...]
       make_qdq_models.py --list
  ENGINE  qnnpack (default: per-tensor weights) or onednn (per-channel)
  DIR     the onnxruntime-node package directory; the check is skipped
          without one
"""
import collections
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import onnx
import torch
import torch.ao.quantization as tq
from onnx import numpy_helper
from torchvision.models import quantization as tvq

OPSET = 13
ENGINES = ("qnnpack", "onednn")
CALIBRATION_BATCHES = 8
CALIBRATION_BATCH_SIZE = 4
HERE = os.path.dirname(os.path.abspath(__file__))


def randomize(model, generator, image_size):
    """Random batch-norm terms, as tests/zoo/make_zoo.py draws them, but with
    running statistics measured rather than drawn. torchvision's init (fan-out
    Kaiming) shrinks activations at every depthwise conv: with make_zoo's
    drawn statistics mobilenet_v2's output no longer depends on its input
    (its spread over inputs is ~1e-8), and quantized it would be a constant.
    So each BN gets the mean and variance its input really has on seeded
    normal batches (train mode, cumulative average), jittered like make_zoo's
    so they stay random: every layer sees activations of order one."""
    bns = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        for m in bns:
            n = m.num_features
            m.weight.copy_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.bias.copy_(torch.randn(n, generator=generator) * 0.1)
            m.reset_running_stats()
            m.momentum = None
        model.train()
        for _ in range(4):
            model(torch.randn(4, 3, image_size, image_size, generator=generator))
        model.eval()
        for m in bns:
            n = m.num_features
            std = m.running_var.sqrt()
            m.running_mean.add_(torch.randn(n, generator=generator) * 0.1 * std)
            m.running_var.mul_(torch.rand(n, generator=generator) * 0.5 + 0.75)
            m.momentum = 0.1
    return model


class ConvNet(torch.nn.Module):
    """A tiny net for unit tests (1x3x32x32, well under a second): conv-BN-ReLU
    twice, a conv-BN joined to the first by a residual add and a separate ReLU
    (resnet18 fuses them into add_relu), max pooling, a conv with its own bias
    and no BN, AvgPool2d (not global, unlike the torchvision nets), flatten
    and a linear layer."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.quant = tq.QuantStub()
        self.conv1, self.bn1, self.relu1 = nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()
        self.conv2, self.bn2, self.relu2 = nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU()
        self.conv3, self.bn3 = nn.Conv2d(16, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16)
        # Eager quantization needs a module for the add to observe its output.
        self.add = nn.quantized.FloatFunctional()
        self.relu3 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv4, self.relu4 = nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU()
        self.avgpool = nn.AvgPool2d(2)
        self.fc = nn.Linear(32 * 4 * 4, 10)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        y = self.relu2(self.bn2(self.conv2(x)))
        y = self.bn3(self.conv3(y))
        x = self.pool(self.relu3(self.add.add(x, y)))
        x = self.avgpool(self.relu4(self.conv4(x)))
        return self.dequant(self.fc(torch.flatten(x, 1)))

    def fuse_model(self):
        tq.fuse_modules(self, [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3"],
                               ["conv4", "relu4"]], inplace=True)


def tv(name):
    return lambda: getattr(tvq, name)(weights=None, quantize=False)


# name: (constructor of a float model with QuantStub/DeQuantStub and
# fuse_model(), image size).
MODELS = {
    "convnet_qdq": (ConvNet, 32),
    "resnet18_qdq": (tv("resnet18"), 224),
    "mobilenet_v2_qdq": (tv("mobilenet_v2"), 224),
}


def quantize(model, engine, generator, size):
    """Eager-mode post-training static quantization with the engine's default
    qconfig, calibrated on seeded normal batches. Returns the weight
    quantization scheme the qconfig chose."""
    model.eval()
    model.fuse_model()
    model.qconfig = qconfig = tq.get_default_qconfig(engine)
    tq.prepare(model, inplace=True)
    with torch.no_grad():
        for _ in range(CALIBRATION_BATCHES):
            model(torch.randn(CALIBRATION_BATCH_SIZE, 3, size, size, generator=generator))
    with warnings.catch_warnings():
        # mobilenet_v2's blocks without a residual still own an (unused)
        # skip_add, whose observer never ran; its default qparams are unused.
        warnings.filterwarnings("ignore", message="must run observer before calling calculate_qparams")
        tq.convert(model, inplace=True)
    return str(qconfig.weight().qscheme).replace("torch.", "")


def export(out_dir, name, engine):
    make, size = MODELS[name]
    # One seed per model, from its name (as make_zoo.py): a model's weights
    # and inputs do not change when others are added or left out.
    seed = sum(ord(c) * 31 ** i for i, c in enumerate(name)) % (2 ** 31)
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    model = randomize(make(), g, size)
    scheme = quantize(model, engine, g, size)
    x = torch.randn(1, 3, size, size, generator=g)
    # The scale PyTorch gives the model's last quantized tensor, to check the
    # one read back from the ONNX graph.
    seen = {}
    hook = model.dequant.register_forward_pre_hook(lambda m, args: seen.update(scale=args[0].q_scale()))
    with torch.no_grad():
        y = model(x)
    hook.remove()
    path = os.path.join(out_dir, name + ".onnx")
    with warnings.catch_warnings():
        # Emitted for the tuples of packed quantized weights that the
        # exporter unpacks into constants; the exported graph is not affected.
        warnings.filterwarnings("ignore", message="The shape inference of prim::TupleConstruct")
        torch.onnx.export(model, (x,), path, opset_version=OPSET, input_names=["x"], output_names=["y"])
    np.save(os.path.join(out_dir, name + "_input.npy"), x.numpy())
    np.save(os.path.join(out_dir, name + "_torch_output.npy"), y.numpy())
    return scheme, seen["scale"]


class Graph:
    """Just enough of an ONNX graph to describe its QDQ structure: producers,
    consumers and the values of constants (Constant nodes, initializers, and
    what ConstantOfShape and Cast make of them: torch computes the bias
    zero points that way)."""

    GLUE = {"QuantizeLinear", "DequantizeLinear", "Cast", "Constant", "ConstantOfShape"}

    def __init__(self, model):
        self.nodes = list(model.graph.node)
        self.outputs = {o.name for o in model.graph.output}
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.consumers = collections.defaultdict(list)
        for n in self.nodes:
            for i in n.input:
                self.consumers[i].append(n)
        self.values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}

    def value(self, name):
        """The constant value of a tensor, or None if it is computed from the input."""
        if name in self.values:
            return self.values[name]
        n = self.producer.get(name)
        if n is None:
            return None
        v = None
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Constant":
            v = numpy_helper.to_array(attrs["value"])
        elif n.op_type == "ConstantOfShape":
            shape = self.value(n.input[0])
            fill = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
            v = None if shape is None else np.full(shape, fill.reshape(-1)[0], fill.dtype)
        elif n.op_type == "Cast":
            src = self.value(n.input[0])
            v = None if src is None else src.astype(np_dtype(attrs["to"]))
        self.values[name] = v
        return v

    def attr(self, node, key, default=None):
        for a in node.attribute:
            if a.name == key:
                return onnx.helper.get_attribute_value(a)
        return default

    def chain(self, tensor):
        """The ops that compute a constant tensor, e.g. ConstantOfShape -> Cast."""
        n = self.producer.get(tensor)
        if n is None or n.op_type == "Constant":
            return "const"
        ops = [self.chain(i) for i in n.input if i in self.producer and self.producer[i].op_type != "Constant"]
        return " -> ".join(ops + [n.op_type])

    def dq_kind(self, node):
        """'act', 'weight' or 'bias' for a DequantizeLinear."""
        data = self.value(node.input[0])
        if data is None:
            return "act"
        return "bias" if data.dtype == np.int32 else "weight"

    def label(self, tensor):
        """How a float op's input is made: DQ(u8 act), DQ(i8 weight), ..."""
        n = self.producer.get(tensor)
        if n is None:
            return tensor
        if n.op_type == "DequantizeLinear":
            kind = self.dq_kind(n)
            dt = dtype_name(self.value(n.input[0]).dtype if kind != "act" else self.value(n.input[2]).dtype)
            per = " per-channel" if kind != "act" and self.attr(n, "axis") is not None \
                and self.value(n.input[1]).size > 1 else ""
            return "DQ(%s %s%s)" % (dt, kind, per)
        v = self.value(tensor)
        if v is not None:
            return "const %s%s" % (dtype_name(v.dtype), v.tolist() if v.size <= 8 else list(v.shape))
        return n.op_type

    def patterns(self):
        """Each maximal chain of float ops, from the DQs (or constants) that
        feed it to the Q (or graph output) that takes its result."""
        found = collections.Counter()
        for n in self.nodes:
            if n.op_type in self.GLUE:
                continue
            if any(self.producer.get(i) is not None and self.producer[i].op_type not in self.GLUE
                   for i in n.input):
                continue  # not the head of a chain
            ins = ", ".join(self.label(i) for i in n.input if i)
            chain, cur = [n.op_type], n
            while True:
                users = self.consumers[cur.output[0]]
                if len(users) == 1 and users[0].op_type not in self.GLUE:
                    cur = users[0]
                    chain.append(cur.op_type)
                    continue
                break
            if cur.output[0] in self.outputs:
                end = "output"
            elif len(users) == 1 and users[0].op_type == "QuantizeLinear":
                end = "Q(%s)" % dtype_name(self.value(users[0].input[2]).dtype)
            else:
                end = "+".join(u.op_type for u in users)
            found["%s -> %s -> %s" % (ins, " -> ".join(chain), end)] += 1
        # The glue: graph input to Q, Q to the DQs that read it, DQ to output.
        for n in self.nodes:
            if n.op_type == "QuantizeLinear" and n.input[0] not in self.producer:
                found["input -> Q(%s)" % dtype_name(self.value(n.input[2]).dtype)] += 1
            if n.op_type == "DequantizeLinear" and n.output[0] in self.outputs:
                found["DQ -> output"] += 1
            if n.op_type == "QuantizeLinear":
                for u in self.consumers[n.output[0]]:
                    if u.op_type == "Cast":
                        to = dtype_name(np_dtype(self.attr(u, "to")))
                        after = "+".join(sorted({c.op_type for c in self.consumers[u.output[0]]}))
                        found["Q -> Cast(to %s) -> %s" % (to, after)] += 1
                    else:
                        found["Q -> " + u.op_type] += 1
        return found

    def output_scale(self):
        """The scale of the Q before the final DQ (through torch's Cast)."""
        dq = self.producer[next(iter(self.outputs))]
        assert dq.op_type == "DequantizeLinear", dq.op_type
        q = self.producer[dq.input[0]]
        while q.op_type == "Cast":
            q = self.producer[q.input[0]]
        assert q.op_type == "QuantizeLinear", q.op_type
        return float(self.value(q.input[1]))


def np_dtype(onnx_type):
    # onnx 1.12 (Debian's) has only the mapping table, not helper.tensor_dtype_to_np_dtype.
    return onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[onnx_type]


def dtype_name(dt):
    return {"uint8": "u8", "int8": "i8", "int32": "i32"}.get(np.dtype(dt).name, np.dtype(dt).name)


def describe(path):
    """Checks the graph with onnx and returns (summary lines, output scale)."""
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    g = Graph(model)
    lines = ["onnx.checker (full check) and strict shape inference: ok"]
    hist = collections.Counter(n.op_type for n in g.nodes)
    lines.append("ops (%d nodes, %d initializers): %s" % (
        len(g.nodes), len(model.graph.initializer),
        ", ".join("%s %d" % kv for kv in sorted(hist.items(), key=lambda kv: (-kv[1], kv[0])))))
    q = collections.Counter(dtype_name(g.value(n.input[2]).dtype)
                            for n in g.nodes if n.op_type == "QuantizeLinear")
    lines.append("QuantizeLinear outputs: " + ", ".join("%s x%d" % kv for kv in sorted(q.items())))
    dq = collections.Counter()
    for n in g.nodes:
        if n.op_type != "DequantizeLinear":
            continue
        kind = g.dq_kind(n)
        data = g.value(n.input[0])
        dt = dtype_name(g.value(n.input[2]).dtype if data is None else data.dtype)
        scale = g.value(n.input[1])
        axis = g.attr(n, "axis")
        if axis is not None and scale.size > 1:
            how = "per-channel, axis %d" % axis
        else:
            # Per tensor: opset 13 wants a scalar scale; torch writes a
            # one-element 1-D one for weights and biases.
            how = "per-tensor, scale %s" % (list(scale.shape) or "scalar")
        if n.input[2] in g.producer and g.producer[n.input[2]].op_type != "Constant":
            how += ", zero point computed by %s" % g.chain(n.input[2])
        dq["%s %s (%s)" % (kind, dt, how)] += 1
    lines.append("DequantizeLinear inputs: " + "; ".join("%s x%d" % kv for kv in sorted(dq.items())))
    float_bias = sum(1 for n in g.nodes if n.op_type in ("Conv", "Gemm") and len(n.input) > 2
                     and g.label(n.input[2]).startswith("const"))
    lines.append("conv/gemm bias: %d as DQ of int32, %d as float" % (
        sum(1 for n in g.nodes if n.op_type == "DequantizeLinear" and g.dq_kind(n) == "bias"), float_bias))
    lines.append("patterns:")
    lines += ["  %3d  %s" % (c, p) for p, c in sorted(g.patterns().items(), key=lambda pc: (-pc[1], pc[0]))]
    return lines, g.output_scale()


def ort_check(out_dir, name, scale, ort_dir):
    """max |ORT - torch| in output quantization steps, with ORT's graph
    optimizations on (QDQ groups run as ORT's int8 kernels) and off (the
    QDQ graph as written, in float)."""
    node = os.environ.get("NODE", "node")
    ref = np.load(os.path.join(out_dir, name + "_torch_output.npy"))
    lines, got = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for opt in ("all", "disabled"):
            out = os.path.join(tmp, opt + ".npy")
            run = subprocess.run([node, os.path.join(HERE, "ort_run.js"), os.path.join(out_dir, name + ".onnx"),
                                  os.path.join(out_dir, name + "_input.npy"), out, "--ort", ort_dir, "--opt", opt],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                lines.append("ORT (opt %s) failed: %s" % (opt, run.stderr.strip() or run.returncode))
                continue
            got[opt] = np.load(out).astype(np.float64)
            steps = np.abs(got[opt] - ref) / scale
            lines.append("ORT (opt %s) vs torch: max %.3g steps, %d of %d outputs differ" % (
                opt, steps.max(), int((steps > 0.5).sum()), steps.size))
    if len(got) == 2:
        steps = np.abs(got["all"] - got["disabled"]) / scale
        lines.append("ORT opt all vs disabled: max %.3g steps, %d of %d outputs differ" % (
            steps.max(), int((steps > 0.5).sum()), steps.size))
    return lines


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        print(" ".join(MODELS))
        return
    engine, ort_dir, rest = "qnnpack", os.environ.get("ORT_NODE_DIR"), []
    while args:
        a = args.pop(0)
        if a in ("--engine", "--ort") and args:
            if a == "--engine":
                engine = args.pop(0)
            else:
                ort_dir = args.pop(0)
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            rest.append(a)
    if not rest:
        sys.exit(__doc__)
    if engine not in ENGINES or engine not in torch.backends.quantized.supported_engines:
        sys.exit("make_qdq_models.py: engine %s not available (this torch has %s)" % (
            engine, ", ".join(e for e in torch.backends.quantized.supported_engines if e != "none")))
    out_dir, names = rest[0], rest[1:] or list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit("make_qdq_models.py: no model %s (known: %s)" % (", ".join(unknown), " ".join(MODELS)))
    os.makedirs(out_dir, exist_ok=True)
    # One thread, whatever the machine: float reductions depend on the thread
    # count, and HistogramObserver's qparams jump with tiny changes in what it
    # sees (two threads move a mobilenet_v2 zero point by one), so a fixed
    # count keeps the models the same from machine to machine of one kind.
    # It also keeps the run steady on a loaded machine.
    torch.set_num_threads(1)
    # Quantized kernels, the packing of weights and so what export unpacks
    # are the engine's.
    torch.backends.quantized.engine = engine
    if not ort_dir:
        print("make_qdq_models.py: no --ort DIR or ORT_NODE_DIR: not comparing with ONNX Runtime")
    start = time.time()
    manifest = []
    for name in names:
        t = time.time()
        scheme, torch_scale = export(out_dir, name, engine)
        made = time.time() - t
        lines, scale = describe(os.path.join(out_dir, name + ".onnx"))
        if not np.isclose(scale, torch_scale, rtol=1e-6):
            sys.exit("make_qdq_models.py: %s: output scale %g in the graph, %g in torch" % (
                name, scale, torch_scale))
        manifest.append("%s %s_input.npy %s_torch_output.npy %.9g" % (name, name, name, scale))
        y = np.load(os.path.join(out_dir, name + "_torch_output.npy"))
        lines.append("torch output spans %d steps (%.4g .. %.4g)" % (
            round((y.max() - y.min()) / scale), y.min(), y.max()))
        if ort_dir:
            lines += ort_check(out_dir, name, scale, ort_dir)
        print("make_qdq_models.py: wrote %s in %.1f s (engine %s, weights %s, output scale %.9g)" % (
            name, made, engine, scheme, scale))
        print("\n".join("  " + s for s in lines), flush=True)
    # Written last and atomically, as make_zoo.py's: a run that stops midway
    # leaves no manifest naming models it did not write.
    tmp = os.path.join(out_dir, "qdq.txt.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(manifest) + "\n")
    os.replace(tmp, os.path.join(out_dir, "qdq.txt"))
    print("make_qdq_models.py: %d models in %.1f s" % (len(names), time.time() - start))


if __name__ == "__main__":
    main()
