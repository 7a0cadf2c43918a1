/**
 * Files no tool reads, whatever a flag opens (SECURITY.md, "Files a tool can never read"): the kernel's view of
 * processes and devices, where `/proc/self/environ` shows the server's own variables. The daemon adds the server's
 * own files and judges uploads by where a file really is; this is the check for file: URLs, which the browser opens.
 */
export const SYSTEM_DIRS: readonly string[] = ['/proc', '/sys', '/dev'];

/** A POSIX path with its repeated slashes folded and no trailing one ("//proc/" → "/proc"). */
function tidy(path: string): string {
  return path.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
}

function under(dir: string, path: string): boolean {
  const d = tidy(dir);
  return path === d || path.startsWith(d === '/' ? '/' : `${d}/`);
}

/** Why a file: URL may not be opened, or undefined: it names the kernel's files or one of `protectedPaths`. */
export function fileUrlRefusal(url: URL, protectedPaths: readonly string[] = []): string | undefined {
  if (url.protocol !== 'file:') return undefined;
  let path: string;
  try {
    path = tidy(decodeURIComponent(url.pathname));
  } catch {
    return `${url.href} is not a file address that can be read: its path is not valid percent-encoding.`;
  }
  if (SYSTEM_DIRS.some((dir) => under(dir, path)))
    return `${path} is the system's view of processes and devices (${SYSTEM_DIRS.join(', ')}): no page opens it.`;
  if (protectedPaths.some((p) => under(p, path)))
    return `${path} is one of this server's own files (its keys, secrets, configuration or browser profile): no page opens it.`;
  return undefined;
}
