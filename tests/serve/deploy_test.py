#!/usr/bin/python3
"""tfn-serve's deployment recipes (deploy/) checked against the server itself.

The recipes are deploy/Dockerfile, deploy/kserve/servingruntime.yaml and
deploy/kserve/inferenceservice.yaml. What they say must be what tfn-serve
does:
  - every --flag of the image's command line (ENTRYPOINT + CMD) and of the
    ServingRuntime's (command/ENTRYPOINT + args) is one `tfn-serve --help`
    lists, none is given twice, and the runtime's command line starts a real
    server (run below with its model source, host and ports swapped for a
    test bundle on loopback);
  - the ports agree: --http-port/--grpc-port of both command lines, the
    Dockerfile's EXPOSE, the runtime's container ports (the gRPC one named
    h2c), its probes, its Prometheus annotation and the HEALTHCHECK;
  - the model repository is /mnt/models, where KServe's storage initializer
    puts storageUri, and the server listens on every address, not loopback;
  - the probe, metrics and HEALTHCHECK paths are paths the server serves: a
    tfn-serve started on a bundle answers each with 200;
  - the InferenceService names the runtime, one of its model formats and
    versions, and one of its protocol versions;
  - KServe's own rules: ServingRuntime/InferenceService API versions, string
    versions and annotation values, only KServe's {{...}} placeholders,
    Knative's port names; the image's user is numeric and not root; the
    build context leaves host build trees out.

Prints one PASS/FAIL line per check and "N passed, N failed" last; exits 1
on any failure. Every wait is bounded; the server is always stopped.

usage: deploy_test.py --serve tfn-serve (--bundle FILE.tfn | --export tfn-export [--workdir DIR])
                      [--deploy-dir DIR] [--repo-root DIR]
Needs Python 3 and PyYAML (Debian's python3-yaml).
"""
import argparse
import fnmatch
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

try:
    import yaml
except ImportError:  # reported as a failed check below
    yaml = None

REPO = Path(__file__).resolve().parents[2]
MOUNT = "/mnt/models"                   # where KServe's storage initializer puts storageUri
RUNTIME_NAME = "tfn-serve"
SERVING_RUNTIME_API = "serving.kserve.io/v1alpha1"
INFERENCE_SERVICE_API = "serving.kserve.io/v1beta1"
KNATIVE_PORT_NAMES = {"http1", "h2c"}   # the only names Knative accepts on a container port
# Flags that take no value, should --help not show it (it does: no metavar).
BOOLEAN_FLAGS = {"--no-http", "--no-grpc", "--access-log", "--verify-checksums", "--help", "-h"}
REPEATABLE_FLAGS = {"--model", "--preferred-batch-size"}
# KServe fills these in a ServingRuntime's container (text/template on the container spec).
PLACEHOLDER = re.compile(r"\{\{\s*\.(Name|Namespace|Labels\.[\w.-]+|Annotations\.[\w./-]+)\s*\}\}")

RESULTS = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    RESULTS["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)), flush=True)
    return ok


# ---------------------------------------------------------------- tfn-serve --help


def read_help(serve):
    """(help text, set of flags, {flag: takes a value}, repeatable flags) or None."""
    try:
        out = subprocess.run([serve, "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        check("tfn-serve --help runs", False, e)
        return None
    text = out.stdout + out.stderr
    flags = set(re.findall(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9-]*", text))
    if not check("tfn-serve --help exits 0 and lists flags", out.returncode == 0 and flags,
                 "exit %d, output %r" % (out.returncode, text[:300])):
        return None
    takes_value, repeatable = {}, set(REPEATABLE_FLAGS)
    row = re.compile(r"^\s{1,8}((?:-{1,2}[A-Za-z0-9][\w-]*,\s*)*-{1,2}[A-Za-z0-9][\w-]*)"
                     r"(?:[ =]([^\s-]\S*))?(?:\s{2,}(.*)|\s*$)")
    for line in text.splitlines():
        m = row.match(line)
        if not m:
            continue
        for name in re.findall(r"-{1,2}[A-Za-z0-9][\w-]*", m.group(1)):
            takes_value.setdefault(name, m.group(2) is not None)
            if "repeatable" in (m.group(3) or ""):
                repeatable.add(name)
    return text, flags, takes_value, repeatable


class Cli:
    """A tfn-serve command line split into flags and positionals."""

    def __init__(self, argv, takes_value):
        self.argv = list(argv)
        self.flags, self.positionals = [], []  # flags: [(name, value or None)]
        args = self.argv[1:]
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                self.positionals += args[i + 1:]
                break
            if a.startswith("-") and len(a) > 1:
                name, eq, value = a.partition("=")
                if eq:
                    self.flags.append((name, value))
                elif takes_value.get(name, name not in BOOLEAN_FLAGS) and i + 1 < len(args):
                    self.flags.append((name, args[i + 1]))
                    i += 1
                else:
                    self.flags.append((name, None))
            else:
                self.positionals.append(a)
            i += 1

    def values(self, name):
        return [v for n, v in self.flags if n == name]

    def value(self, name):
        v = self.values(name)
        return v[-1] if v else None

    def repository(self):
        """The model source: --model-repository, else a positional PATH."""
        return self.value("--model-repository") or (self.positionals[0] if self.positionals else None)


def port_of(cli, flag):
    v = cli.value(flag)
    return int(v) if v is not None and re.fullmatch(r"\d+", v) else None


def check_command_line(what, cli, help_info, expected_program=None):
    """Checks shared by the image's and the runtime's command lines; returns (http, grpc) ports."""
    _, flags, _, repeatable = help_info
    program = os.path.basename(cli.argv[0]) if cli.argv else ""
    check(what + ": runs tfn-serve", program == "tfn-serve", cli.argv[:1])
    if expected_program is not None:
        check(what + ": runs the binary the image installs", cli.argv[:1] == [expected_program],
              "%s, the image copies tfn-serve to %s" % (cli.argv[:1], expected_program))
    unknown = sorted({n for n, _ in cli.flags} - flags)
    check(what + ": every flag is one tfn-serve --help lists", not unknown,
          "not in --help: %s" % unknown)
    names = [n for n, _ in cli.flags]
    twice = sorted({n for n in names if names.count(n) > 1 and n not in repeatable})
    check(what + ": no flag given twice", not twice, twice)
    # The repository, or (a runtime for single-bundle storageUris) --model NAME=BUNDLE under it.
    bundles = [v.partition("=")[2] for v in cli.values("--model") if v]
    repo = cli.repository()
    check(what + ": serves the repository KServe mounts (%s)" % MOUNT,
          (repo or "").rstrip("/") == MOUNT if repo else
          bundles and all(b.startswith(MOUNT + "/") for b in bundles),
          "model source %r, bundles %s" % (repo, bundles))
    host = cli.value("--host")
    check(what + ": listens on every address (probes and traffic come from outside the pod)",
          host in (None, "0.0.0.0", "::", "[::]"), "--host %s" % host)
    check(what + ": both front ends on", not {"--no-http", "--no-grpc"} & set(names),
          [n for n in names if n in ("--no-http", "--no-grpc")])
    http, grpc = port_of(cli, "--http-port"), port_of(cli, "--grpc-port")
    check(what + ": sets --http-port and --grpc-port (the defaults differ from KServe's)",
          http is not None and grpc is not None and http > 0 and grpc > 0 and http != grpc,
          "--http-port %s --grpc-port %s" % (cli.value("--http-port"), cli.value("--grpc-port")))
    return http, grpc


# ---------------------------------------------------------------- Dockerfile


def dockerfile_instructions(text):
    """[(KEYWORD, arguments)]: continuations joined, comments and blank lines dropped."""
    out, cur = [], None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#") or (not s and cur is not None):
            continue  # comments, and blank lines inside a continuation
        if not s:
            continue
        part = line.rstrip()
        cont = part.endswith("\\")
        if cont:
            part = part[:-1]
        cur = part if cur is None else cur + " " + part.strip()
        if not cont:
            kw, _, rest = cur.strip().partition(" ")
            out.append((kw.upper(), rest.strip()))
            cur = None
    if cur is not None:
        kw, _, rest = cur.strip().partition(" ")
        out.append((kw.upper(), rest.strip()))
    return out


def exec_form(arg):
    """A JSON-array (exec form) argument as a list, else None (shell form)."""
    if arg.startswith("["):
        try:
            v = json.loads(arg)
        except ValueError:
            return None
        if isinstance(v, list) and all(isinstance(x, str) for x in v):
            return v
    return None


def check_dockerfile(path, help_info, ignore_file):
    """Returns {http, grpc, user, paths: [(what, path)], ...} or None."""
    try:
        text = path.read_text()
    except OSError as e:
        check("Dockerfile readable", False, e)
        return None
    ins = dockerfile_instructions(text)
    froms = [i for i, (k, _) in enumerate(ins) if k == "FROM"]
    if not check("Dockerfile has a build stage and a runtime stage", len(froms) >= 2, froms):
        return None
    build, final = ins[froms[0]:froms[-1]], ins[froms[-1]:]
    base = final[0][1].split()[0]
    check("Dockerfile: runtime stage is Debian 12 slim", base in ("debian:12-slim", "debian:bookworm-slim"), base)
    all_text = " ".join(a for _, a in ins)
    check("Dockerfile: builds with the project's scripts/setup.sh and the tfn-serve target",
          "scripts/setup.sh" in all_text and re.search(r"--target[ =]tfn-serve\b", all_text), "")
    check("Dockerfile: downloads nothing but Debian packages",
          not re.search(r"\b(curl|wget|git clone|pip3? install|npm|ADD\s+https?:)", all_text)
          and not any(k == "ADD" and re.search(r"https?://", a) for k, a in ins), "")

    def last(kw, stage=final):
        found = [a for k, a in stage if k == kw]
        return found[-1] if found else None

    entry_arg, cmd_arg = last("ENTRYPOINT"), last("CMD")
    entry = exec_form(entry_arg or "")
    check("Dockerfile: ENTRYPOINT in exec form (else KServe's args and SIGTERM never reach tfn-serve)",
          entry is not None and entry, entry_arg)
    cmd = exec_form(cmd_arg) if cmd_arg else []
    check("Dockerfile: CMD, if any, in exec form", cmd is not None, cmd_arg)
    entry, cmd = entry or [], cmd or []

    # Where the runtime stage puts the binary it copies from the build stage.
    installed = None
    for k, a in final:
        if k == "COPY" and "--from=" in a:
            parts = [p for p in shlex.split(a) if not p.startswith("--")]
            if len(parts) == 2 and os.path.basename(parts[0]) == "tfn-serve":
                installed = parts[1] + os.path.basename(parts[0]) if parts[1].endswith("/") else parts[1]
    check("Dockerfile: runtime stage copies tfn-serve from the build stage", installed, "")

    cli = Cli(entry + cmd, help_info[2])
    http, grpc = check_command_line("Dockerfile ENTRYPOINT+CMD", cli, help_info, installed)

    exposed = set()
    for k, a in final:
        if k == "EXPOSE":
            for p in a.split():
                m = re.fullmatch(r"(\d+)(?:/tcp)?", p)
                exposed.add(int(m.group(1)) if m else p)
    check("Dockerfile: EXPOSE is the HTTP and gRPC ports of its command line", exposed == {http, grpc},
          "EXPOSE %s, --http-port %s --grpc-port %s" % (sorted(map(str, exposed)), http, grpc))

    user = last("USER")
    uid = (user or "").split(":")[0]
    check("Dockerfile: runs as a numeric non-root user (runAsNonRoot can verify only a number)",
          uid.isdigit() and int(uid) != 0, "USER %s" % user)

    paths = []
    health = last("HEALTHCHECK")
    if health is not None and health.strip().upper() != "NONE":
        m = re.search(r"(?:/dev/tcp/[^/\s]+/|localhost:|127\.0\.0\.1:)(\d+)", health)
        p = re.search(r"(/(?:v2|v1|metrics)[\w/.:-]*)", health)
        check("Dockerfile: HEALTHCHECK probes the HTTP port", m and int(m.group(1)) == http,
              "%s, HTTP port %s" % (m.group(1) if m else "no port", http))
        if check("Dockerfile: HEALTHCHECK names a path", p, health):
            paths.append(("Dockerfile HEALTHCHECK", p.group(1)))

    # The build context is the repository root: host build trees (a CMakeCache.txt
    # naming another source directory) must stay out of `COPY . .`.
    if any(k == "COPY" and re.match(r"\.\s", a + " ") for k, a in build):
        try:
            patterns = [l.strip() for l in ignore_file.read_text().splitlines()]
        except OSError:
            patterns = []
        patterns = [p.strip("/") for p in patterns if p and not p.startswith(("#", "!"))]
        check("build context (%s) leaves build/ out" % ignore_file,
              any(fnmatch.fnmatch("build", p) for p in patterns), patterns)
    return {"http": http, "grpc": grpc, "paths": paths, "entry": entry, "cmd": cmd}


# ---------------------------------------------------------------- KServe YAML


def load_yaml(path, kind):
    """The single document of `kind` in `path`, or None."""
    if yaml is None:
        check("PyYAML available (Debian's python3-yaml)", False, "import yaml failed")
        return None
    try:
        docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        check("%s parses" % path.name, False, e)
        return None
    found = [d for d in docs if isinstance(d, dict) and d.get("kind") == kind]
    if not check("%s holds one %s" % (path.name, kind), len(found) == 1,
                 [d.get("kind") if isinstance(d, dict) else type(d).__name__ for d in docs]):
        return None
    return found[0]


def string_map(m):
    return isinstance(m, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in m.items())


def probe_target(probe, ports_by_name):
    """(port number, path) of an httpGet probe; port may be a number or a port name."""
    get = (probe or {}).get("httpGet") or {}
    port = get.get("port")
    if isinstance(port, str) and not port.isdigit():
        port = ports_by_name.get(port)
    return (int(port) if port is not None else None), get.get("path"), get.get("scheme", "HTTP")


def check_runtime(path, help_info, docker):
    sr = load_yaml(path, "ServingRuntime")
    if sr is None:
        return None
    spec = sr.get("spec") or {}
    check("ServingRuntime: apiVersion %s" % SERVING_RUNTIME_API, sr.get("apiVersion") == SERVING_RUNTIME_API,
          sr.get("apiVersion"))
    check("ServingRuntime: named %s" % RUNTIME_NAME, (sr.get("metadata") or {}).get("name") == RUNTIME_NAME,
          sr.get("metadata"))
    formats = spec.get("supportedModelFormats") or []
    check("ServingRuntime: supports model format tfn, version as a string, autoSelect",
          any(f.get("name") == "tfn" and isinstance(f.get("version"), str) and f.get("autoSelect") is True
              for f in formats), formats)
    check("ServingRuntime: every model format version is a string (the CRD's type)",
          all(isinstance(f.get("version", ""), str) for f in formats), formats)
    protocols = spec.get("protocolVersions") or []
    check("ServingRuntime: protocolVersions v2 and grpc-v2", {"v2", "grpc-v2"} <= set(protocols), protocols)
    check("ServingRuntime: single-model (multiModel false)", spec.get("multiModel") is False,
          spec.get("multiModel"))
    for where in ("annotations", "labels"):
        if where in spec:
            check("ServingRuntime: spec.%s values are strings" % where, string_map(spec[where]), spec[where])

    containers = spec.get("containers") or []
    c = next((c for c in containers if c.get("name") == "kserve-container"), None)
    if not check("ServingRuntime: a container named kserve-container (KServe's model server)", c,
                 [x.get("name") for x in containers]):
        return None
    raw = json.dumps(c)
    bad = sorted(set(re.findall(r"\{\{[^}]*\}\}", raw)) - set(m.group(0) for m in PLACEHOLDER.finditer(raw)))
    check("ServingRuntime: only KServe's {{...}} placeholders", not bad, bad)

    # What the container runs: Kubernetes' command/args over the image's ENTRYPOINT/CMD.
    def subst(words):
        return [PLACEHOLDER.sub("model", str(w)) for w in words]
    command, args = c.get("command"), c.get("args")
    if command is not None:
        argv = subst(command) + subst(args or [])
    else:
        argv = subst((docker or {}).get("entry") or ["tfn-serve"]) + subst(
            args if args is not None else (docker or {}).get("cmd") or [])
    cli = Cli(argv, help_info[2])
    http, grpc = check_command_line("ServingRuntime command line", cli, help_info)

    ports = c.get("ports") or []
    by_name = {p.get("name"): p.get("containerPort") for p in ports if p.get("name")}
    h2c = [p for p in ports if p.get("name") == "h2c"]
    check("ServingRuntime: the gRPC port is named h2c (what Knative and KServe route as gRPC)",
          len(h2c) == 1 and h2c[0].get("containerPort") == grpc,
          "h2c ports %s, --grpc-port %s" % (h2c, grpc))
    others = [p for p in ports if p.get("name") != "h2c"]
    check("ServingRuntime: the other container port is the HTTP port",
          len(others) == 1 and others[0].get("containerPort") == http,
          "ports %s, --http-port %s" % (others, http))
    check("ServingRuntime: port names are Knative's (http1, h2c) and protocols TCP",
          all(p.get("name") in KNATIVE_PORT_NAMES and p.get("protocol", "TCP") == "TCP" for p in ports), ports)
    if docker:
        check("ServingRuntime ports equal the Dockerfile's (HTTP, gRPC)",
              (http, grpc) == (docker["http"], docker["grpc"]),
              "runtime %s, Dockerfile %s" % ((http, grpc), (docker["http"], docker["grpc"])))

    paths = []
    for kind in ("readinessProbe", "livenessProbe", "startupProbe"):
        probe = c.get(kind)
        if probe is None:
            if kind != "startupProbe":  # optional
                check("ServingRuntime: has a %s" % kind, False, "missing")
            continue
        port, p, scheme = probe_target(probe, by_name)
        check("ServingRuntime: %s is an HTTP GET on the HTTP port" % kind,
              port == http and p and scheme == "HTTP", "port %s path %s scheme %s; HTTP port %s"
              % (port, p, scheme, http))
        if p:
            paths.append(("ServingRuntime " + kind, p))
    ready = probe_target(c.get("readinessProbe"), by_name)[1] or ""
    live = probe_target(c.get("livenessProbe"), by_name)[1] or ""
    check("ServingRuntime: readiness probes readiness (/v2/health/ready)", ready == "/v2/health/ready", ready)
    check("ServingRuntime: liveness probes liveness (/v2/health/live), not readiness "
          "(a loading or draining server would be restarted)", live == "/v2/health/live", live)

    ann = spec.get("annotations") or {}
    if "prometheus.kserve.io/port" in ann or "prometheus.kserve.io/path" in ann:
        check("ServingRuntime: Prometheus annotation names the HTTP port",
              str(ann.get("prometheus.kserve.io/port")) == str(http), ann)
        paths.append(("ServingRuntime prometheus.kserve.io/path", ann.get("prometheus.kserve.io/path", "/metrics")))
    return {"runtime": sr, "cli": cli, "http": http, "grpc": grpc, "paths": paths,
            "formats": formats, "protocols": protocols, "ports": ports}


def check_inference_service(path, rt):
    isvc = load_yaml(path, "InferenceService")
    if isvc is None or rt is None:
        return
    check("InferenceService: apiVersion %s" % INFERENCE_SERVICE_API,
          isvc.get("apiVersion") == INFERENCE_SERVICE_API, isvc.get("apiVersion"))
    meta = isvc.get("metadata") or {}
    for where in ("annotations", "labels"):
        if where in meta:
            check("InferenceService: metadata.%s values are strings" % where, string_map(meta[where]), meta[where])
    model = ((isvc.get("spec") or {}).get("predictor") or {}).get("model") or {}
    fmt = model.get("modelFormat") or {}
    names = {f.get("name") for f in rt["formats"]}
    check("InferenceService: model format is the runtime's (%s)" % sorted(names), fmt.get("name") in names,
          fmt)
    if "version" in fmt:
        versions = {f.get("version") for f in rt["formats"] if f.get("name") == fmt.get("name")}
        check("InferenceService: model format version is a string the runtime supports",
              isinstance(fmt["version"], str) and fmt["version"] in versions, "%r vs %s" % (fmt["version"], versions))
    check("InferenceService: runtime is %s" % RUNTIME_NAME,
          model.get("runtime") == (rt["runtime"].get("metadata") or {}).get("name"), model.get("runtime"))
    check("InferenceService: protocolVersion is one the runtime lists",
          model.get("protocolVersion") in rt["protocols"], model.get("protocolVersion"))
    uri = model.get("storageUri") or ""
    check("InferenceService: storageUri names a storage (scheme://...)", re.match(r"^[a-z0-9+.-]+://\S+", uri), uri)
    mode = (meta.get("annotations") or {}).get("serving.kserve.io/deploymentMode")
    two_ports = len(rt["ports"]) > 1 or len(model.get("ports") or []) > 1
    check("InferenceService: a two-port runtime runs in RawDeployment/Standard mode "
          "(Knative accepts one container port)",
          not two_ports or mode in ("RawDeployment", "Standard"), "deploymentMode %r" % mode)
    for p in model.get("ports") or []:
        check("InferenceService: its port %s is one of the runtime's" % p.get("containerPort"),
              any(p.get("containerPort") == q.get("containerPort") for q in rt["ports"]), p)


# ---------------------------------------------------------------- the server


class Server:
    """A tfn-serve process whose output a thread reads for the port and ready lines."""

    def __init__(self, argv):
        self.lines, self.http, self.grpc = [], None, None
        self.ready = threading.Event()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            m = re.search(r"(HTTP|gRPC) listening on (\S+):(\d+)\s*$", line)
            if m:
                setattr(self, "http" if m.group(1) == "HTTP" else "grpc", int(m.group(3)))
            if line.strip() == "tfn-serve: ready":
                self.ready.set()

    def wait_ready(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.proc.poll() is None:
            if self.ready.wait(0.2):
                return True
        return self.ready.is_set()

    def output(self):
        return "".join(self.lines[-30:])

    def stop(self, seconds):
        """SIGTERM, then SIGKILL after `seconds`; returns whether it exited by itself."""
        if self.proc.poll() is not None:
            return True
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(seconds)
            return True
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            return False


NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_get(port, path):
    try:
        with NO_PROXY.open("http://127.0.0.1:%d%s" % (port, path), timeout=10) as r:
            return r.status, r.read(2000)
    except urllib.error.HTTPError as e:
        return e.code, e.read(2000)
    except (OSError, ValueError) as e:
        return None, str(e).encode()


def make_bundle(args):
    """(model name, bundle path) from --bundle, else exported with --export, else None."""
    if args.bundle:
        return Path(args.bundle).stem, args.bundle
    if not args.export:
        check("a bundle to serve (--bundle, or --export to make one)", False, "neither given")
        return None
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="deploy_test."))
    workdir.mkdir(parents=True, exist_ok=True)
    bundle = workdir / "mlp.tfn"
    try:
        out = subprocess.run([args.export, "mlp", "-o", str(bundle)], capture_output=True, text=True,
                             timeout=300)
        ok, detail = out.returncode == 0 and bundle.is_file(), out.stderr[-500:]
    except (OSError, subprocess.SubprocessError) as e:
        ok, detail = False, e
    return ("mlp", str(bundle)) if check("tfn-export mlp makes the test bundle", ok, detail) else None


def check_live(serve, help_info, rt, docker, bundle):
    """Starts the runtime's command line on the bundle and GETs every path the recipes name."""
    name, path = bundle
    # The runtime's flags minus its model source, host and ports: those become
    # the test bundle and loopback with free ports.
    drop = {"--model-repository", "--model", "--host", "--http-port", "--grpc-port"}
    argv = [serve]
    for flag, value in (rt["cli"].flags if rt else []):
        if flag not in drop:
            argv.append(flag if value is None else flag + "=" + value)
    argv += ["--model", "%s=%s" % (name, path), "--host", "127.0.0.1", "--http-port", "0", "--grpc-port", "0"]
    server = Server(argv)
    try:
        ready = server.wait_ready(60)
        code = server.proc.poll()
        why = "exited with %d" % code if code is not None else "no 'tfn-serve: ready' in 60 s"
        if not check("the runtime's command line starts tfn-serve (%s)" % " ".join(argv[1:]),
                     ready and server.http and code is None, why + "; output:\n" + server.output()):
            return
        paths = [("model ready", "/v2/models/%s/ready" % name)]
        paths += (rt["paths"] if rt else []) + (docker["paths"] if docker else [])
        seen = set()
        for what, p in paths:
            if (what, p) in seen:
                continue
            seen.add((what, p))
            status, body = http_get(server.http, p)
            check("%s path %s answers 200" % (what, p), status == 200,
                  "%s %r" % (status, body[:200]))
        if server.grpc:
            try:
                socket.create_connection(("127.0.0.1", server.grpc), timeout=5).close()
                check("the gRPC port accepts connections", True)
            except OSError as e:
                check("the gRPC port accepts connections", False, e)
        else:
            check("tfn-serve says where gRPC listens", False, server.output())
    finally:
        exited = server.stop(40)
    check("SIGTERM stops tfn-serve by itself (exit %s)" % server.proc.returncode, exited,
          "killed after 40 s; output:\n%s" % server.output())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--serve", required=True, help="the tfn-serve binary")
    ap.add_argument("--bundle", help="a .tfn bundle to serve (served as its file stem)")
    ap.add_argument("--export", help="tfn-export, to make the mlp bundle when --bundle is not given")
    ap.add_argument("--run", help="unused (the serve tests share one command line)")
    ap.add_argument("--workdir", help="where --export writes the bundle (default: a temporary directory)")
    ap.add_argument("--deploy-dir", default=str(REPO / "deploy"))
    ap.add_argument("--repo-root", default=str(REPO), help="the Docker build context")
    args = ap.parse_args()
    deploy = Path(args.deploy_dir)

    help_info = read_help(args.serve)
    if help_info is not None:
        docker = check_dockerfile(deploy / "Dockerfile", help_info, Path(args.repo_root) / ".dockerignore")
        rt = check_runtime(deploy / "kserve" / "servingruntime.yaml", help_info, docker)
        check_inference_service(deploy / "kserve" / "inferenceservice.yaml", rt)
        try:
            readme = (deploy / "README.md").read_text()
        except OSError:
            readme = ""
        ports = [p for p in ((rt or {}).get("http"), (rt or {}).get("grpc")) if p]
        check("deploy/README.md names the ports %s" % ports,
              ports and all(re.search(r"\b%d\b" % p, readme) for p in ports), "")
        bundle = make_bundle(args)
        if bundle:
            check_live(args.serve, help_info, rt, docker, bundle)
    print("%d passed, %d failed" % (RESULTS["passed"], RESULTS["failed"]), flush=True)
    return 1 if RESULTS["failed"] or not RESULTS["passed"] else 0


if __name__ == "__main__":
    sys.exit(main())
