/**
 * App names as grants, policies and windows spell them, brought to one form before anything
 * compares them: case folded, ".desktop" dropped, and a reverse-DNS id ("org.xfce.mousepad")
 * also known by its last part ("mousepad"). A policy's deny list matches every form, so
 * "xterm" denied also denies "XTerm", "xterm.desktop" and "org.example.xterm".
 *
 * Interpreters and shells are never an app: a grant on "python3" would grant whatever any
 * Python script draws, whatever WM_CLASS it sets — so they can't be granted by name, and a
 * window is never matched by an interpreter executable.
 */

/** Lowercase, trimmed, without a ".desktop" suffix. */
export function normalizeAppName(name: string): string {
  return name.trim().toLowerCase().replace(/\.desktop$/, '');
}

/** Every form a name may be matched under: itself, and a reverse-DNS id's last part. */
export function appNameForms(name: string): string[] {
  const normal = normalizeAppName(name);
  const parts = normal.split('.');
  const reverseDns = parts.length >= 3 && parts.every((part) => /^[a-z0-9_-]+$/.test(part));
  return reverseDns ? [normal, parts.at(-1)!] : [normal];
}

const INTERPRETERS = new RegExp(
  '^(?:' +
    [
      'python[0-9.]*(?:-config|m|d)?', 'pypy[0-9.]*', 'ipython[0-9.]*', 'node(?:js)?', 'deno', 'bun', 'npx', 'tsx',
      'java', 'javaw', 'jshell', 'perl[0-9.]*', 'ruby[0-9.]*', 'irb', 'php[0-9.]*(?:-cli)?', 'lua(?:jit)?[0-9.]*',
      'tclsh[0-9.]*', 'wish[0-9.]*', 'expect', 'guile[0-9.]*', 'racket', 'sbcl', 'clisp', 'ghci', 'runghc', 'erl', 'escript',
      'elixir', 'iex', 'julia', 'r', 'rscript', 'octave(?:-cli)?', 'scala', 'groovy', 'kotlin', 'dotnet', 'mono', 'pwsh', 'powershell',
      'osascript', 'awk', 'gawk', 'mawk', 'nawk', 'sed', 'busybox', 'toybox',
      'sh', 'bash', 'dash', 'zsh', 'fish', 'ksh', 'mksh', 'pdksh', 'csh', 'tcsh', 'rbash', 'ash', 'elvish', 'nu', 'xonsh',
      'env', 'xargs', 'nohup', 'setsid', 'nice', 'timeout', 'stdbuf', 'su', 'sudo', 'doas', 'pkexec', 'runuser', 'chroot',
      'unshare', 'nsenter', 'script', 'screen', 'tmux', 'gdb', 'strace', 'ltrace', 'valgrind', 'wine[0-9]*', 'qemu-.*',
    ].join('|') +
    ')$',
);

/** True for interpreters, shells and command runners, by name or executable path. */
export function isInterpreter(nameOrPath: string): boolean {
  const base = nameOrPath.split('/').pop() ?? nameOrPath;
  return INTERPRETERS.test(normalizeAppName(base));
}

function globToRegExp(pattern: string): RegExp {
  const escaped = normalizeAppName(pattern).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Whether any form of `name` matches any of the glob patterns ("*" is any run of characters). */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  const forms = appNameForms(name);
  return patterns.some((pattern) => {
    const re = globToRegExp(pattern);
    return forms.some((form) => re.test(form));
  });
}
