"""The runtime's module graph must have no cycle.

Builds the file-level dependency graph of a crate's src (from `crate::` and `super::` paths, with
the crate root's `pub use` re-exports resolved to their modules; test modules left out) and
prints every strongly connected component of more than one file. Exits 1 if there is one.
Usage: python3 .ci/modgraph.py hermes-tools/src [-v]
"""
import os, re, sys
root = sys.argv[1]
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)[:-3]
            mod = rel.replace('/mod', '').replace('/', '::')
            if mod in ('lib',): mod = ''
            files[mod] = p
def strip_tests(text):
    i = text.find('#[cfg(test)]')
    return text if i < 0 else text[:i]
reexports = {}
libtext = open(os.path.join(root, 'lib.rs')).read()
for m in re.finditer(r'^pub use (\w+)::(\{[^}]*\}|\w+);', libtext, re.M):
    for item in m.group(2).strip('{}').split(','):
        item = item.strip()
        if item: reexports[item] = m.group(1)
graph = {}
for mod, p in files.items():
    if mod.endswith('tests') or mod == '': continue
    text = strip_tests(open(p).read())
    text = re.sub(r'//.*', '', text)
    deps = set()
    # crate::a::b paths, including inside use groups: expand `crate::{a, b::c}` roughly
    for m in re.finditer(r'crate::((?:[A-Za-z_][A-Za-z0-9_]*::)*)\{([^}]*)\}', text):
        base = m.group(1)
        for item in m.group(2).split(','):
            deps.add(base + item.strip())
    for m in re.finditer(r'crate::([A-Za-z_][A-Za-z0-9_:]*)', text):
        deps.add(m.group(1))
    # super:: paths
    parent = mod.rsplit('::', 1)[0] if '::' in mod else ''
    for m in re.finditer(r'\bsuper::([A-Za-z_][A-Za-z0-9_:]*)', text):
        deps.add((parent + '::' if parent else '') + m.group(1))
    targets = set()
    for dep in deps:
        parts = [x for x in dep.split('::') if x]
        if parts and parts[0] in reexports:
            parts = [reexports[parts[0]]] + parts
        best = None
        for i in range(len(parts), 0, -1):
            cand = '::'.join(parts[:i])
            if cand in files:
                best = cand; break
        if best and best != mod and not best.endswith('tests'):
            targets.add(best)
    graph[mod] = targets
# root re-exports: items used as crate::Foo resolve to '' (lib) — ignored.
# Tarjan SCC
index = {}; low = {}; stack = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def strong(v):
    index[v] = low[v] = c[0]; c[0] += 1; stack.append(v); on.add(v)
    for w in graph.get(v, ()):
        if w not in graph: continue
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: sccs.append(sorted(comp))
for v in graph:
    if v not in index: strong(v)
for s in sccs: print('CYCLE:', ' '.join(s))
if '-v' in sys.argv:
    for k in sorted(graph): print(k, '->', ' '.join(sorted(graph[k])))
print(len(sccs), 'cycles among', len(graph), 'files')
sys.exit(1 if sccs else 0)
