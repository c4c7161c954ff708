"""The front door stays small: what a newcomer meets first has bounds, checked on every run.

- README.md: at most 350 lines (its Rust blocks run as the `tests` crate's doctests);
- hermes-tools/src: at most 15 entries (the floor plan: a folder a stage of a tool's life);
- the crate root: at most 13 public modules (13 since `search`, issue 23) and 20 public names (re-exports and exported
  macros; `__private`, the macros' ABI, is not public API).

Usage: python3 .ci/frontdoor.py (from the workspace root). Exits 1 naming what is over.
"""
import os
import re
import sys

LIMITS = {'README lines': 350, 'entries in hermes-tools/src': 15, 'public modules': 13, 'root names': 20}


def root_items(lib):
    text = open(lib, encoding='utf-8').read()
    text = text[:text.index('pub mod __private')]
    text = re.sub(r'//[^\n]*', '', text)
    modules = re.findall(r'^pub mod (\w+)\s*[;{]', text, re.M)
    names = []
    for m in re.finditer(r'^pub use ([^;]+);', text, re.M):
        tree = m.group(1)
        inner = tree[tree.index('{') + 1:tree.rindex('}')] if '{' in tree else tree
        names += [part.strip().split('::')[-1].split(' as ')[-1] for part in inner.split(',') if part.strip()]
    macros = []
    for d, _, files in os.walk(os.path.dirname(lib)):
        for f in files:
            if f.endswith('.rs'):
                src = open(os.path.join(d, f), encoding='utf-8').read()
                for m in re.finditer(r'#\[macro_export\]\s*macro_rules!\s*(\w+)', src):
                    if not m.group(1).startswith('__'):
                        macros.append(m.group(1) + '!')
    return modules, names + macros


def main():
    modules, names = root_items('hermes-tools/src/lib.rs')
    counts = {
        'README lines': sum(1 for _ in open('README.md', encoding='utf-8')),
        'entries in hermes-tools/src': len(os.listdir('hermes-tools/src')),
        'public modules': len(modules),
        'root names': len(names),
    }
    over = False
    for what, count in counts.items():
        mark = 'ok' if count <= LIMITS[what] else 'OVER'
        over |= mark == 'OVER'
        print(f'{what}: {count} (at most {LIMITS[what]}) {mark}')
    print('public modules:', ' '.join(modules))
    print('root names:', ' '.join(names))
    sys.exit(1 if over else 0)


if __name__ == '__main__':
    main()
