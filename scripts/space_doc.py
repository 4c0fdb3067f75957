"""A space file's document as evotune reads it, for the scripts that read spaces: a file with "Extends" is its
base's document (a space file in the same folder, itself resolved the same way) with the file's own top-level
members in place of the base's and its "Overrides" (field path -> value) applied last; a path is the field
names of evotune's error messages joined by dots, a list element chosen by its Name, `Arguments(A)`, or its
index, `Seeds[0]`. The same rules as src/space/space_extends.cpp; tests/scripts/space_doc_test.py checks the
two agree on every space of search_spaces/ (`evotune convert` writes the resolved document).

    import space_doc
    space = space_doc.load("search_spaces/gemm_wgmma_bf16.json")
"""
import json
import os
import re


class SpaceDocError(ValueError):
    """A file that cannot be resolved: the message names the file and the field, as evotune's do."""


STEP = re.compile(r"^([^.()\[\]]+)(?:\(([^()]+)\)|\[(\d+)\])?$")


def field_at(document, path, where):
    """The container holding the field `path` names in `document`, and its key (or index) there."""
    node, holder, slot, walked = document, None, None, ""
    for part in path.split("."):
        if holder is not None:
            node = holder[slot]
        match = STEP.match(part)
        if not match:
            raise SpaceDocError(f"{where}: '{part}': expected Field, Field(Name) or Field[index]")
        key, name, index = match.groups()
        walked += ("." if walked else "") + key
        if not isinstance(node, dict) or key not in node:
            raise SpaceDocError(f"{where}: the extended space has no field {walked}")
        holder, slot = node, key
        if name is None and index is None:
            continue
        items = node[key]
        if not isinstance(items, list):
            raise SpaceDocError(f"{where}: {walked} is not a list")
        if index is not None:
            if int(index) >= len(items):
                raise SpaceDocError(f"{where}: {walked} has {len(items)} elements, no [{index}]")
            holder, slot = items, int(index)
            walked += f"[{index}]"
        else:
            found = [i for i, item in enumerate(items) if isinstance(item, dict) and item.get("Name") == name]
            if not found:
                raise SpaceDocError(f"{where}: {walked} has no element named '{name}'")
            holder, slot = items, found[-1]
            walked += f"({name})"
    return holder, slot


def resolve(document, path, read, chain=()):
    """`document` (the parsed file at `path`) with its Extends and Overrides applied; `read(path)` parses a base."""
    if not isinstance(document, dict) or "Extends" not in document:
        return document
    name = document["Extends"]
    if not isinstance(name, str) or not name or os.path.basename(name) != name:
        raise SpaceDocError(f"{path}: Extends: expected the file name of a space in the same folder (the base's "
                            f"relative paths are read from there), got {json.dumps(name)}")
    base = os.path.join(os.path.dirname(path), name)
    chain = chain + (os.path.realpath(path),)
    if os.path.realpath(base) in chain:
        cycle = " -> ".join(os.path.basename(step) for step in chain)
        raise SpaceDocError(f"{path}: Extends: a cycle ({cycle} -> {name})")
    try:
        resolved = read(base)
    except OSError:
        raise SpaceDocError(f"{base}: cannot read the file (named by Extends)") from None
    if not isinstance(resolved, dict):
        raise SpaceDocError(f"{path}: Extends: {name} is not a space (not an object)")
    resolved = resolve(resolved, base, read, chain)
    if document.get("Name") is None or document.get("Name") == resolved.get("Name"):
        raise SpaceDocError(f"{path}: Extends: an extending space needs a Name of its own (its results are stored "
                            f"under it), not {json.dumps(resolved.get('Name'))}")
    for key, value in document.items():
        if key not in ("Extends", "Overrides"):
            resolved[key] = value
    overrides = document.get("Overrides", {})
    if not isinstance(overrides, dict):
        raise SpaceDocError(f"{path}: Overrides: expected an object of field paths and values")
    for field, value in overrides.items():
        holder, slot = field_at(resolved, field, f"{path}: Overrides.{field}")
        holder[slot] = value
    return resolved


def read_json(path):
    with open(path) as f:
        return json.load(f)


def load(path, read=read_json):
    """The space file at `path` as evotune reads it (a T1 file is returned as it is)."""
    return resolve(read(path), path, read)
