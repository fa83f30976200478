#!/usr/bin/env python3
"""Per-source-line totals of an ncu source page, for kernels built with -lineinfo.

ncu's `--page source --csv --print-source sass` lists each SASS instruction
with its executed count and warp-stall samples, but not its source line;
`nvdisasm -g -c` of the same cubin gives each instruction's line. This joins
the two by offset in the function (checking that the opcodes agree) and
prints the lines with the most stall samples.

  nvcc <the build's flags> -lineinfo -cubin kernels/X.cu -o X.cubin
  nvdisasm -g -c X.cubin > X.sass            # on the GPU machine
  ncu ... -o rep <program>; ncu --import rep.ncu-rep --page source --csv \
      --print-source sass | gzip > src.csv.gz
  tools/ncu_lines.py X.sass src.csv.gz [--top N] [--kernel NAME]
"""
import argparse
import collections
import csv
import gzip
import re


def opcode(text):
    words = text.strip().split()
    return words[1] if words and words[0].startswith('@') else (words[0] if words else '')


def read_sass(path):
    """{function name: {offset: ((file, line), opcode)}} from nvdisasm -g output."""
    funcs, name, where = {}, None, None
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            m = re.match(r'^(_Z\S+|[A-Za-z_]\w*):$', line)
            if m and not line.startswith('.'):
                name, where = m.group(1), None
                funcs[name] = {}
                continue
            if line.startswith('//-----'):
                name = None
            m = re.search(r'//## File "([^"]+)", line (\d+)', line)
            if m and name:
                where = (m.group(1).split('/')[-1], int(m.group(2)))
                continue
            m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?);', line)
            if m and name:
                funcs[name][int(m.group(1), 16)] = (where, opcode(m.group(2)))
    return funcs


def read_ncu(path):
    """[(kernel name, rows)], each row (address, opcode, stall samples, executed)."""
    opener = gzip.open if path.endswith('.gz') else open
    kernels, header = [], None
    with opener(path, 'rt') as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == 'Kernel Name':
                kernels.append((row[1], []))
            elif row[0] == 'Address':
                header = row
            elif row[0].startswith('0x') and kernels and header:
                samples = int(row[header.index('Warp Stall Sampling (All Samples)')] or 0)
                executed = int(row[header.index('Instructions Executed')] or 0)
                kernels[-1][1].append((int(row[0], 16), opcode(row[1]), samples, executed))
    return kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('sass')
    ap.add_argument('ncu_csv')
    ap.add_argument('--top', type=int, default=30)
    ap.add_argument('--kernel', default='', help='only kernels whose name contains this')
    ap.add_argument('--by', choices=('stalls', 'executed'), default='stalls',
                    help='order the lines by stall samples (default) or executed instructions')
    args = ap.parse_args()
    funcs = read_sass(args.sass)
    for kernel, rows in read_ncu(args.ncu_csv):
        if args.kernel not in kernel or not rows:
            continue
        base = kernel.split('(')[0].split('::')[-1]
        matches = [n for n in funcs if base in n]
        if len(matches) != 1:
            print(f'== {kernel}: {len(matches)} functions in the SASS match "{base}"; skipped')
            continue
        lines = funcs[matches[0]]
        start = rows[0][0]
        totals = collections.defaultdict(lambda: [0, 0])
        mismatched = 0
        for address, op, samples, executed in rows:
            entry = lines.get(address - start)
            if not entry or entry[1] != op:
                mismatched += 1
                key = ('(unmatched)', 0)
            else:
                key = entry[0] or ('(no line)', 0)
            totals[key][0] += samples
            totals[key][1] += executed
        all_samples = sum(t[0] for t in totals.values()) or 1
        all_executed = sum(t[1] for t in totals.values()) or 1
        print(f'== {kernel}: {len(rows)} instructions ({mismatched} not matched to the SASS, e.g. from another build), '
              f'{all_executed} executed, {all_samples} stall samples')
        column = 0 if args.by == 'stalls' else 1
        for (file, line), (samples, executed) in sorted(totals.items(), key=lambda t: -t[1][column])[:args.top]:
            print(f'  {file:32s} {line:5d}  stall samples {100 * samples / all_samples:5.1f}%  '
                  f'executed {100 * executed / all_executed:5.1f}%')


if __name__ == '__main__':
    main()
