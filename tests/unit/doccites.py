#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Docs cite only what the repository has.

Every repository path a document names in backquotes (module/..., docs/...,
tests/..., ...) must exist, and a function named right after a source file
(`module/stream.c` `magnet_stream_reset`) must appear in that file. The
documents: README.md, procfs-commands.md, docs/*.md, except the generated
ones (docs/reliability.md keeps what earlier runs wrote). Prints each
citation that does not resolve; exits 1 if any.

usage: doccites.py [TOP]
"""
import glob
import os
import re
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', '..')
DIRS = ('module/', 'userspace/', 'tests/', 'scripts/', 'docs/', 'python/', 'bench/', 'examples/')
PATH = re.compile(r'`((?:%s)[\w./+-]*)`' % '|'.join(re.escape(d) for d in DIRS))
PAIR = re.compile(r'`((?:%s)[\w./-]+\.(?:c|h|py|sh))`((?:,?\s+`\w+(?:\(\))?`)+)' %
                  '|'.join(re.escape(d) for d in DIRS))
# a path that names what a run writes, not a file of the repository
GENERATED = ('bench/results/', 'build/')


def main():
    docs = [os.path.join(TOP, 'README.md'), os.path.join(TOP, 'procfs-commands.md')]
    docs += sorted(glob.glob(os.path.join(TOP, 'docs', '*.md')))
    bad = 0
    for doc in docs:
        if doc.endswith('reliability.md'):
            continue
        text = open(doc, encoding='utf-8').read()
        name = os.path.relpath(doc, TOP)
        for m in PATH.finditer(text):
            p = m.group(1).rstrip('.,:')
            if p.startswith(GENERATED) or any(c in p for c in '*<'):
                continue
            if not os.path.exists(os.path.join(TOP, p)):
                print(f'{name}: {p}: no such file in the repository')
                bad += 1
        for m in PAIR.finditer(text):
            path = os.path.join(TOP, m.group(1))
            if not os.path.exists(path):
                continue
            src = open(path, encoding='utf-8', errors='replace').read()
            for f in re.findall(r'`(\w+)(?:\(\))?`', m.group(2)):
                if not re.search(r'\b%s\b' % re.escape(f), src):
                    print(f'{name}: {m.group(1)} has no {f}')
                    bad += 1
    print(f'doccites: {len(docs)} documents, {bad} citations that do not resolve')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
