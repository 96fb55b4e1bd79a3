// The part of fengari (Lua 5.3 in JavaScript) the simulated Redis uses to run the relayer's scripts.
declare module 'fengari' {
  export type LuaState = { readonly __luaState: unique symbol }
  export type LuaString = Uint8Array
  export function to_luastring(text: string): LuaString
  export function to_jsstring(text: LuaString): string
  export const lua: {
    LUA_OK: number
    LUA_TNIL: number
    LUA_TBOOLEAN: number
    LUA_TNUMBER: number
    LUA_TSTRING: number
    LUA_TTABLE: number
    LUA_REGISTRYINDEX: number
    lua_gettop(L: LuaState): number
    lua_settop(L: LuaState, index: number): void
    lua_type(L: LuaState, index: number): number
    lua_toboolean(L: LuaState, index: number): boolean
    lua_tojsstring(L: LuaState, index: number): string
    lua_tolstring(L: LuaState, index: number): LuaString | null
    lua_tonumber(L: LuaState, index: number): number
    lua_pushnil(L: LuaState): void
    lua_pushboolean(L: LuaState, value: boolean): void
    lua_pushinteger(L: LuaState, value: number): void
    lua_pushstring(L: LuaState, value: LuaString): void
    lua_pushjsfunction(L: LuaState, run: (L: LuaState) => number): void
    lua_createtable(L: LuaState, arraySize: number, fields: number): void
    lua_rawseti(L: LuaState, table: number, index: number): void
    lua_rawgeti(L: LuaState, table: number, index: number): number
    lua_setfield(L: LuaState, table: number, key: LuaString): void
    lua_getfield(L: LuaState, table: number, key: LuaString): number
    lua_setglobal(L: LuaState, name: LuaString): void
    lua_pcall(L: LuaState, args: number, results: number, handler: number): number
    lua_error(L: LuaState): never
  }
  export const lauxlib: {
    luaL_newstate(): LuaState
    luaL_loadstring(L: LuaState, source: LuaString): number
    luaL_ref(L: LuaState, table: number): number
    luaL_len(L: LuaState, index: number): number
  }
  export const lualib: { luaL_openlibs(L: LuaState): void }
}
