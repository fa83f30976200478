#!/usr/bin/env python3
"""Lists the functions of scankd's C, C++ and CUDA sources longer than a limit.

A function is found by its opening brace at the start of a line or at the
end of a signature line and closed by the matching brace (braces in strings,
characters and comments are skipped). Usage:
    tools/long_functions.py [--limit N] [--check] [PATH ...]
With --check it exits 1 when any is longer than the limit (CI's test)."""
import argparse
import os
import re
import sys

EXTS = ('.c', '.h', '.cu', '.cuh', '.cpp')


def strip(line, state):
    """The line without comments, strings and characters; state carries /* */."""
    out, i = [], 0
    while i < len(line):
        if state['comment']:
            j = line.find('*/', i)
            if j < 0:
                return ''.join(out)
            state['comment'], i = False, j + 2
        elif line.startswith('//', i):
            break
        elif line.startswith('/*', i):
            state['comment'], i = True, i + 2
        elif line[i] in '"\'':
            q, i = line[i], i + 1
            while i < len(line) and line[i] != q:
                i += 2 if line[i] == '\\' else 1
            i += 1
        else:
            out.append(line[i])
            i += 1
    return ''.join(out)


SCOPE = re.compile(r'\b(namespace|struct|class|union|enum)\b|extern\s*$')
ATTRS = ('__launch_bounds__', '__attribute__', '__align__', 'alignas', 'decltype')
CALL = re.compile(r'([A-Za-z_~][\w:~]*)\s*\(')


def functions(path):
    """(name, first line, last line) of every function body in path."""
    lines = open(path, encoding='utf-8', errors='replace').read().split('\n')
    state, stack, text, text_line = {'comment': False}, [], '', 0
    for n, raw in enumerate(lines, 1):
        code = strip(raw, state)
        if code.lstrip().startswith('#'):
            continue
        for ch in code:
            if ch == '{':
                inside_fn = any(kind == 'fn' for kind, _, _ in stack)
                head = text.strip()
                calls = [c for c in CALL.finditer(head) if c.group(1) not in ATTRS]
                m = calls[0] if calls else None
                if inside_fn:
                    stack.append(('block', None, n))
                elif SCOPE.search(head.split('(')[0]) or head.endswith('"C"') or not m or '=' in head.split('(')[0]:
                    stack.append(('scope', None, n))
                else:
                    stack.append(('fn', m.group(1), text_line or n))
                text, text_line = '', 0
            elif ch == '}':
                if stack:
                    kind, name, first = stack.pop()
                    if kind == 'fn':
                        yield name, first, n
                text, text_line = '', 0
            elif ch == ';':
                text, text_line = '', 0
            else:
                if not text.strip() and not ch.isspace():
                    text_line = n
                text += ch
        text += ' '


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--limit', type=int, default=100)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('paths', nargs='*', default=['src', 'cuda', 'cli', 'tools/profiler'])
    args = ap.parse_args()
    found = []
    for root in args.paths:
        walk = [(root, [], [os.path.basename(root)])] if os.path.isfile(root) else os.walk(root)
        for d, _, files in walk:
            for f in sorted(files):
                p = root if os.path.isfile(root) else os.path.join(d, f)
                if p.endswith(EXTS):
                    for name, a, b in functions(p):
                        if b - a + 1 > args.limit:
                            found.append((b - a + 1, p, a, name))
    for length, p, a, name in sorted(found, reverse=True):
        print(f'{length:5d}  {p}:{a}  {name}')
    if args.check and found:
        print(f'{len(found)} functions longer than {args.limit} lines', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
