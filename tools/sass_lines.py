#!/usr/bin/env python3
"""Static SASS instructions per source line of a kernel, from `nvdisasm -g -c`.

Where ncu's counts need a GPU, the compiled code alone shows what a source
line costs in instructions and which opcodes: a line that compiles to three
instructions where one would do, a loop unrolled into thousands of
instructions, collective slow paths around shuffles. No GPU is needed:

  nvcc <the build's flags> -lineinfo -cubin kernels/X.cu -o X.cubin
  nvdisasm -g -c X.cubin > X.sass
  tools/sass_lines.py X.sass --kernel wave_kernel [--top N]

A machine without cuobjdump or nvdisasm can take them from PyPI's
`nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` wheels (`pip download
--no-deps`, then unzip: the binaries are under nvidia/cu*/bin).
"""
import argparse
import collections
import re


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('sass', help='nvdisasm -g -c output')
    ap.add_argument('--kernel', default='', help='only functions whose name contains this')
    ap.add_argument('--top', type=int, default=25)
    args = ap.parse_args()

    counts = collections.Counter()
    opcodes = collections.defaultdict(collections.Counter)
    total = collections.Counter()
    func, where = None, None
    with open(args.sass) as f:
        for line in f:
            m = re.match(r'^\s*(_Z\S+|[A-Za-z_]\w*):\s*$', line)
            if m and not line.startswith('.'):
                func, where = m.group(1), None
                continue
            if func is None or args.kernel not in func:
                continue
            m = re.search(r'//## File "([^"]+)", line (\d+)', line)
            if m:
                where = (m.group(1).split('/')[-1], int(m.group(2)))
                continue
            m = re.match(r'\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
            if m:
                total[func] += 1
                if where:
                    counts[where] += 1
                    opcodes[where][m.group(1).split('.')[0]] += 1
    if not total:
        print('no instructions found (is the kernel name right, and the cubin built with -lineinfo?)')
        return
    for name, n in total.most_common():
        print(f'{n:7d} instructions  {name}')
    print()
    for (path, line), n in counts.most_common(args.top):
        ops = ', '.join(f'{op} {c}' for op, c in opcodes[(path, line)].most_common(4))
        print(f'{path:>32s} {line:5d} {n:6d}  {ops}')


if __name__ == '__main__':
    main()
