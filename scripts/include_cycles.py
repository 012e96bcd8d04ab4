#!/usr/bin/env python3
"""Fails on a circular #include: between the files under SRC, or between its directories (the layers).

Usage: include_cycles.py SRC. An include "a/b.h" is looked up under SRC, then beside the including file.
Prints each cycle found as a chain and exits 1; prints a one-line summary and exits 0 otherwise.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def graph(src):
    edges = {}
    for d, _, files in os.walk(src):
        for f in files:
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.relpath(os.path.join(d, f), src)
            with open(os.path.join(src, path), encoding='utf-8') as fh:
                text = fh.read()
            targets = set()
            for inc in INCLUDE.findall(text):
                for cand in (inc, os.path.join(os.path.dirname(path), inc)):
                    if os.path.exists(os.path.join(src, cand)):
                        targets.add(os.path.normpath(cand))
                        break
            edges[path] = targets
    return edges


def cycles(edges):
    """Every node on a cycle, reported once per strongly connected component (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
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
            if len(comp) > 1 or v in edges.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else 'src'
    files = graph(src)
    layers = {}
    for f, targets in files.items():
        layer = os.path.dirname(f) or '.'
        layers.setdefault(layer, set()).update(os.path.dirname(t) or '.' for t in targets if os.path.dirname(t) != layer)
    bad = [('files', c) for c in cycles(files)] + [('layers', c) for c in cycles(layers)]
    for kind, c in bad:
        print(f'circular includes between {kind}: {" -> ".join(c)}')
    if bad:
        return 1
    print(f'no circular include among {len(files)} files in {len(layers)} directories of {src}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
