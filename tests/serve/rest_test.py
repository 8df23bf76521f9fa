#!/usr/bin/env python3
"""tfn-serve's REST front end driven by curl and wrk, clients tfn did not write.

Starts tfn-serve on loopback on a temporary repository holding the built-in
mlp model and checks: the OIP v2 endpoints (health, metadata, infer in JSON
and with the binary tensor data extension), TF Serving's v1 status and
predict, /metrics, the errors (bad JSON, wrong name/dtype/shape, a body over
the limit, unknown model/version/endpoint; the server keeps serving), 64
clients connecting at once, a hot swap under load from wrk with no failed request, and SIGTERM with requests
in flight (each answered, exit 0, each in the access log).

The repository also holds "dtypes" (tests/serve/dtype_model.h, written by
make_dtype_bundle): UINT8 and FP16 inputs and outputs, every narrow integer
and BF16, in JSON and binary, with their range errors.

Outputs of mlp are compared with tfn-run on the same bundle and inputs
(max |diff| <= 1e-5 relative to max |expected|; both run the same kernels);
those of dtypes with values worked out by hand.

usage: rest_test.py --serve tfn-serve --export tfn-export --run tfn-run
                    --dtype-bundle-tool make_dtype_bundle --workdir DIR
"""
import argparse
import http.client
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

import numpy as np

RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)[:1500]), flush=True)


class Server:
    """A tfn-serve process; reads its stderr in a thread for the port lines."""

    def __init__(self, serve, args):
        self.proc = subprocess.Popen([serve] + args, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.http_port = None
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.ready.wait(60):
            self.stop()
            raise RuntimeError("tfn-serve did not become ready in 60 s:\n" + "".join(self.lines))

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append(line)
            m = re.search(r"HTTP listening on .*:(\d+)$", line.strip())
            if m:
                self.http_port = int(m.group(1))
            if line.strip() == "tfn-serve: ready":
                self.ready.set()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.http_port, path)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def curl(url, data=None, headers=(), method=None, binary=False):
    """Returns (status, body bytes, response headers dict) from curl."""
    cmd = ["curl", "-s", "-S", "--max-time", "30", "-D", "-", "-o", "-"]
    if method:
        cmd += ["-X", method]
    for h in headers:
        cmd += ["-H", h]
    if data is not None:
        cmd += ["--data-binary", "@-"]
    out = subprocess.run(cmd + [url], input=data if isinstance(data, bytes) else
                         (data.encode() if data is not None else None),
                         capture_output=True, timeout=60)
    raw = out.stdout
    # Skip "100 Continue" blocks, then split the head from the body.
    while raw.startswith(b"HTTP/1.1 100"):
        raw = raw.split(b"\r\n\r\n", 1)[1]
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and lines[0].startswith("HTTP/") else 0
    hdrs = {}
    for l in lines[1:]:
        k, _, v = l.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return status, body, hdrs


def get_json(server, path):
    status, body, _ = curl(server.url(path))
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"unparsed": body[:200].decode("latin-1")}


def post_json(server, path, obj, raw=None):
    status, body, _ = curl(server.url(path), data=raw if raw is not None else json.dumps(obj),
                           headers=["Content-Type: application/json"])
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"unparsed": body[:200].decode("latin-1")}


def close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and float(np.max(np.abs(a - b))) <= 1e-5 * max(1.0, float(np.max(np.abs(b))))


def error_names(status, body, code, *fragments):
    msg = body.get("error", "") if isinstance(body, dict) else ""
    return status == code and all(f in msg for f in fragments), (status, body)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--serve", required=True)
    p.add_argument("--export", required=True)
    p.add_argument("--run", required=True)
    p.add_argument("--dtype-bundle-tool", required=True,
                   help="make_dtype_bundle (serve_make_dtype_bundle in the build)")
    p.add_argument("--workdir", required=True)
    a = p.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    repo = os.path.join(a.workdir, "repo")
    os.makedirs(os.path.join(repo, "mlp", "1"))
    bundle = os.path.join(repo, "mlp", "1", "model.tfn")
    subprocess.run([a.export, "mlp", "-o", bundle], check=True, capture_output=True, timeout=300)
    os.makedirs(os.path.join(repo, "dtypes", "1"))
    subprocess.run([a.dtype_bundle_tool, os.path.join(repo, "dtypes", "1", "model.tfn")],
                   check=True, capture_output=True, timeout=300)

    # The expected outputs: tfn-run on the same bundle and inputs.
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 784)).astype(np.float32)
    np.save(os.path.join(a.workdir, "x.npy"), x)
    subprocess.run([a.run, bundle, "--input", "x=" + os.path.join(a.workdir, "x.npy"),
                    "--output-dir", a.workdir], check=True, capture_output=True, timeout=120)
    want = np.load(os.path.join(a.workdir, "probabilities.npy"))

    server = Server(a.serve, [repo, "--http-port", "0", "--grpc-port", "0", "--poll-seconds", "0",
                              "--max-request-bytes", "200000"])
    try:
        run_endpoints(server, x, want)
        run_dtypes(server)
        run_errors(server, x)
        run_connect_burst(server, x)
        run_hot_swap(server, repo, bundle, x)
    finally:
        server.stop()
    run_sigterm(a, repo, x)
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]))
    return 1 if RESULTS["failed"] else 0


def infer_body(x, **extra):
    body = {"id": "req-7", "inputs": [{"name": "x", "shape": list(x.shape), "datatype": "FP32",
                                        "data": x.tolist()}]}
    body.update(extra)
    return body


def run_endpoints(server, x, want):
    s, b = get_json(server, "/v2/health/live")
    check("live", s == 200 and b == {"live": True}, (s, b))
    s, b = get_json(server, "/v2/health/ready")
    check("ready", s == 200 and b == {"ready": True}, (s, b))
    s, b = get_json(server, "/v2")
    check("server metadata", s == 200 and b.get("name") == "tfn" and
          "binary_tensor_data" in b.get("extensions", []), (s, b))
    s, b = get_json(server, "/v2/models/mlp")
    ok = s == 200 and b.get("name") == "mlp" and b.get("versions") == ["1"] and \
        b.get("inputs") == [{"name": "x", "datatype": "FP32", "shape": [-1, 784]}] and \
        b.get("outputs", [{}])[0].get("shape") == [-1, 10]
    check("model metadata", ok, (s, b))
    s, b = get_json(server, "/v2/models/mlp/versions/1")
    check("model metadata of a version", s == 200 and b.get("name") == "mlp", (s, b))
    s, b = get_json(server, "/v2/models/mlp/ready")
    check("model ready", s == 200 and b.get("ready") is True, (s, b))
    s, b = get_json(server, "/v2/models/mlp/versions/1/ready")
    check("model version ready", s == 200 and b.get("ready") is True, (s, b))

    # Infer in JSON, nested data.
    s, b = post_json(server, "/v2/models/mlp/infer", infer_body(x))
    out = (b.get("outputs") or [{}])[0]
    ok = s == 200 and b.get("id") == "req-7" and b.get("model_name") == "mlp" and \
        out.get("datatype") == "FP32" and out.get("shape") == [2, 10] and \
        close(np.array(out.get("data", []), np.float32).reshape(2, 10), want)
    check("infer JSON (nested data) equals tfn-run", ok, (s, str(b)[:300]))
    # Flat data and a version in the path.
    body = infer_body(x)
    body["inputs"][0]["data"] = x.reshape(-1).tolist()
    s, b = post_json(server, "/v2/models/mlp/versions/1/infer", body)
    out = (b.get("outputs") or [{}])[0]
    check("infer JSON (flat data, versioned path)", s == 200 and
          close(np.array(out.get("data", []), np.float32).reshape(2, 10), want), (s, str(b)[:300]))

    # Binary tensor data extension: binary input, binary output.
    header = json.dumps({"inputs": [{"name": "x", "shape": [2, 784], "datatype": "FP32",
                                     "parameters": {"binary_data_size": x.nbytes}}],
                         "parameters": {"binary_data_output": True}}).encode()
    s, body, hdrs = curl(server.url("/v2/models/mlp/infer"), data=header + x.tobytes(),
                         headers=["Content-Type: application/octet-stream",
                                  "Inference-Header-Content-Length: %d" % len(header)])
    ok = s == 200 and "inference-header-content-length" in hdrs
    if ok:
        n = int(hdrs["inference-header-content-length"])
        meta = json.loads(body[:n])
        o = meta["outputs"][0]
        size = o.get("parameters", {}).get("binary_data_size")
        got = np.frombuffer(body[n:n + size], np.float32).reshape(o["shape"])
        ok = size == 80 and "data" not in o and close(got, want)
    check("infer with binary input and output (Triton's binary extension)", ok, (s, body[:200]))

    # TF Serving's REST API.
    s, b = get_json(server, "/v1/models/mlp")
    vs = (b.get("model_version_status") or [{}])[0]
    check("v1 model status", s == 200 and vs.get("version") == "1" and
          vs.get("state") == "AVAILABLE", (s, b))
    s, b = post_json(server, "/v1/models/mlp:predict", {"instances": x.tolist()})
    check("v1 predict (row format)", s == 200 and
          close(np.array(b.get("predictions", []), np.float32), want), (s, str(b)[:300]))
    s, b = post_json(server, "/v1/models/mlp/versions/1:predict", {"inputs": {"x": x.tolist()}})
    check("v1 predict (columnar, versioned path)", s == 200 and
          close(np.array(b.get("outputs", []), np.float32), want), (s, str(b)[:300]))

    status, body, hdrs = curl(server.url("/metrics"))
    text = body.decode()
    check("metrics", status == 200 and "text/plain" in hdrs.get("content-type", "") and
          re.search(r'tfn_requests_total\{model="mlp",version="1",signature="serving_default",'
                    r'protocol="rest"\} [1-9]', text) is not None and
          'tfn_model_loaded{model="mlp",version="1"} 1' in text, text[:500])


# The dtypes model's serving_default: x: uint8[?,3], h: f16[?,3] ->
# doubled = f16(x * 2), quadrupled = uint8(h * 4) (truncated, saturated).
# h in FP16 is 0.5, 1.2998046875 (1.3 rounded), 63.75, 100, -1 and
# 0.0999755859375 (0.1 rounded); times 4: 2, 5.199, 255, 400, -4, 0.39990234375.
DTYPES_X = [[0, 1, 255], [7, 128, 3]]
DTYPES_H = [[0.5, 1.3, 63.75], [100, -1, 0.1]]
DTYPES_DOUBLED = [0.0, 2.0, 510.0, 14.0, 256.0, 6.0]
DTYPES_QUADRUPLED = [2, 5, 255, 255, 0, 0]


def dtypes_body(x_datatype="UINT8", x=DTYPES_X, h=DTYPES_H):
    return {"inputs": [{"name": "x", "shape": [2, 3], "datatype": x_datatype, "data": x},
                       {"name": "h", "shape": [2, 3], "datatype": "FP16", "data": h}]}


def binary_infer(server, path, inputs, request_params=None):
    """inputs: (name, datatype, numpy array) sent in binary; returns (status, outputs by
    name as (datatype, shape, raw bytes or JSON data), error)."""
    header = {"inputs": [{"name": n, "shape": list(a.shape), "datatype": d,
                          "parameters": {"binary_data_size": a.nbytes}} for n, d, a in inputs],
              "parameters": dict(request_params or {}, binary_data_output=True)}
    head = json.dumps(header).encode()
    s, body, hdrs = curl(server.url(path), data=head + b"".join(a.tobytes() for _, _, a in inputs),
                         headers=["Content-Type: application/octet-stream",
                                  "Inference-Header-Content-Length: %d" % len(head)])
    if s != 200 or "inference-header-content-length" not in hdrs:
        return s, {}, body[:300]
    n = int(hdrs["inference-header-content-length"])
    meta = json.loads(body[:n])
    outputs, at = {}, n
    for o in meta["outputs"]:
        size = o.get("parameters", {}).get("binary_data_size", 0)
        outputs[o["name"]] = (o["datatype"], o["shape"], body[at:at + size])
        at += size
    return s, outputs, None


def run_dtypes(server):
    """UINT8, FP16, BF16 and the narrow integers, against values worked out by hand."""
    s, b = get_json(server, "/v2/models/dtypes")
    check("dtypes metadata: UINT8 and FP16 by their OIP names", s == 200 and
          b.get("inputs") == [{"name": "x", "datatype": "UINT8", "shape": [-1, 3]},
                              {"name": "h", "datatype": "FP16", "shape": [-1, 3]}] and
          b.get("outputs") == [{"name": "doubled", "datatype": "FP16", "shape": [-1, 3]},
                               {"name": "quadrupled", "datatype": "UINT8", "shape": [-1, 3]}],
          (s, b))
    narrow = [sig for sig in b.get("signatures", []) if sig.get("name") == "narrow"]
    check("dtypes metadata: the narrow integers by their OIP names",
          len(narrow) == 1 and [i["datatype"] for i in narrow[0]["inputs"]] ==
          ["INT8", "INT16", "UINT8", "UINT16", "UINT32", "UINT64"], narrow)

    s, b = post_json(server, "/v2/models/dtypes/infer", dtypes_body())
    outs = {o.get("name"): o for o in b.get("outputs", [])}
    check("UINT8 and FP16 in JSON: FP16 and UINT8 out, as hand-computed",
          s == 200 and outs.get("doubled") == {"name": "doubled", "datatype": "FP16",
                                               "shape": [2, 3], "data": DTYPES_DOUBLED} and
          outs.get("quadrupled") == {"name": "quadrupled", "datatype": "UINT8", "shape": [2, 3],
                                     "data": DTYPES_QUADRUPLED}, (s, b))

    x = np.array(DTYPES_X, np.uint8)
    h = np.array(DTYPES_H, np.float16)
    s, outs, err = binary_infer(server, "/v2/models/dtypes/infer",
                                [("x", "UINT8", x), ("h", "FP16", h)])
    ok = s == 200 and outs.get("doubled", ("",))[0] == "FP16" and \
        outs.get("quadrupled", ("",))[0] == "UINT8"
    if ok:
        doubled = np.frombuffer(outs["doubled"][2], "<f2")
        quadrupled = np.frombuffer(outs["quadrupled"][2], np.uint8)
        ok = doubled.tolist() == DTYPES_DOUBLED and quadrupled.tolist() == DTYPES_QUADRUPLED
    check("UINT8 and FP16 in binary (2-byte little-endian FP16): as hand-computed", ok,
          (s, err, outs))

    # BF16 must go in binary over HTTP (Triton): its bit patterns as uint16.
    g = np.array([0x3dcd, 0xc020, 0x7f7f], "<u2")  # 0.10009765625, -2.5, the largest BF16
    s, outs, err = binary_infer(server, "/v2/models/dtypes/infer", [("g", "BF16", g)],
                                {"signature_name": "bf16"})
    got = outs.get("g_twice")
    check("BF16 in binary: its bytes back twice", s == 200 and got is not None and
          got[0] == "BF16" and got[1] == [6] and
          np.frombuffer(got[2], "<u2").tolist() == [0x3dcd, 0xc020, 0x7f7f] * 2, (s, err, outs))
    s, b = post_json(server, "/v2/models/dtypes/infer", {
        "parameters": {"signature_name": "bf16"},
        "inputs": [{"name": "g", "shape": [2], "datatype": "BF16", "data": [0.1, -2.5]}]})
    # Written with the float's shortest digits (0.100097656), which read back
    # as FP32 (or BF16) give the value exactly.
    data = b.get("outputs", [{}])[0].get("data", [])
    check("BF16 in JSON: numbers rounded to nearest even, written as the float",
          s == 200 and np.array(data, np.float32).tolist() ==
          [0.10009765625, -2.5, 0.10009765625, -2.5], (s, b))

    s, b = post_json(server, "/v2/models/dtypes/infer", {
        "parameters": {"signature_name": "narrow"},
        "inputs": [{"name": "i8", "shape": [2], "datatype": "INT8", "data": [-128, 127]},
                   {"name": "i16", "shape": [1], "datatype": "INT16", "data": [-32768]},
                   {"name": "u8", "shape": [1], "datatype": "UINT8", "data": [255]},
                   {"name": "u16", "shape": [1], "datatype": "UINT16", "data": [65535]},
                   {"name": "u32", "shape": [1], "datatype": "UINT32", "data": [4294967295]},
                   {"name": "u64", "shape": [1], "datatype": "UINT64",
                    "data": [18446744073709551615]}]})
    outs = {o.get("name"): (o.get("datatype"), o.get("data")) for o in b.get("outputs", [])}
    check("every narrow integer in JSON at its limits", s == 200 and outs == {
        "i8_twice": ("INT8", [-128, 127, -128, 127]), "i16_twice": ("INT16", [-32768, -32768]),
        "u8_twice": ("UINT8", [255, 255]), "u16_twice": ("UINT16", [65535, 65535]),
        "u32_twice": ("UINT32", [4294967295, 4294967295]),
        "u64_twice": ("UINT64", [18446744073709551615, 18446744073709551615])}, (s, b))

    # TF Serving's predict: types from the signature.
    s, b = post_json(server, "/v1/models/dtypes:predict",
                     {"instances": [{"x": DTYPES_X[0], "h": DTYPES_H[0]}]})
    check("v1 predict with UINT8 and FP16 inputs", s == 200 and b.get("predictions") ==
          [{"doubled": DTYPES_DOUBLED[:3], "quadrupled": DTYPES_QUADRUPLED[:3]}], (s, b))

    # Range errors: 400 naming the input, the element and the range.
    s, b = post_json(server, "/v2/models/dtypes/infer", dtypes_body(x=[[0, 1, 256], [0, 0, 0]]))
    check("UINT8 256 -> 400 naming UINT8's range",
          *error_names(s, b, 400, "input 'x'", "element 2",
                       "an integer in UINT8's range [0, 255] but is the integer 256"))
    s, b = post_json(server, "/v2/models/dtypes/infer", dtypes_body(h=[[0, 0, 0], [0, 65520, 0]]))
    check("FP16 65520 (rounds to infinity) -> 400 naming FP16's range",
          *error_names(s, b, 400, "input 'h'", "element 4",
                       "a number in FP16's range (magnitude below 65520; the largest FP16 is "
                       "65504)"))
    s, b = post_json(server, "/v2/models/dtypes/infer", {
        "parameters": {"signature_name": "narrow"},
        "inputs": [{"name": "i8", "shape": [1], "datatype": "INT8", "data": [-129]}]})
    check("INT8 -129 -> 400 naming INT8's range",
          *error_names(s, b, 400, "input 'i8'", "an integer in INT8's range [-128, 127]"))
    s, b = post_json(server, "/v1/models/dtypes:predict",
                     {"inputs": {"x": [[0, 0, -1]], "h": [[0, 0, 0]]}})
    check("v1 predict: UINT8 -1 -> 400 naming UINT8's range",
          *error_names(s, b, 400, "input 'x'", "UINT8's range [0, 255]"))
    s, b = post_json(server, "/v2/models/dtypes/infer", dtypes_body(x_datatype="BYTES"))
    check("BYTES -> 400 saying tfn does not have it",
          *error_names(s, b, 400, "'BYTES' is an Open Inference Protocol datatype that tfn's "
                       "bundles do not have yet"))
    s, b = post_json(server, "/v2/models/dtypes/infer",
                     dtypes_body(x_datatype="INT8", x=[[0, 1, 2], [3, 4, 5]]))
    check("INT8 for a UINT8 input -> 400 naming the spec",
          *error_names(s, b, 400, "'x'", "expected UINT8 [?,3]", "got INT8 [2,3]"))


def run_errors(server, x):
    s, b = post_json(server, "/v2/models/mlp/infer", None, raw="{\"inputs\": [")
    check("bad JSON -> 400", s == 400 and "error" in b, (s, b))
    # A body that does not decode still counts as a failed request of the model.
    _, metrics, _ = curl(server.url("/metrics"))
    metrics = metrics.decode()
    check("bad JSON counted in tfn_request_failures_total",
          re.search(r'tfn_request_failures_total\{model="mlp",version="\d+",signature="",'
                    r'protocol="rest",code="400"\} [1-9]', metrics) is not None, metrics[-2000:])
    body = infer_body(x)
    body["inputs"][0]["datatype"] = "INT32"
    body["inputs"][0]["data"] = [[0] * 784] * 2
    s, b = post_json(server, "/v2/models/mlp/infer", body)
    check("wrong dtype -> 400 naming the input and spec", *error_names(s, b, 400, "'x'", "FP32"))
    body = infer_body(x[:, :700])
    s, b = post_json(server, "/v2/models/mlp/infer", body)
    check("wrong shape -> 400 naming the input and spec",
          *error_names(s, b, 400, "'x'", "[?,784]", "[2,700]"))
    body = infer_body(x)
    body["inputs"][0]["name"] = "images"
    s, b = post_json(server, "/v2/models/mlp/infer", body)
    check("unknown input name -> 400", *error_names(s, b, 400, "'images'", "'x'"))
    body = infer_body(x)
    body["inputs"][0]["shape"] = [3, 784]
    s, b = post_json(server, "/v2/models/mlp/infer", body)
    check("shape and data disagree -> 400", *error_names(s, b, 400, "'x'"))
    s, b = post_json(server, "/v2/models/nope/infer", infer_body(x))
    check("unknown model -> 404", *error_names(s, b, 404, "'nope'", "'mlp'"))
    s, b = post_json(server, "/v2/models/mlp/versions/9/infer", infer_body(x))
    check("unknown version -> 404", *error_names(s, b, 404, "'9'"))
    s, b = get_json(server, "/v2/models/nope")
    check("metadata of an unknown model -> 404", s == 404 and "error" in b, (s, b))
    big = infer_body(np.zeros((80, 784), np.float32))  # about 310 KB of JSON
    s, b = post_json(server, "/v2/models/mlp/infer", big)
    check("body over --max-request-bytes -> 413", s == 413 and "limit" in b.get("error", ""), (s, b))
    s, b = get_json(server, "/v3/nothing")
    check("unknown endpoint -> 404 with a JSON error", s == 404 and "error" in b, (s, b))
    s, b = post_json(server, "/v1/models/mlp:predict", {"instances": [[1, 2]]})
    check("v1 predict with a wrong shape -> 400", s == 400 and "error" in b, (s, b))
    s, b = post_json(server, "/v2/models/mlp/infer", infer_body(x))
    check("the server still serves after the errors", s == 200, (s, b))


def run_connect_burst(server, x):
    """64 clients connecting at the same moment are all served (a listen
    backlog of 5, cpp-httplib's own, reset about half of them)."""
    body = json.dumps(infer_body(x[:1]))
    go = threading.Barrier(64, timeout=30)
    results = []

    def one():
        try:
            go.wait()
            conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=60)
            conn.request("POST", "/v2/models/mlp/infer", body=body,
                         headers={"Content-Type": "application/json"})
            results.append(conn.getresponse().status)
        except Exception as e:  # noqa: BLE001 - any failure is a failed request
            results.append(repr(e))

    threads = [threading.Thread(target=one) for _ in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    bad = [r for r in results if r != 200]
    check("64 clients connecting at once are all answered 200", len(results) == 64 and not bad,
          bad[:5])


def wrk_script(path, x):
    body = json.dumps(infer_body(x[:1]))
    with open(path, "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        f.write("wrk.body = [==[%s]==]\n" % body)


def run_hot_swap(server, repo, bundle, x):
    """wrk drives infer for 4 s; a new version lands and SIGHUP swaps it in."""
    script = os.path.join(os.path.dirname(repo), "infer.lua")
    wrk_script(script, x)
    wrk = subprocess.Popen(["wrk", "-t2", "-c8", "-d4s", "-s", script,
                            server.url("/v2/models/mlp/infer")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    time.sleep(1.0)
    os.makedirs(os.path.join(repo, "mlp", "2"))
    tmp = os.path.join(repo, "mlp", "2", ".model.tfn.tmp")
    shutil.copyfile(bundle, tmp)
    os.rename(tmp, os.path.join(repo, "mlp", "2", "model.tfn"))
    server.proc.send_signal(signal.SIGHUP)
    out, _ = wrk.communicate(timeout=60)
    m = re.search(r"(\d+) requests in", out)
    requests = int(m.group(1)) if m else 0
    failures = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: .*", out)
    check("hot swap under load: wrk saw no failed request",
          requests > 100 and failures is None and errors is None, out)
    s, b = get_json(server, "/v2/models/mlp")
    check("hot swap: version 2 serves, version 1 unloaded", s == 200 and b.get("versions") == ["2"],
          (s, b, "".join(server.lines[-5:])))


def run_sigterm(a, repo, x):
    """Requests sent and waiting for their batch when SIGTERM comes are all answered."""
    server = Server(a.serve, [repo, "--http-port", "0", "--no-grpc", "--poll-seconds", "0",
                              "--max-batch-size", "64", "--max-queue-delay-us", "1000000",
                              "--drain-timeout", "20", "--access-log"])
    try:
        body = json.dumps(infer_body(x[:1]))
        results = []
        sent = threading.Barrier(9, timeout=30)

        def one():
            status = 0
            try:
                conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
                conn.request("POST", "/v2/models/mlp/infer", body=body,
                             headers={"Content-Type": "application/json"})
                sent.wait()
                status = conn.getresponse().status
            except Exception as e:  # noqa: BLE001 - any failure is a failed request
                status = repr(e)
            results.append(status)

        threads = [threading.Thread(target=one) for _ in range(8)]
        for t in threads:
            t.start()
        sent.wait()  # all 8 requests are written; the batch waits up to 1 s
        time.sleep(0.2)  # the server's accept thread takes them off the listen queue
        start = time.time()
        server.proc.send_signal(signal.SIGTERM)
        for t in threads:
            t.join(30)
        code = server.proc.wait(30)
        check("SIGTERM: every request sent before it is answered 200", results == [200] * 8, results)
        check("SIGTERM: exit 0 within the drain timeout", code == 0 and time.time() - start < 20,
              (code, "".join(server.lines[-5:])))
        # The access log: one JSON line per request; these waited for their batch.
        server.reader.join(30)  # the process has exited: read its stderr to the end
        logs = [json.loads(l) for l in server.lines if l.startswith("{")]
        infer = [l for l in logs if l.get("path") == "/v2/models/mlp/infer"]
        # The first of them waited for the batch's full delay (1 s).
        check("access log: a JSON line per request with status and duration",
              len(infer) == 8 and all(l["status"] == 200 and l["method"] == "POST" and
                                      l["request_bytes"] == len(body) and
                                      0 < l["duration_us"] < 20000000 for l in infer) and
              max(l["duration_us"] for l in infer) >= 500000, infer)
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
