/** What the file system's error codes mean for a person. */
const WORDS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its path is not a folder',
  ENOENT: 'no such file or folder',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EIO: 'the disk could not be read or written',
};

/** Why a file operation failed, in words with its code ("the file system is read-only (EROFS)"); null for an error that is not the file system's. */
export function fsWhy(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^E[A-Z0-9]+$/.test(code)) return null;
  return WORDS[code] ? `${WORDS[code]} (${code})` : code;
}
