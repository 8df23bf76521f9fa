#!/usr/bin/python3
"""Integration test of tfn-serve's Open Inference Protocol gRPC front end.

Exports the built-in "mlp" example into a model repository, starts tfn-serve
on free ports, and checks it with real RPCs through stubs generated now from
the repo's serve/proto/grpc_service.proto: health, server and model metadata,
inference with typed and with raw contents (outputs compared with tfn-run on
the same bundle and input), the errors a client can cause (each must leave
the server serving), the configured message limit, and a clean exit on
SIGTERM. A second model, "dtypes" (tests/serve/dtype_model.h, written by
make_dtype_bundle), has UINT8, FP16, BF16 and the narrow integers: each in
its typed contents field (range-checked) or raw contents, FP16 and BF16 in
raw contents only, outputs checked against values worked out by hand.

Run with Debian's Python (it has python3-grpcio, python3-grpc-tools and
numpy), not a pyenv python3:

  /usr/bin/python3 tests/serve/grpc_client_test.py \
      --serve build/serve/tfn-serve --export build/tools/tfn-export \
      --dtype-bundle-tool build/serve/serve_make_dtype_bundle --workdir /tmp/grpc-test

Prints one line per check and then "N passed, N failed"; exits non-zero on
any failure.
"""

import argparse
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import grpc
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "serve", "proto"))
PROTO = "grpc_service.proto"

# The gRPC message limit the server is started with: small enough that the
# over-limit request below stays cheap, and below gRPC's 4 MiB default, so a
# request between the two sizes shows the option is what is applied.
MESSAGE_LIMIT = 1 << 20
# Outputs of tfn-serve and tfn-run come from the same runtime and bundle;
# any difference beyond float rounding of a different batch split is a bug.
RTOL = 1e-5
ATOL = 1e-7

STARTUP_TIMEOUT_S = 120  # load and warm-up of the model
RPC_TIMEOUT_S = 30
TOOL_TIMEOUT_S = 120
EXIT_TIMEOUT_S = 60  # SIGTERM to exit


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("PASS  " + name, flush=True)
        else:
            self.failed += 1
            print("FAIL  " + name + (": " + detail if detail else ""), flush=True)
        return ok

    def expect_error(self, name, call, code, contains=()):
        """`call` must fail with `code`, with every string of `contains` in the message."""
        try:
            call()
        except grpc.RpcError as e:
            details = e.details() or ""
            missing = [s for s in contains if s not in details]
            return self.check(
                name,
                e.code() == code and not missing,
                "expected %s%s, got %s: %s"
                % (code.name, " naming %s" % missing if missing else "", e.code().name, details),
            )
        return self.check(name, False, "expected %s, the call succeeded" % code.name)


def run(cmd, what):
    """Runs a tool to completion; raises with its output when it fails."""
    p = subprocess.run(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TOOL_TIMEOUT_S
    )
    if p.returncode != 0:
        raise RuntimeError(
            "%s failed (exit %d): %s\n%s"
            % (what, p.returncode, " ".join(cmd), p.stdout.decode(errors="replace"))
        )
    return p.stdout.decode(errors="replace")


# --- stubs -------------------------------------------------------------------

ROUND_TRIP_CHECK = """
import grpc_service_pb2 as pb
r = pb.ModelInferRequest(model_name="m", id="i")
t = r.inputs.add(name="x", datatype="FP32", shape=[1, 2])
t.contents.fp32_contents.extend([1.5, -2.0])
r.raw_input_contents.append(b"\\x00\\x01")
r.parameters["signature_name"].string_param = "s"
b = r.SerializeToString()
s = pb.ModelInferRequest.FromString(b)
assert s == r, s
assert list(s.inputs[0].contents.fp32_contents) == [1.5, -2.0]
assert s.parameters["signature_name"].WhichOneof("parameter_choice") == "string_param"
m = pb.ModelMetadataResponse(name="m", versions=["1"])
m.inputs.add(name="x", datatype="FP32", shape=[-1, 784])
assert pb.ModelMetadataResponse.FromString(m.SerializeToString()).inputs[0].shape == [-1, 784]
"""


def generate_stubs(out_root):
    """Generates the message classes (and, with grpc_tools, the stub) from the repo's proto.

    python3-grpc-tools is an old 1.14 (protoc 3.5); its output is checked in a
    child process first, since a _pb2 module the installed protobuf cannot
    load cannot be unloaded again. Without it, the system protoc makes the
    messages and the stub is built from grpcio's generic unary_unary.
    Returns (pb2 module, stub class, how they were made).
    """
    tools_dir = os.path.join(out_root, "grpc_tools")
    protoc_dir = os.path.join(out_root, "protoc")
    chosen = None
    os.makedirs(tools_dir, exist_ok=True)
    p = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", "-I" + PROTO_DIR,
         "--python_out=" + tools_dir, "--grpc_python_out=" + tools_dir, PROTO],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TOOL_TIMEOUT_S,
    )
    if p.returncode == 0:
        check = subprocess.run(
            [sys.executable, "-c", ROUND_TRIP_CHECK + "\nimport grpc_service_pb2_grpc\n"],
            cwd=tools_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TOOL_TIMEOUT_S,
        )
        if check.returncode == 0:
            chosen = (tools_dir, "grpc_tools.protoc")
        else:
            print("note: grpc_tools output does not load: " + check.stdout.decode(errors="replace"))
    else:
        print("note: grpc_tools.protoc failed: " + p.stdout.decode(errors="replace"))
    if chosen is None:
        protoc = shutil.which("protoc") or "/usr/bin/protoc"
        os.makedirs(protoc_dir, exist_ok=True)
        run([protoc, "-I" + PROTO_DIR, "--python_out=" + protoc_dir, PROTO], "protoc")
        chosen = (protoc_dir, "protoc --python_out + generic stub")
    sys.path.insert(0, chosen[0])
    import grpc_service_pb2 as pb  # noqa: E402  (generated above)

    exec(ROUND_TRIP_CHECK, {})  # the messages round-trip in this process too
    if chosen[1] == "grpc_tools.protoc":
        import grpc_service_pb2_grpc as pb_grpc  # noqa: E402

        return pb, pb_grpc.GRPCInferenceServiceStub, chosen[1]
    return pb, make_generic_stub(pb), chosen[1]


def make_generic_stub(pb):
    methods = {
        "ServerLive": (pb.ServerLiveRequest, pb.ServerLiveResponse),
        "ServerReady": (pb.ServerReadyRequest, pb.ServerReadyResponse),
        "ModelReady": (pb.ModelReadyRequest, pb.ModelReadyResponse),
        "ServerMetadata": (pb.ServerMetadataRequest, pb.ServerMetadataResponse),
        "ModelMetadata": (pb.ModelMetadataRequest, pb.ModelMetadataResponse),
        "ModelInfer": (pb.ModelInferRequest, pb.ModelInferResponse),
    }

    class GenericStub:
        def __init__(self, channel):
            for name, (req, resp) in methods.items():
                setattr(self, name, channel.unary_unary(
                    "/inference.GRPCInferenceService/" + name,
                    request_serializer=req.SerializeToString,
                    response_deserializer=resp.FromString,
                ))

    return GenericStub


# --- the server --------------------------------------------------------------

class Server:
    """tfn-serve as a child process; its stderr is drained into a log by a thread."""

    def __init__(self, cmd, log_path):
        self.log = open(log_path, "w")
        self.lines = queue.Queue()
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.PIPE
        )
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self):
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.log.write(line)
            self.log.flush()
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # end of stream

    def wait_ready(self, timeout):
        """Returns the gRPC target from the startup lines, once 'ready' is printed."""
        deadline = time.monotonic() + timeout
        grpc_target = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("tfn-serve printed no 'tfn-serve: ready' in %ds" % timeout)
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(timeout=10)
                raise RuntimeError(
                    "tfn-serve exited (code %s) before it was ready" % self.proc.returncode
                )
            m = re.search(r"tfn-serve: gRPC listening on (\S+):(\d+)\s*$", line)
            if m:
                host = m.group(1)
                if host in ("0.0.0.0", "[::]", "::"):
                    host = "127.0.0.1"
                grpc_target = "%s:%s" % (host, m.group(2))
            if re.search(r"tfn-serve: not ready", line):
                raise RuntimeError("tfn-serve started without its model: " + line)
            if re.search(r"tfn-serve: ready\s*$", line):
                if grpc_target is None:
                    raise RuntimeError("tfn-serve was ready but printed no gRPC listening line")
                return grpc_target

    def stop(self):
        """Kills the process if it still runs (the finally of the test)."""
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.reader.join(timeout=5)
        self.log.close()


# --- the checks --------------------------------------------------------------

def reference_output(run_tool, bundle, x, workdir, tag, signature="serving_default",
                     output="probabilities"):
    """`output` of `signature` from tfn-run on the same bundle and input."""
    in_path = os.path.join(workdir, "in_%s.npy" % tag)
    out_dir = os.path.join(workdir, "out_%s" % tag)
    os.makedirs(out_dir, exist_ok=True)
    np.save(in_path, x)
    run([run_tool, bundle, "--signature", signature, "--input", "x=" + in_path,
         "--output-dir", out_dir], "tfn-run")
    return np.load(os.path.join(out_dir, output + ".npy"))


# numpy's little-endian dtype of each OIP datatype; BF16, which numpy lacks,
# as its bit patterns.
NUMPY_DTYPES = {"BOOL": "?", "UINT8": "u1", "UINT16": "<u2", "UINT32": "<u4", "UINT64": "<u8",
                "INT8": "i1", "INT16": "<i2", "INT32": "<i4", "INT64": "<i8", "FP16": "<f2",
                "FP32": "<f4", "FP64": "<f8", "BF16": "<u2"}


def output_array(resp, index):
    t = resp.outputs[index]
    return np.frombuffer(resp.raw_output_contents[index],
                         dtype=NUMPY_DTYPES[t.datatype]).reshape(list(t.shape))


def outputs_by_name(resp):
    """{name: (datatype, shape, values as a list)} of a response's raw outputs."""
    return {o.name: (o.datatype, list(o.shape), output_array(resp, i).tolist())
            for i, o in enumerate(resp.outputs)}


def check_infer_response(r, name, resp, want, request_id):
    r.check(name + ": echoes model_name, model_version and id",
            resp.model_name == "mlp" and resp.model_version == "1" and resp.id == request_id,
            "got model_name=%r model_version=%r id=%r"
            % (resp.model_name, resp.model_version, resp.id))
    ok = (len(resp.outputs) == 1 and len(resp.raw_output_contents) == 1
          and resp.outputs[0].name == "probabilities" and resp.outputs[0].datatype == "FP32"
          and list(resp.outputs[0].shape) == list(want.shape))
    if not r.check(name + ": one raw output probabilities FP32%s" % list(want.shape), ok,
                   "got outputs %s with %d raw_output_contents"
                   % ([(o.name, o.datatype, list(o.shape)) for o in resp.outputs],
                      len(resp.raw_output_contents))):
        return
    got = output_array(resp, 0)
    r.check(name + ": matches tfn-run (rtol %g, atol %g)" % (RTOL, ATOL),
            np.allclose(got, want, rtol=RTOL, atol=ATOL),
            "max abs difference %g" % float(np.max(np.abs(got - want))))


def run_checks(r, pb, stub, x, want, x1, want1, want_class):
    t = RPC_TIMEOUT_S

    # Health and metadata.
    r.check("ServerLive is true", stub.ServerLive(pb.ServerLiveRequest(), timeout=t).live)
    r.check("ServerReady is true", stub.ServerReady(pb.ServerReadyRequest(), timeout=t).ready)
    md = stub.ServerMetadata(pb.ServerMetadataRequest(), timeout=t)
    r.check("ServerMetadata: name tfn, a version, binary_tensor_data",
            md.name == "tfn" and md.version != "" and "binary_tensor_data" in md.extensions,
            "got name=%r version=%r extensions=%s" % (md.name, md.version, list(md.extensions)))
    r.check("ModelReady(mlp) is true",
            stub.ModelReady(pb.ModelReadyRequest(name="mlp"), timeout=t).ready)
    r.check("ModelReady(mlp, version 1) is true",
            stub.ModelReady(pb.ModelReadyRequest(name="mlp", version="1"), timeout=t).ready)
    mm = stub.ModelMetadata(pb.ModelMetadataRequest(name="mlp"), timeout=t)
    inputs = [(i.name, i.datatype, list(i.shape)) for i in mm.inputs]
    outputs = [(o.name, o.datatype, list(o.shape)) for o in mm.outputs]
    r.check("ModelMetadata: mlp, version 1, platform tfn, x FP32[-1,784] -> "
            "probabilities FP32[-1,10]",
            mm.name == "mlp" and "1" in mm.versions and mm.platform == "tfn"
            and inputs == [("x", "FP32", [-1, 784])]
            and outputs == [("probabilities", "FP32", [-1, 10])],
            "got name=%r versions=%s platform=%r inputs=%s outputs=%s"
            % (mm.name, list(mm.versions), mm.platform, inputs, outputs))
    r.check("ModelMetadata properties name the signatures",
            mm.properties.get("default_signature") == "serving_default"
            and "classify" in mm.properties.get("signatures", "").split(","),
            "got %s" % dict(mm.properties))

    def infer_request(x, request_id="", raw=False, name="x", datatype="FP32", shape=None):
        req = pb.ModelInferRequest(model_name="mlp", id=request_id)
        tensor = req.inputs.add(name=name, datatype=datatype,
                                shape=list(x.shape) if shape is None else shape)
        if raw:
            req.raw_input_contents.append(np.ascontiguousarray(x).astype("<f4").tobytes())
        else:
            tensor.contents.fp32_contents.extend(x.reshape(-1).tolist())
        return req

    # Inference, typed and raw.
    resp = stub.ModelInfer(infer_request(x, "typed-1"), timeout=t)
    check_infer_response(r, "ModelInfer with fp32_contents", resp, want, "typed-1")
    resp = stub.ModelInfer(infer_request(x, "raw-1", raw=True), timeout=t)
    check_infer_response(r, "ModelInfer with raw_input_contents", resp, want, "raw-1")
    resp = stub.ModelInfer(infer_request(x1, "raw-b1", raw=True), timeout=t)
    check_infer_response(r, "ModelInfer with one row", resp, want1, "raw-b1")
    req = infer_request(x, "named", raw=True)
    req.parameters["signature_name"].string_param = "serving_default"
    req.outputs.add(name="probabilities")
    req.model_version = "1"
    resp = stub.ModelInfer(req, timeout=t)
    check_infer_response(r, "ModelInfer naming signature, version and output", resp, want,
                         "named")

    # The other signature of the bundle, by the signature_name parameter:
    # classify(x) -> class: int64[?].
    req = infer_request(x, "classify", raw=True)
    req.parameters["signature_name"].string_param = "classify"
    resp = stub.ModelInfer(req, timeout=t)
    got = [(o.name, o.datatype, list(o.shape)) for o in resp.outputs]
    if r.check("ModelInfer of signature classify: class INT64[%d]" % x.shape[0],
               got == [("class", "INT64", [x.shape[0]])] and len(resp.raw_output_contents) == 1,
               "got %s" % got):
        r.check("ModelInfer of signature classify matches tfn-run",
                np.array_equal(output_array(resp, 0), want_class),
                "got %s, tfn-run %s" % (output_array(resp, 0), want_class))

    # Errors a client can cause.
    INVALID = grpc.StatusCode.INVALID_ARGUMENT
    unknown = infer_request(x, raw=True)
    unknown.model_name = "no_such_model"
    r.expect_error("ModelInfer of an unknown model is NOT_FOUND",
                   lambda: stub.ModelInfer(unknown, timeout=t), grpc.StatusCode.NOT_FOUND,
                   ["no_such_model"])
    r.expect_error("ModelMetadata of an unknown model is NOT_FOUND",
                   lambda: stub.ModelMetadata(pb.ModelMetadataRequest(name="no_such_model"),
                                              timeout=t),
                   grpc.StatusCode.NOT_FOUND)
    r.expect_error("ModelReady of an unknown model is NOT_FOUND",
                   lambda: stub.ModelReady(pb.ModelReadyRequest(name="no_such_model"), timeout=t),
                   grpc.StatusCode.NOT_FOUND)

    wrong_dtype = pb.ModelInferRequest(model_name="mlp")
    tensor = wrong_dtype.inputs.add(name="x", datatype="INT32", shape=[2, 784])
    tensor.contents.int_contents.extend([1] * (2 * 784))
    r.expect_error("an INT32 x (the model takes FP32) is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(wrong_dtype, timeout=t), INVALID, ["'x'"])
    fp16 = pb.ModelInferRequest(model_name="mlp")
    fp16.inputs.add(name="x", datatype="FP16", shape=[2, 784])
    fp16.raw_input_contents.append(b"\0" * (2 * 784 * 2))
    r.expect_error("an FP16 x (the model takes FP32) is INVALID_ARGUMENT naming both",
                   lambda: stub.ModelInfer(fp16, timeout=t), INVALID,
                   ["'x'", "expected FP32 [?,784]", "got FP16 [2,784]"])
    text = pb.ModelInferRequest(model_name="mlp")
    text.inputs.add(name="x", datatype="BYTES", shape=[1]).contents.bytes_contents.append(b"a")
    r.expect_error("a BYTES x (no such tfn dtype) is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(text, timeout=t), INVALID,
                   ["'x'", "'BYTES' is an Open Inference Protocol datatype that tfn's bundles "
                           "do not have yet"])
    mismatched = pb.ModelInferRequest(model_name="mlp")
    tensor = mismatched.inputs.add(name="x", datatype="FP32", shape=[2, 784])
    tensor.contents.int64_contents.extend([1] * (2 * 784))
    r.expect_error("FP32 values in int64_contents are INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(mismatched, timeout=t), INVALID,
                   ["'x'", "fp32_contents", "int64_contents"])
    x_short = np.zeros((2, 783), np.float32)
    r.expect_error("x of shape [2,783] is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(infer_request(x_short), timeout=t), INVALID, ["'x'"])
    r.expect_error("x of shape [2,783] (raw) is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(infer_request(x_short, raw=True), timeout=t),
                   INVALID, ["'x'"])
    r.expect_error("an input named y (the model takes x) is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(infer_request(x, name="y"), timeout=t), INVALID,
                   ["'y'"])
    few = infer_request(x, raw=True)
    few.raw_input_contents[0] = few.raw_input_contents[0][:-4]
    r.expect_error("raw contents 4 bytes short are INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(few, timeout=t), INVALID,
                   ["'x'", str(x.size * 4), str(x.size * 4 - 4)])
    many = infer_request(x, raw=True)
    many.raw_input_contents.append(b"\0" * 16)
    r.expect_error("two raw contents for one input are INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(many, timeout=t), INVALID, ["raw_input_contents"])
    both = infer_request(x, raw=True)
    both.inputs[0].contents.fp32_contents.extend([0.0] * x.size)
    r.expect_error("contents and raw_input_contents together are INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(both, timeout=t), INVALID, ["'x'"])
    r.expect_error("a rank-9 shape is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(
                       infer_request(np.zeros([1] * 9, np.float32), raw=True), timeout=t),
                   INVALID, ["'x'", "rank"])
    r.expect_error("a negative dim is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(
                       infer_request(np.zeros((0, 784), np.float32), raw=True, shape=[-1, 784]),
                       timeout=t),
                   INVALID, ["'x'"])
    r.expect_error("a shape whose element count overflows is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(
                       infer_request(np.zeros((0, 784), np.float32), raw=True,
                                     shape=[1 << 40, 1 << 40]),
                       timeout=t),
                   INVALID, ["'x'"])
    bad_param = infer_request(x, raw=True)
    bad_param.parameters["signature_name"].int64_param = 3
    r.expect_error("a signature_name that is not a string is INVALID_ARGUMENT",
                   lambda: stub.ModelInfer(bad_param, timeout=t), INVALID, ["signature_name"])
    resp = stub.ModelInfer(infer_request(x, "after-errors", raw=True), timeout=t)
    check_infer_response(r, "ModelInfer after the errors", resp, want, "after-errors")

    # The message limit (--grpc-max-message-bytes): gRPC refuses a larger
    # request before the service sees it; one just under it is served.
    rows_over = MESSAGE_LIMIT // (784 * 4) + 1
    big = np.zeros((rows_over, 784), np.float32)
    big_req = infer_request(big, raw=True)
    r.check("the over-limit request is above the limit",
            big_req.ByteSize() > MESSAGE_LIMIT, "%d bytes" % big_req.ByteSize())
    r.expect_error("a request above --grpc-max-message-bytes is RESOURCE_EXHAUSTED",
                   lambda: stub.ModelInfer(big_req, timeout=t),
                   grpc.StatusCode.RESOURCE_EXHAUSTED)
    under = infer_request(np.zeros((rows_over - 2, 784), np.float32), raw=True)
    r.check("the under-limit request is under the limit",
            under.ByteSize() < MESSAGE_LIMIT, "%d bytes" % under.ByteSize())
    try:
        resp = stub.ModelInfer(under, timeout=t)
        r.check("a request just under the limit is served",
                list(resp.outputs[0].shape) == [rows_over - 2, 10],
                "output shape %s" % list(resp.outputs[0].shape))
    except grpc.RpcError as e:
        r.check("a request just under the limit is served", False,
                "%s: %s" % (e.code().name, e.details()))
    r.check("ServerLive after the over-limit request",
            stub.ServerLive(pb.ServerLiveRequest(), timeout=t).live)


# The dtypes model's serving_default: x: uint8[?,3], h: f16[?,3] ->
# doubled = f16(x * 2), quadrupled = uint8(h * 4) (truncated, saturated).
# h in FP16 is 0.5, 1.2998046875 (1.3 rounded), 63.75, 100, -1 and
# 0.0999755859375 (0.1 rounded); times 4: 2, 5.199, 255, 400, -4, 0.39990234375.
DTYPES_X = np.array([[0, 1, 255], [7, 128, 3]], np.uint8)
DTYPES_H = np.array([[0.5, 1.3, 63.75], [100, -1, 0.1]], np.float16)
DTYPES_DOUBLED = [[0.0, 2.0, 510.0], [14.0, 256.0, 6.0]]
DTYPES_QUADRUPLED = [[2, 5, 255], [255, 0, 0]]
# The narrow signature's inputs at their limits, by contents field; each
# output is its input twice.
NARROW = [("i8", "INT8", "int_contents", [-128, 127]),
          ("i16", "INT16", "int_contents", [-32768, 32767]),
          ("u8", "UINT8", "uint_contents", [0, 255]),
          ("u16", "UINT16", "uint_contents", [65535]),
          ("u32", "UINT32", "uint_contents", [4294967295]),
          ("u64", "UINT64", "uint64_contents", [18446744073709551615])]


def run_dtype_checks(r, pb, stub):
    """The dtypes model: every datatype tfn has beyond mlp's, typed and raw."""
    t = RPC_TIMEOUT_S
    INVALID = grpc.StatusCode.INVALID_ARGUMENT
    mm = stub.ModelMetadata(pb.ModelMetadataRequest(name="dtypes"), timeout=t)
    inputs = [(i.name, i.datatype, list(i.shape)) for i in mm.inputs]
    outputs = [(o.name, o.datatype, list(o.shape)) for o in mm.outputs]
    r.check("ModelMetadata(dtypes): UINT8 and FP16 by their OIP names",
            inputs == [("x", "UINT8", [-1, 3]), ("h", "FP16", [-1, 3])]
            and outputs == [("doubled", "FP16", [-1, 3]), ("quadrupled", "UINT8", [-1, 3])],
            "got inputs=%s outputs=%s" % (inputs, outputs))

    def dtypes_request(signature=None):
        req = pb.ModelInferRequest(model_name="dtypes")
        if signature:
            req.parameters["signature_name"].string_param = signature
        return req

    # UINT8 and FP16 in raw contents (FP16 has no typed field).
    req = dtypes_request()
    req.inputs.add(name="x", datatype="UINT8", shape=[2, 3])
    req.inputs.add(name="h", datatype="FP16", shape=[2, 3])
    req.raw_input_contents.append(DTYPES_X.tobytes())
    req.raw_input_contents.append(DTYPES_H.astype("<f2").tobytes())
    got = outputs_by_name(stub.ModelInfer(req, timeout=t))
    r.check("ModelInfer(dtypes) with raw UINT8 and FP16: as hand-computed",
            got == {"doubled": ("FP16", [2, 3], DTYPES_DOUBLED),
                    "quadrupled": ("UINT8", [2, 3], DTYPES_QUADRUPLED)}, "got %s" % got)

    typed = dtypes_request()
    typed.inputs.add(name="x", datatype="UINT8", shape=[2, 3]).contents.uint_contents.extend(
        DTYPES_X.reshape(-1).tolist())
    h = typed.inputs.add(name="h", datatype="FP16", shape=[2, 3])
    h.contents.fp32_contents.extend(DTYPES_H.astype(np.float32).reshape(-1).tolist())
    r.expect_error("FP16 in typed contents is INVALID_ARGUMENT naming raw_input_contents",
                   lambda: stub.ModelInfer(typed, timeout=t), INVALID,
                   ["'h'", "FP16 has no typed contents field", "raw_input_contents"])

    # Every narrow integer in its typed field, then the same as raw bytes.
    want = {name + "_twice": (datatype, [2 * len(values)], values * 2)
            for name, datatype, _, values in NARROW}
    req = dtypes_request("narrow")
    for name, datatype, field, values in NARROW:
        getattr(req.inputs.add(name=name, datatype=datatype, shape=[len(values)]).contents,
                field).extend(values)
    got = outputs_by_name(stub.ModelInfer(req, timeout=t))
    r.check("ModelInfer(narrow) with int_contents, uint_contents, uint64_contents at the "
            "datatypes' limits", got == want, "got %s" % got)
    req = dtypes_request("narrow")
    for name, datatype, _, values in NARROW:
        req.inputs.add(name=name, datatype=datatype, shape=[len(values)])
        req.raw_input_contents.append(np.array(values, NUMPY_DTYPES[datatype]).tobytes())
    got = outputs_by_name(stub.ModelInfer(req, timeout=t))
    r.check("ModelInfer(narrow) with raw contents", got == want, "got %s" % got)

    def one_input(name, datatype, field, values, signature="narrow"):
        req = dtypes_request(signature)
        getattr(req.inputs.add(name=name, datatype=datatype, shape=[len(values)]).contents,
                field).extend(values)
        return req

    for name, datatype, field, values, message in [
            ("i8", "INT8", "int_contents", [0, 128],
             "contents.int_contents[1] is 128, outside INT8's range [-128, 127]"),
            ("i16", "INT16", "int_contents", [-32769],
             "contents.int_contents[0] is -32769, outside INT16's range [-32768, 32767]"),
            ("u8", "UINT8", "uint_contents", [256],
             "contents.uint_contents[0] is 256, outside UINT8's range [0, 255]"),
            ("u16", "UINT16", "uint_contents", [1, 2, 65536],
             "contents.uint_contents[2] is 65536, outside UINT16's range [0, 65535]")]:
        req = one_input(name, datatype, field, values)
        r.expect_error("%s %s in %s is INVALID_ARGUMENT naming the range"
                       % (datatype, values[-1], field),
                       lambda: stub.ModelInfer(req, timeout=t), INVALID, ["'%s'" % name, message])
    wrong_field = one_input("u8", "UINT8", "int_contents", [1, 2])
    r.expect_error("UINT8 values in int_contents are INVALID_ARGUMENT naming uint_contents",
                   lambda: stub.ModelInfer(wrong_field, timeout=t), INVALID,
                   ["'u8'", "UINT8 values go in contents.uint_contents", "int_contents"])

    # BF16: raw contents only, its bit patterns.
    req = dtypes_request("bf16")
    req.inputs.add(name="g", datatype="BF16", shape=[3])
    req.raw_input_contents.append(np.array([0x3dcd, 0xc020, 0x7f7f], "<u2").tobytes())
    got = outputs_by_name(stub.ModelInfer(req, timeout=t))
    r.check("ModelInfer(bf16) with raw BF16: its bit patterns back twice",
            got == {"g_twice": ("BF16", [6], [0x3dcd, 0xc020, 0x7f7f] * 2)}, "got %s" % got)
    no_data = dtypes_request("bf16")
    no_data.inputs.add(name="g", datatype="BF16", shape=[3])
    r.expect_error("BF16 without raw contents is INVALID_ARGUMENT naming raw_input_contents",
                   lambda: stub.ModelInfer(no_data, timeout=t), INVALID,
                   ["'g'", "BF16 has no typed contents field", "2 per element",
                    "raw_input_contents"])

    # Raw BOOL elements are bytes 0 or 1: another byte is refused as it is decoded.
    bad_bool = dtypes_request()
    bad_bool.inputs.add(name="x", datatype="BOOL", shape=[3])
    bad_bool.raw_input_contents.append(b"\x00\x02\x01")
    r.expect_error("a raw BOOL byte other than 0 or 1 is INVALID_ARGUMENT naming it",
                   lambda: stub.ModelInfer(bad_bool, timeout=t), INVALID,
                   ["'x'", "raw_input_contents[0]", "BOOL element 1 is the byte 2"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", required=True, help="the tfn-serve binary")
    parser.add_argument("--export", required=True, help="the tfn-export binary")
    parser.add_argument("--run", help="the tfn-run binary (default: next to tfn-export)")
    parser.add_argument("--dtype-bundle-tool", required=True,
                        help="make_dtype_bundle (serve_make_dtype_bundle in the build)")
    parser.add_argument("--workdir", required=True, help="a scratch directory")
    args = parser.parse_args()
    workdir = os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    run_tool = args.run or os.path.join(os.path.dirname(os.path.abspath(args.export)), "tfn-run")

    r = Results()
    server = None
    channel = None
    try:
        pb, stub_class, how = generate_stubs(os.path.join(workdir, "stubs"))
        r.check("stubs generated from %s (%s)" % (PROTO, how), True)

        repo = os.path.join(workdir, "repo")
        shutil.rmtree(repo, ignore_errors=True)
        os.makedirs(os.path.join(repo, "mlp", "1"))
        bundle = os.path.join(repo, "mlp", "1", "model.tfn")
        run([args.export, "mlp", "-o", bundle], "tfn-export")
        os.makedirs(os.path.join(repo, "dtypes", "1"))
        run([args.dtype_bundle_tool, os.path.join(repo, "dtypes", "1", "model.tfn")],
            "make_dtype_bundle")

        rng = np.random.default_rng(0)
        x = rng.standard_normal((3, 784)).astype(np.float32)
        x1 = rng.standard_normal((1, 784)).astype(np.float32)
        want = reference_output(run_tool, bundle, x, workdir, "3")
        want1 = reference_output(run_tool, bundle, x1, workdir, "1")
        want_class = reference_output(run_tool, bundle, x, workdir, "classify", "classify",
                                      "class")

        log_path = os.path.join(workdir, "tfn-serve.log")
        server = Server([args.serve, "--model-repository", repo, "--http-port", "0",
                         "--grpc-port", "0", "--grpc-max-message-bytes", str(MESSAGE_LIMIT)],
                        log_path)
        target = server.wait_ready(STARTUP_TIMEOUT_S)
        r.check("tfn-serve is ready, gRPC on " + target, True)

        # Local connections only: no proxy from the environment.
        channel = grpc.insecure_channel(target, options=[
            ("grpc.enable_http_proxy", 0),
            ("grpc.max_send_message_length", 64 << 20),
            ("grpc.max_receive_message_length", 64 << 20),
        ])
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT_S)
        run_checks(r, pb, stub_class(channel), x, want, x1, want1, want_class)
        run_dtype_checks(r, pb, stub_class(channel))
        channel.close()
        channel = None

        server.proc.send_signal(signal.SIGTERM)
        try:
            code = server.proc.wait(timeout=EXIT_TIMEOUT_S)
            r.check("SIGTERM: tfn-serve exits 0", code == 0, "exit code %d" % code)
        except subprocess.TimeoutExpired:
            r.check("SIGTERM: tfn-serve exits 0", False,
                    "still running %ds after SIGTERM" % EXIT_TIMEOUT_S)
    except Exception as e:  # a broken step ends the run as a failure, not a traceback
        r.check("the test ran to the end", False, "%s: %s" % (type(e).__name__, e))
    finally:
        if channel is not None:
            channel.close()
        if server is not None:
            server.stop()
            if r.failed:
                with open(server.log.name, errors="replace") as f:
                    tail = f.readlines()[-30:]
                print("--- tfn-serve stderr (last %d lines) ---" % len(tail))
                sys.stdout.write("".join(tail))

    print("%d passed, %d failed" % (r.passed, r.failed))
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
