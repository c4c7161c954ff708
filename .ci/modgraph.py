"""The runtime's module graph must have no cycle.

Builds the file-level dependency graph of a crate's `src` from every intra-crate path a file
names: `crate::`, `$crate::`, `self::`, `super::` (any number) and paths that start at a child
module the file declares, in `use` trees (nested groups, renames, globs) and in code. A path is
followed through re-exports (`pub use`, `pub(crate) use`, ...) to the file that defines the
item, so a facade `mod.rs` that only re-exports its children is no hop of its own, and a cycle
through one (`config -> budget -> budget::spill -> config`) is still seen. Test modules (files
named `tests`, and every `#[cfg(test)] mod`, inline or not) are left out; comments and the
contents of string and char literals are not read.

The rule: a file may use what its ancestor modules define (Rust scopes a module's children
inside it: `use super::Walk` in `validation/keywords.rs` is the module's own implementation
reading its own types); every other dependency, between siblings or across subtrees, must form
no cycle. So the cycles are looked for with the edges to an ancestor left out; `-v` prints the
graph with them marked `^`.

Prints every strongly connected component of more than one file; exits 1 if there is one.
Usage: python3 .ci/modgraph.py hermes-tools/src [-v]; `--self-test` first checks, on a small
crate it writes to a temporary folder, that the cycles this check exists for are found (one
through a facade's `pub use self::`) and that upward and test-only edges are not counted.
"""
import os
import re
import sys

IDENT = r'[A-Za-z_][A-Za-z0-9_]*'


def module_files(root):
    """Module path (`a::b`, '' for the crate root) -> file."""
    files = {}
    for d, _, names in os.walk(root):
        for name in names:
            if name.endswith('.rs'):
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)[:-3]
                if rel in ('lib', 'main'):
                    mod = ''
                else:
                    mod = rel[:-len('/mod')] if rel.endswith('/mod') else rel
                    mod = mod.replace('/', '::')
                files[mod] = path
    return files


def strip_literals(text):
    """The text without comments, and with every string and char literal emptied (`""`,
    `' '`): what a path search may read. Raw strings (`r#"..."#`), byte strings and escapes
    are handled; a lifetime (`'a`) is no literal."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith('/*', i):
                    depth, i = depth + 1, i + 2
                elif text.startswith('*/', i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif re.match(r'b?r#*"', text[i:i + 40]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'b?r(#*)"', text[i:])
            end = text.find('"' + m.group(1), i + m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == '\\' else 1
            i += 1
            out.append('""')
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^'\\\n])'", text[i:])
            if m:
                i += m.end()
                out.append("' '")
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def without_test_modules(code):
    """`code` without its `#[cfg(test)] mod name;` and `#[cfg(test)] mod name { ... }`."""
    pattern = re.compile(r'#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*([;{])')
    while True:
        m = pattern.search(code)
        if not m:
            return code
        end = m.end()
        if m.group(1) == '{':
            depth = 1
            while end < len(code) and depth:
                depth += {'{': 1, '}': -1}.get(code[end], 0)
                end += 1
        code = code[:m.start()] + code[end:]


def source(path):
    """The file's code: no comments, no literals' contents, no test modules."""
    return without_test_modules(strip_literals(open(path, encoding='utf-8').read()))


def split_top(text):
    """Splits `a, b::{c, d}, e` at its top-level commas."""
    parts, depth, cur = [], 0, ''
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def use_tree(prefix, tree):
    """(alias, path segments) for each leaf of a `use` tree."""
    tree = tree.strip()
    brace = tree.find('{')
    if brace >= 0 and tree.endswith('}'):
        head = [s for s in tree[:brace].split('::') if s]
        for part in split_top(tree[brace + 1:-1]):
            yield from use_tree(prefix + head, part)
        return
    alias = None
    m = re.match(r'(.*?)\s+as\s+(' + IDENT + r')$', tree)
    if m:
        tree, alias = m.group(1), m.group(2)
    segs = prefix + [s for s in tree.split('::') if s]
    if segs and segs[-1] == 'self':
        segs = segs[:-1]
    if not segs:
        return
    yield (alias or segs[-1], segs)


class Crate:
    def __init__(self, root):
        self.files = module_files(root)
        self.text = {mod: source(path) for mod, path in self.files.items()}
        self.children = {mod: set() for mod in self.files}
        for mod in self.files:
            if mod:
                parent = mod.rsplit('::', 1)[0] if '::' in mod else ''
                if parent in self.children:
                    self.children[parent].add(mod.rsplit('::', 1)[-1])
        # Each file's `use` statements: (is a re-export, alias, absolute segments).
        self.uses = {mod: list(self.parse_uses(mod)) for mod in self.files}
        self.reexports = {
            mod: {alias: segs for public, alias, segs in uses if public}
            for mod, uses in self.uses.items()
        }

    def parse_uses(self, mod):
        pattern = r'(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);'
        for m in re.finditer(pattern, self.text[mod]):
            for alias, segs in use_tree([], m.group(2)):
                absolute = self.absolute(mod, segs)
                if absolute is not None:
                    yield (m.group(1) is not None, alias, absolute)

    def absolute(self, mod, segs):
        """`segs` as seen from module `mod`, from the crate root; None outside the crate."""
        here = mod.split('::') if mod else []
        if segs[0] in ('crate', '$crate'):
            return segs[1:]
        if segs[0] == 'self':
            return here + segs[1:]
        if segs[0] == 'super':
            rest = list(segs)
            base = list(here)
            while rest and rest[0] == 'super':
                rest.pop(0)
                base = base[:-1]
            return base + rest
        if segs[0] in self.children.get(mod, ()):
            return here + segs
        return None

    def defining_file(self, segs, seen=0):
        """The module whose file defines what `segs` names, through re-exports."""
        for cut in range(len(segs), -1, -1):
            mod = '::'.join(segs[:cut])
            if mod in self.files:
                rest = segs[cut:]
                if rest and seen < 16:
                    target = self.reexports[mod].get(rest[0])
                    if target is not None and target != segs[:cut] + rest[:1]:
                        return self.defining_file(target + rest[1:], seen + 1)
                return mod
        return None

    def graph(self):
        graph = {}
        path = r'(?<![A-Za-z0-9_:])(\$?crate|self|super)((?:::' + IDENT + r')+)'
        for mod in self.files:
            if is_test(mod):
                continue
            deps = set()
            for public, _, segs in self.uses[mod]:
                if not public:
                    deps.add(self.defining_file(segs))
            code = re.sub(r'(pub(?:\s*\([^)]*\))?\s+)?use\s+[^;]+;', '', self.text[mod])
            for m in re.finditer(path, code):
                segs = [m.group(1)] + [s for s in m.group(2).split('::') if s]
                absolute = self.absolute(mod, segs)
                if absolute is not None:
                    deps.add(self.defining_file(absolute))
            for child in self.children.get(mod, ()):
                for m in re.finditer(r'(?<![A-Za-z0-9_:])' + child + r'((?:::' + IDENT + r')+)', code):
                    segs = [child] + [s for s in m.group(1).split('::') if s]
                    deps.add(self.defining_file(self.absolute(mod, segs)))
            graph[mod] = {d for d in deps if d is not None and d != mod and not is_test(d)}
        return graph


def is_test(mod):
    return mod.split('::')[-1] == 'tests' or '::tests::' in mod or mod.startswith('tests::')


def is_ancestor(ancestor, mod):
    """Whether module `ancestor` contains `mod` (the crate root contains every module)."""
    return ancestor == '' or mod.startswith(ancestor + '::')


def cycles(graph):
    """Tarjan's strongly connected components of more than one node."""
    sys.setrecursionlimit(10000)
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


SELF_TEST = {
    # config -> budget (a facade) -> budget::spill -> config: the circle `use self::` hid.
    'lib.rs': 'mod budget;\nmod config;\nmod validation;\n',
    'config.rs': 'use crate::budget::Spill;\n',
    'budget/mod.rs': 'mod spill;\npub(crate) use self::spill::Spill;\n',
    'budget/spill.rs': 'use crate::config::Config;\npub(crate) struct Spill;\n',
    # A parent and its child using each other, a test module, a string and a comment: no cycle.
    'validation/mod.rs': 'mod keywords;\nuse keywords::check;\npub(crate) struct Walk;\n'
                         '#[cfg(test)]\nmod tests { use crate::config::X; }\n'
                         'const S: &str = "crate::config::X"; // crate::config::Y\n',
    'validation/keywords.rs': 'use super::Walk;\npub(crate) fn check() {}\n',
}


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for name, text in SELF_TEST.items():
            os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(root, name), 'w', encoding='utf-8') as f:
                f.write(text)
        graph = Crate(root).graph()
        layered = {m: {d for d in deps if not is_ancestor(d, m)} for m, deps in graph.items()}
        found = cycles(layered)
    expected = [['budget::spill', 'config']]
    if found != expected or 'config' in graph['validation']:
        print(f'self-test failed: found {found}, expected {expected}; graph {graph}')
        sys.exit(1)
    print('self-test: the facade circle is found; upward, test and literal paths are not counted')


def main():
    if sys.argv[1] == '--self-test':
        self_test()
        return
    crate = Crate(sys.argv[1])
    graph = crate.graph()
    if '-v' in sys.argv:
        for mod in sorted(graph):
            names = sorted(('^' if is_ancestor(d, mod) else '') + (d or '(root)') for d in graph[mod])
            print(mod or '(root)', '->', ' '.join(names))
    layered = {mod: {d for d in deps if not is_ancestor(d, mod)} for mod, deps in graph.items()}
    upward = sum(len(graph[mod]) - len(layered[mod]) for mod in graph)
    found = cycles(layered)
    for component in found:
        print('CYCLE:', ' '.join(m or '(root)' for m in component))
    edges = sum(len(deps) for deps in graph.values())
    print(f'{len(found)} cycles among {len(graph)} files ({edges} edges, {upward} of them to an ancestor)')
    sys.exit(1 if found else 0)


if __name__ == '__main__':
    main()
