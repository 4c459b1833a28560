/** Module specifiers a TypeScript file names: static imports and re-exports, side-effect and dynamic imports. */
export function importSpecifiers(text: string): string[] {
  const found: string[] = [];
  const pattern =
    /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"`]([^'"`]+)['"`]\s*\)|\brequire\(\s*['"`]([^'"`]+)['"`]\s*\)/g;
  for (const m of text.matchAll(pattern)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec !== undefined) found.push(spec);
  }
  return found;
}
