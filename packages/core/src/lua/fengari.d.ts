// fengari ships no types; we use a small slice of its C-API mirror.
declare module 'fengari' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const fengari: any;
  export default fengari;
}
