// fengari ships no types; we use a small slice of its C-API mirror.
declare module 'fengari' {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- fengari ships no types; its C-API mirror is used untyped
  const fengari: any;
  export default fengari;
}
