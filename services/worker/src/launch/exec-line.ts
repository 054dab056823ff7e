/**
 * Exec lines of .desktop files, split per the Desktop Entry spec into an argument vector, with
 * the field codes (%f, %u, …) dropped: an app is started with no files.
 */
const STRING_ESCAPES: Record<string, string> = { s: ' ', n: '\n', t: '\t', r: '\r', '\\': '\\' };

/** An Exec value as an argument vector, without field codes. */
export function splitExec(exec: string): string[] {
  const unescaped = exec.replace(/\\([sntr\\])/g, (_m, c: string) => STRING_ESCAPES[c]!);
  const args: string[] = [];
  let current = '';
  let inToken = false;
  let quoted = false;
  for (let i = 0; i < unescaped.length; i++) {
    const c = unescaped[i]!;
    if (quoted) {
      if (c === '\\' && i + 1 < unescaped.length) current += unescaped[++i]!;
      else if (c === '"') quoted = false;
      else current += c;
    } else if (c === '"') {
      quoted = inToken = true;
    } else if (c === ' ' || c === '\t') {
      if (inToken) args.push(current);
      current = '';
      inToken = false;
    } else {
      current += c;
      inToken = true;
    }
  }
  if (inToken) args.push(current);
  // %% is a literal %; every other field code stands for files, URLs, the icon or the name.
  // A token that was only field codes goes; an explicit "" stays.
  return args.flatMap((arg) => {
    const stripped = arg.replace(/%(.)/g, (_m, c: string) => (c === '%' ? '%' : ''));
    return stripped === '' && arg !== '' ? [] : [stripped];
  });
}
