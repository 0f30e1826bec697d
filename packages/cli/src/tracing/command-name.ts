/**
 * The command span's name: the command path, `rcs upload`, `rcs sessions get`, and for
 * `rcs export` the exports asked for (`rcs export all`), a small set of names, as span names
 * should be. Never a file, an id or another value a user typed.
 */
export function commandSpanName(
  command: { name(): string; parent: unknown },
  args: readonly unknown[],
): string {
  const path: string[] = [];
  for (let c: { name(): string; parent: unknown } | null = command; c; c = c.parent as typeof c) {
    path.unshift(c.name());
  }
  const name = path.join(' ');
  if (name !== 'rcs export') return name;
  const resources = Array.isArray(args[0]) ? (args[0] as unknown[]) : [];
  const plain = resources.every((r) => typeof r === 'string' && /^[a-z-]{1,40}$/.test(r));
  return plain && resources.length > 0 ? `${name} ${resources.join(' ')}` : name;
}
