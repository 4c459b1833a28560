const SLUG_MAX = 40;

/**
 * svc's slug (SPEC §2.10 branch names): lowercase; every run of characters outside [a-z0-9]
 * becomes one '-'; no leading or trailing '-'; cut to 40 characters, then trailing '-' trimmed.
 * May return ''. Go lowercases rune by rune, so 'İ' is 'i' there, while JS's full case mapping
 * makes it "i̇" (two code points); it is mapped first so both agree.
 */
export function slug(s: string): string {
  const dashed = s
    .replace(/\u0130/g, 'i')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return dashed.length > SLUG_MAX ? dashed.slice(0, SLUG_MAX).replace(/-+$/, '') : dashed;
}
