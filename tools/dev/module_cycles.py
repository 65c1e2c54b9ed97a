#!/usr/bin/env python3
"""Finds import cycles between the modules (files) of a Rust crate.

Usage: module_cycles.py SRC_DIR [SRC_DIR...]   (e.g. crates/sportz-api/src)

A module is a file (`foo.rs` or `foo/mod.rs` is `foo`). An edge A → B is any `crate::B…` path
(in a `use` or inline) or `super::…` path written in A that names B's items; `mod` declarations
are not edges. Prints every cycle found; exits 1 if there is one. Test modules (`tests.rs`,
`#[cfg(test)]` blocks) are ignored: a module's tests may use anything.
"""
import pathlib
import re
import sys


def modules(src: pathlib.Path):
    mods = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        if parts and parts[-1] == "tests":
            continue
        mods[tuple(parts)] = f
    return mods


def strip_tests(text: str) -> str:
    # drop `#[cfg(test)] mod tests { ... }` blocks (brace matching)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    text = "".join(out)
    return re.sub(r"//[^\n]*", "", text)


def resolve(path, mods):
    # the longest module prefix of a path
    for n in range(len(path), 0, -1):
        if tuple(path[:n]) in mods:
            return tuple(path[:n])
    return None


def expand_use_groups(text: str):
    """Yields module paths named in `use crate::{a, b::c}`-style trees and inline paths."""
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)(::\{([^;]*?)\})?", text):
        root = m.group(1)
        base = [p for p in m.group(2).split("::") if p]
        group = m.group(4)
        if group:
            for item in re.split(r"[,{}]", group):
                item = item.strip().split(" as ")[0]
                if item:
                    yield root, base + [p for p in item.split("::") if p]
        else:
            yield root, base
    for m in re.finditer(r"\buse\s+crate::\{([^;]*)\}", text):
        for item in re.split(r"[,{}]", m.group(1)):
            item = item.strip().split(" as ")[0]
            if item:
                yield "crate", [p for p in item.split("::") if p]


def edges(mods):
    g = {m: set() for m in mods}
    for m, f in mods.items():
        text = strip_tests(f.read_text())
        for root, path in expand_use_groups(text):
            if root == "super":
                parent = list(m[:-1]) if f.name != "mod.rs" else list(m[:-1])
                path = parent + path
            target = resolve(path, mods)
            if target is not None and target != m and target != ():
                # a module naming its own ancestor's items is still an edge; a parent naming its
                # child is the declaration order, also an edge
                g[m].add(target)
    return g


def cycles(g):
    found, index, low, stack, on, counter = [], {}, {}, [], set(), [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)

    sys.setrecursionlimit(10000)
    for v in g:
        if v not in index:
            strong(v)
    return found


def main():
    bad = 0
    for src in sys.argv[1:]:
        mods = modules(pathlib.Path(src))
        g = edges(mods)
        for comp in cycles(g):
            bad = 1
            names = sorted("::".join(c) or "crate" for c in comp)
            print(f"import cycle in {src}: {' ↔ '.join(names)}")
            for c in sorted(comp):
                outs = sorted("::".join(t) for t in g[c] if t in comp)
                print(f"    {'::'.join(c) or 'crate'} → {', '.join(outs)}")
    sys.exit(bad)


if __name__ == "__main__":
    main()
