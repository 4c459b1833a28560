#!/usr/bin/env python3
"""Adds lock entries for optional platform packages that the local registry mirror does not serve.

npm leaves a package out of package-lock.json when the registry answers 404 for it, and `npm ci`
then refuses the lock as out of sync. Each of these packages is an optional, platform-specific
build (another OS, CPU or libc), which npm skips on this machine without fetching it, so an entry
naming its version and platform is all the lock needs. Run after `npm install` changes the lock.
"""
import json
import re
import sys

PARENTS = {
    'node_modules/@biomejs/biome': '@biomejs/cli-',
    'node_modules/rollup': '@rollup/rollup-',
}
OS = {'android': 'android', 'darwin': 'darwin', 'linux': 'linux', 'win32': 'win32', 'freebsd': 'freebsd', 'openbsd': 'openbsd', 'openharmony': 'openharmony'}

def platform(name: str, prefix: str) -> dict:
    rest = name[len(prefix):]
    parts = rest.split('-')
    os_name = parts[0]
    cpu = parts[1] if len(parts) > 1 else ''
    cpu = {'arm': 'arm', 'ia32': 'ia32'}.get(cpu, cpu)
    out = {'cpu': [cpu], 'os': [OS.get(os_name, os_name)]}
    tail = '-'.join(parts[2:])
    if 'musl' in tail:
        out['libc'] = ['musl']
    elif 'gnu' in tail and os_name == 'linux':
        out['libc'] = ['glibc']
    return out

def main(path: str) -> None:
    lock = json.load(open(path))
    packages = lock['packages']
    added = 0
    for parent, prefix in PARENTS.items():
        entry = packages.get(parent)
        if not entry:
            continue
        for dep, version in (entry.get('optionalDependencies') or {}).items():
            key = f'node_modules/{dep}'
            if key in packages or not dep.startswith(prefix):
                continue
            item = {'version': re.sub(r'^[~^]', '', version), 'dev': True, 'optional': True, **platform(dep, prefix)}
            packages[key] = dict(sorted(item.items()))
            added += 1
    lock['packages'] = dict(sorted(packages.items(), key=lambda kv: (kv[0] != '', kv[0])))
    with open(path, 'w') as f:
        json.dump(lock, f, indent=2)
        f.write('\n')
    print(f'added {added} lock entries')

main(sys.argv[1] if len(sys.argv) > 1 else 'package-lock.json')
