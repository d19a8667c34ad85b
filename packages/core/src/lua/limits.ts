/** Seconds of pure Lua between two host calls before the run fails (config lua_timeout). */
export const DEFAULT_LUA_TIMEOUT_S = 10;
/** MiB of string the Lua string functions may make at once (config lua_memory_mb). */
export const DEFAULT_LUA_MEMORY_MB = 256;

export const luaTimeoutMessage = (limit: number) =>
  `${limit}s of Lua without a host call (an endless loop?); raise the limit with config{ lua_timeout = … } if it is meant`;
