#!/usr/bin/env python3
"""Lists the functions under host/ and kernels/ longer than a limit (default 150 lines, from the first line of the signature to
the closing brace) and fails when one is not in the allow-list or has grown past the length recorded there.

The project keeps each command's top function a short script of named phases; the allow-list names the functions
still over the limit while they are being split, with their length when they were listed, so the check holds today
and tightens as entries are removed.

usage: check_function_length.py [--root DIR] [--limit N] [--allow FILE] [--list] [--self-test]
  --list       print every function over the limit (and the allow-list's stale entries) without failing
  --self-test  read a planted source (default template arguments, members, arrays by reference) and check the names
"""
import argparse
import bisect
import os
import re
import sys

DIRS = ('host', 'kernels')  # the folders checked: the host code and the device code
CONTAINER = re.compile(r'^\s*(template\s*<.*>\s*)?(namespace\b|extern\s+"C"|(class|struct|union|enum)\b)', re.S)


def strip(text):
    """The source with comments, string and character literals and preprocessor lines blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == '#':  # a preprocessor line, with its continuations
            while i < n and text[i] != '\n':
                if text[i] == '\\' and i + 1 < n and text[i + 1] == '\n':
                    out.append('\n')
                    i += 2
                    continue
                i += 1
            continue
        if c == '\n':
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith('//', i):
            while i < n and text[i] != '\n':
                i += 1
            continue
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(''.join(ch if ch == '\n' else ' ' for ch in text[i:j]))
            i = j
            continue
        m = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + ''.join('\n' for ch in text[i:j] if ch == '\n'))
            i = j
            continue
        if c in '"\'':
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator (1'000)
                out.append(' ')
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def drop_template_heads(head):
    """The head with every `template <...>` blanked, brackets balanced (default arguments, nested templates and
    parenthesised expressions inside it included), so that a default argument's '=' reads as no initialiser."""
    out, i = [], 0
    for m in re.finditer(r'\btemplate\s*<', head):
        if m.start() < i:
            continue
        out.append(head[i:m.start()])
        depth, paren, j = 1, 0, m.end()
        while j < len(head) and depth:
            ch = head[j]
            if ch == '(':
                paren += 1
            elif ch == ')':
                paren = max(0, paren - 1)
            elif ch == '<' and not paren:
                depth += 1
            elif ch == '>' and not paren:
                depth -= 1
            j += 1
        out.append(' ')
        i = j
    out.append(head[i:])
    return ''.join(out)


def function_name(head):
    """The qualified name before the parameter list of a definition's head, or None when the head is no function."""
    head = drop_template_heads(head)
    head = re.sub(r'\b(public|private|protected)\s*:', ' ', head)
    m = re.search(r'\(\s*[&*]\s*((?:\w+::)*\w+)\s*\(', head)  # returning a reference to an array: T (&f(...))[N]
    if m and '=' not in head[:m.start()]:
        return m.group(1)
    m = re.search(r'\b(operator\s*(\(\)|[^\s(\w]+|\w+))\s*\(', head)
    if m:
        pre = head[:m.start()]
        q = re.search(r'((?:\w+::)*)$', pre)
        return (q.group(1) if q else '') + m.group(1).replace(' ', '')
    depth = 0
    for k, ch in enumerate(head):  # the first '(' outside template brackets
        if ch == '<':
            depth += 1
        elif ch == '>':
            depth = max(0, depth - 1)
        elif ch == '(' and depth == 0:
            pre = head[:k]
            if '=' in pre or '[' in pre:  # an initialiser or a lambda, not a definition
                return None
            q = re.search(r'([\w:~]+)\s*$', pre)
            if not q or q.group(1) in ('if', 'for', 'while', 'switch', 'catch', 'return', 'sizeof', 'decltype'):
                return None
            return q.group(1)
    return None


def functions(path, source=None):
    """(name, first line, last line) of every function defined in the file (or in `source`, when given), members and
    namespaced ones included."""
    if source is None:
        with open(path, encoding='utf-8', errors='replace') as f:
            source = f.read()
    text = strip(source)
    found = []
    stack = []  # per open brace: 'container', or ('function', name, first line), or 'block' (inside a function)
    head_start = 0
    lines = [0]  # the offset each line starts at
    for k, ch in enumerate(text):
        if ch == '\n':
            lines.append(k + 1)
    def line_of(off):
        return bisect.bisect_right(lines, off)

    def in_function():
        return any(s == 'block' or (isinstance(s, tuple) and s[0] == 'function') for s in stack)

    for k, ch in enumerate(text):
        if ch == '{':
            if in_function():
                stack.append('block')
            else:
                head = text[head_start:k]
                name = None if CONTAINER.match(head) else function_name(head)
                if name:
                    off = head_start + (len(head) - len(head.lstrip()))
                    classes = [s[1] for s in stack if isinstance(s, tuple) and s[0] == 'class']
                    stack.append(('function', '::'.join(classes + [name]), line_of(off)))
                elif CONTAINER.match(head) and not re.match(r'^\s*(template\s*<.*>\s*)?enum\b', head, re.S):
                    m = re.search(r'\b(class|struct|union)\s+(\w+)', head)  # members are named Class::member
                    stack.append(('class', m.group(2)) if m else 'container')
                else:
                    stack.append('block')  # an initialiser, an enum: no functions inside
            head_start = k + 1
        elif ch == '}':
            top = stack.pop() if stack else 'container'
            if isinstance(top, tuple) and top[0] == 'function':
                found.append((top[1], top[2], line_of(k)))
            head_start = k + 1
        elif ch == ';' and not in_function():
            head_start = k + 1
    return found


def scan(root, limit):
    over = {}
    walk = [w for top in DIRS for w in sorted(os.walk(os.path.join(root, top)))]
    for d, _, files in walk:
        for fn in sorted(files):
            if not fn.endswith(('.cpp', '.h', '.cu', '.cuh')):
                continue
            p = os.path.join(d, fn)
            rel = os.path.relpath(p, root)
            seen = {}
            for name, a, b in functions(p):
                key = f'{rel}:{name}'
                seen[key] = seen.get(key, 0) + 1
                if seen[key] > 1:  # overloads: the second and later get their ordinal
                    key += f'#{seen[key]}'
                if b - a + 1 > limit:
                    over[key] = b - a + 1
    return over


def read_allow(path):
    allow = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for ln in f:
                ln = ln.split('#', 1)[0] if ln.lstrip().startswith('#') else ln
                parts = ln.split()
                if len(parts) == 2:
                    allow[parts[0]] = int(parts[1])
    return allow


SELF_TEST = '''namespace n {
template <bool kA, uint32_t F = kAll, class G = std::vector<int>>
__device__ inline float f(int x) {
    return x;
}
template <int N = (3 > 2)>
struct S {
    void g() {
    }
};
const float (&table())[2] {
    static const float t[2] = {0, 1};
    return t;
}
int v = h(1);
}
'''


def self_test():
    """The heads the reader must know: default template arguments (nested, parenthesised), members of a template
    class, a function returning a reference to an array; an initialiser is no function."""
    got = [(name, a, b) for name, a, b in functions(None, SELF_TEST)]
    want = [('f', 2, 5), ('S::g', 8, 9), ('table', 11, 14)]
    if got != want:
        print(f'self-test: read {got}, want {want}', file=sys.stderr)
        return 1
    print('self-test: ok')
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument('--root', default=os.path.dirname(here))
    ap.add_argument('--limit', type=int, default=150)
    ap.add_argument('--allow', default=os.path.join(here, 'function_length_allow.txt'))
    ap.add_argument('--list', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    over = scan(a.root, a.limit)
    allow = read_allow(a.allow)
    bad = []
    for key, n in sorted(over.items()):
        if key not in allow:
            bad.append(f'{key} {n} lines: over {a.limit}, not in the allow-list')
        elif n > allow[key]:
            bad.append(f'{key} {n} lines: grew past its allowed {allow[key]}')
        print(f'{key} {n}')
    for key in sorted(set(allow) - set(over)):
        print(f'note: {key} is within {a.limit} lines now: remove it from {os.path.basename(a.allow)}')
    if a.list:
        return 0
    for b in bad:
        print('error: ' + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
