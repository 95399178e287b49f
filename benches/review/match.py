#!/usr/bin/env python3
"""match.py DIR FINDINGS [-v]: marks found by findings on the same file within 3 lines."""
import sys, re, os
d, out = sys.argv[1], sys.argv[2]
v = '-v' in sys.argv
marks = []
for ln in open(os.path.join(d, 'marks.txt')):
    p = ln.rstrip('\n').split('\t')
    if len(p) < 5 or not p[0].startswith('M'):
        continue
    path, line = p[2].rsplit(':', 1)
    marks.append(dict(id=p[0], short=p[1], path=path.lstrip('./'), line=int(line), cls=p[3], nb=p[4].strip() == 'nb', why=p[5] if len(p) > 5 else ''))
finds = []
for ln in open(out):
    m = re.match(r'(\S+) (.+?):(\d+):(\d+): (T\d+) (.*)', ln)
    if m:
        finds.append(dict(short=m[1], path=m[2].lstrip('./'), line=int(m[3]), rule=m[5], msg=m[6]))
used = set()
found = []
for mk in marks:
    hit = [i for i, f in enumerate(finds) if f['short'] == mk['short'] and f['path'] == mk['path'] and (abs(f['line'] - mk['line']) <= 3 or (f['rule'] == 'T105' and 0 <= f['line'] - mk['line'] <= 9))]
    exact = [i for i in hit if finds[i]['line'] == mk['line']]
    used.update(hit)
    mk['hit'] = hit
    mk['exact'] = bool(exact)
    if hit:
        found.append(mk)
nb = [m for m in marks if m['nb']]
print(f"{d}: found {len(found)} of {len(marks)}; nb {sum(1 for m in found if m['nb'])} of {len(nb)}; findings {len(finds)}, unmatched {len(finds) - len(used)}")
if v:
    for mk in marks:
        tag = 'FOUND' if mk['hit'] else 'miss '
        near = '' if mk['exact'] or not mk['hit'] else ' (near: ' + ','.join(str(finds[i]['line']) for i in mk['hit']) + ')'
        rules = ','.join(sorted({finds[i]['rule'] for i in mk['hit']}))
        print(f"  {tag} {mk['id']:>4} {'nb' if mk['nb'] else 'b '} c{mk['cls']} {mk['short']} {mk['path']}:{mk['line']} {rules}{near}  {mk['why'][:90]}")
    for i, f in enumerate(finds):
        if i not in used:
            print(f"  NOMARK {f['short']} {f['path']}:{f['line']} {f['rule']} {f['msg'][:200]}")
