#!/usr/bin/env python3
"""Check that splitting README.md into docs/*.md lost nothing.

Usage: check_docs_split.py OLD_README  (e.g. git show 2e931d0:README.md > /tmp/old.md)

Every non-blank, non-heading line of the old README must appear, as a line, in the new
README.md or in some docs/*.md. Lines are compared after a normalisation that undoes what
the split did on purpose: cross-references ("Real hardware") became links
([Real hardware](drivers.md#real-hardware)), image paths lost their docs/ prefix, and
indentation may differ. Prints the lines it cannot find; exits 1 when there are any.
"""
import glob
import os
import re
import sys


def normalise(line):
    """The line with link targets, quotes, brackets and outer blanks taken away."""
    line = re.sub(r'\]\((?:\.\./)?(?:docs/)?[a-z0-9-]*(?:\.md)?(?:#[a-z0-9-]+)?\)', ']', line)
    line = line.replace('docs/img/', 'img/')
    line = re.sub(r'["\[\]]', '', line)
    return ' '.join(line.split())


def main():
    """Compare the old README's lines with the new README and docs/."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    old = open(sys.argv[1], encoding='utf-8').read().split('\n')
    have = set()
    for path in [os.path.join(root, 'README.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md'))):
        for line in open(path, encoding='utf-8').read().split('\n'):
            have.add(normalise(line))
    checked, missing = 0, []
    for number, line in enumerate(old, 1):
        if not line.strip() or re.match(r'^#+ ', line):
            continue
        checked += 1
        if normalise(line) not in have:
            missing.append((number, line))
    for number, line in missing:
        print(f'README.md:{number}: not found: {line}')
    print(f'{checked} lines checked, {len(missing)} not found')
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
