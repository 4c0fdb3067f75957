#!/usr/bin/env python3
"""The dependency figures of src/: modules, arrows between them (from CMakeLists.txt's map), back-arrows
inside folders, and the largest module's share of src lines.

A file's unit is its stem (x.hpp with x.cpp). A back-arrow inside a folder is an include of a header of the
same folder that closes a cycle: the included header's unit (its source included) depends, directly or
through other units of the folder, on the including file's unit. A plain type that lives in an
orchestrator's header, included by the lower files the orchestrator uses, is one. A private header (no
source of its own, included by no header) extends the class whose header it includes and is not counted.
Usage: scripts/layer_figures.py [-v]   (run from the repository root)"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
src = root / "src"
verbose = "-v" in sys.argv[1:]

cmake = (root / "CMakeLists.txt").read_text()
deps = {}
for name, args in re.findall(r"^evotune_module\((\w+)([^)]*)\)", cmake, re.M):
    m = re.search(r"DEPENDS((?:\s+\w+)+?)(?:\s+(?:CUDA|LIBS)\b|\s*$)", args)
    deps[name] = m.group(1).split() if m else []
arrows = sum(len(d) for d in deps.values())

include = re.compile(r'^\s*#\s*include\s*"(\w+)/([\w./]+)"', re.M)
back = []
lines = {}
for folder in sorted(p for p in src.iterdir() if p.is_dir()):
    files = sorted(list(folder.glob("*.cpp")) + list(folder.glob("*.hpp")))
    lines[folder.name] = sum(len(f.read_text().splitlines()) for f in files)
    edges = {}  # unit -> {unit: [including file, ...]}
    for f in files:
        unit = f.stem
        edges.setdefault(unit, {})
        for mod, path in include.findall(f.read_text()):
            target = pathlib.Path(path).stem
            if mod == folder.name and target != unit and (folder / path).exists():
                edges[unit].setdefault(target, []).append(f.name)

    def reaches(start, goal):
        seen, todo = set(), [start]
        while todo:
            u = todo.pop()
            if u == goal:
                return True
            if u not in seen:
                seen.add(u)
                todo.extend(edges.get(u, {}))
        return False

    # A private header: no source of its own and included by sources only (the hidden half of a class whose
    # methods several sources define, e.g. eval/evaluator_internals.hpp); it extends the header it includes.
    included_by_header = {t for f in files if f.suffix == ".hpp" for m, t in include.findall(f.read_text())
                          if m == folder.name}
    private = {f.name for f in files if f.suffix == ".hpp" and not (folder / (f.stem + ".cpp")).exists()
               and f.name not in included_by_header}
    for unit, targets in edges.items():
        for target, includers in targets.items():
            for includer in includers:
                # The header side of a cycle: a header that includes a header whose unit reaches back to it.
                if includer.endswith(".hpp") and includer not in private and reaches(target, unit):
                    back.append(f"src/{folder.name}/{includer} -> {folder.name}/{target}.hpp")

total = sum(lines.values())
largest = max(lines, key=lines.get)
print(f"modules: {len(deps)}")
print(f"arrows: {arrows}")
print(f"back-arrows inside folders: {len(back)}")
for b in back:
    print(f"  {b}")
print(f"largest module: {largest}, {lines[largest]} of {total} src lines ({100 * lines[largest] / total:.0f}%)")
if verbose:
    for name in sorted(lines, key=lines.get, reverse=True):
        print(f"  {name:10} {lines[name]:6} lines  depends on: {' '.join(deps.get(name, []))}")
