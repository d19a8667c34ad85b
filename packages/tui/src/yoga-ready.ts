/**
 * yoga-layout (Ink's layout engine) instantiates its WebAssembly with a top-level await, which
 * the CLI's CommonJS bundle cannot hold: there it is instantiated by a `ready()` the bundle adds
 * (scripts/bundle.mjs), awaited here before Ink lays anything out. Unbundled, importing it is
 * enough.
 */
export async function yogaReady(): Promise<void> {
  const yoga = (await import('yoga-layout')) as { ready?: () => Promise<void> };
  await yoga.ready?.();
}
