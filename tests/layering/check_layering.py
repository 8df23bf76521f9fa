#!/usr/bin/env python3
"""Checks that each tfn library includes only headers of libraries it may use.

Usage: check_layering.py SOURCE_DIR LAYERING_TXT

LAYERING_TXT (written by cmake/TfnLayering.cmake at configure time) has one
line per library: name|source dir|sources|link libraries|interface link
libraries, lists separated by ';'. A library may include its own headers and
those of every library it links, directly or through their public
(interface) links; a private link of a dependency is not inherited, as
CMake would not pass its include paths on either. A header belongs to the
library that compiles the .cc of the same name (or lists the header); one
with no .cc belongs to the library in its folder named tfn_<folder>, or the
only library there. Tests, test utilities and test data are not checked:
they link what they exercise.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+/[^"]+)"', re.M)
# The umbrella headers in include/tfn/ stand for the library they expose.
UMBRELLA = {"tfn/tfn.h": "tfn_save", "tfn/runtime.h": "tfn_loader",
            "tfn/tfn_runtime.h": "tfn_loader", "tfn/aot_thread_pool.h": None}


def is_test_file(path):
    parts = path.split("/")
    return ("testing" in parts or "testdata" in parts or "_test" in os.path.basename(path))


def main():
    src, table = sys.argv[1], sys.argv[2]
    libs = {}
    for line in open(table):
        line = line.rstrip("\n")
        if not line:
            continue
        name, folder, sources, links, public = line.split("|")
        files = set()
        for s in sources.split(";"):
            if not s or s.startswith("$<"):
                continue
            path = os.path.relpath(s if os.path.isabs(s) else os.path.join(src, folder, s), src)
            if not path.startswith(".."):
                files.add(path)
        libs[name] = {"folder": folder, "files": files,
                      "links": [l for l in links.split(";") if l],
                      "public": [re.sub(r"^\$<LINK_ONLY:(.*)>$", "", l) for l in public.split(";") if l]}

    def public_closure(name, seen):
        for dep in libs[name]["public"]:
            if dep in libs and dep not in seen:
                seen.add(dep)
                public_closure(dep, seen)
        return seen

    allowed = {}
    for name, lib in libs.items():
        ok = {name}
        for dep in lib["links"]:
            if dep in libs:
                ok.add(dep)
                public_closure(dep, ok)
        allowed[name] = ok

    by_stem = {}
    for name, lib in libs.items():
        for f in lib["files"]:
            by_stem[os.path.splitext(f)[0]] = name

    def owner(header):
        if header in UMBRELLA:
            return UMBRELLA[header]
        stem = os.path.splitext(header)[0]
        if stem in by_stem:
            return by_stem[stem]
        folder = os.path.dirname(header)
        while folder:
            here = [n for n, l in libs.items() if l["folder"] == folder]
            top = folder.split("/")[0]
            for n in here:
                if n == "tfn_" + top:
                    return n
            if len(here) == 1:
                return here[0]
            folder = os.path.dirname(folder)
        return None  # not a library's header (tests/, generated test data)

    # What each library compiles, plus the headers it owns.
    checked = {name: set(f for f in lib["files"] if not is_test_file(f)) for name, lib in libs.items()}
    for root, _, names in os.walk(src):
        rel_root = os.path.relpath(root, src)
        if rel_root.startswith(("build", ".git", "tests", "bench", "examples", "tools", "fuzz")):
            continue
        for n in names:
            if n.endswith((".h", ".inc")):
                path = os.path.normpath(os.path.join(rel_root, n))
                lib = owner(path)
                if lib and not is_test_file(path):
                    checked[lib].add(path)

    problems = []
    for name, files in sorted(checked.items()):
        for f in sorted(files):
            full = os.path.join(src, f)
            if not os.path.exists(full):
                continue
            for inc in INCLUDE.findall(open(full, encoding="utf-8", errors="replace").read()):
                dep = owner(inc)
                if dep is None or dep in allowed[name]:
                    continue
                problems.append(f"{f} includes {inc}, a header of {dep}, but {name} does not link {dep}")
    if problems:
        print("layering: FAIL: includes that the libraries' links do not allow "
              "(docs/ARCHITECTURE.md, 'Components and who may depend on whom'):")
        for p in problems:
            print("  " + p)
        print("Move the code to a library that may depend on it, or add the link (and the "
              "architecture table's row) if the dependency is intended.")
        return 1
    total = sum(len(f) for f in checked.values())
    print(f"layering: {total} files of {len(libs)} libraries include only what their links allow")
    return 0


if __name__ == "__main__":
    sys.exit(main())
