-- A JSON-RPC request the server must refuse, to measure what a refusal costs.
-- case args: kind, expected body text
--   deep      params nested 1,000 deep (past MAX_JSON_DEPTH, and past the JSON parser's
--             own recursion limit): a parse error, -32700
--   long-id   SendMessage with a 201-character messageId: invalid params, -32602
-- The answer is a JSON-RPC error with HTTP 200, so errors are what is expected here.
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }
check_rpc_error = false

function case_init(a)
  kind = a[1]
  expect_text = a[2]
  if kind == "deep" then
    params = '{"x":' .. string.rep("[", 1000) .. string.rep("]", 1000) .. '}'
  elseif kind == "long-id" then
    params = '{"message":{"messageId":"' .. string.rep("x", 201) ..
      '","role":"ROLE_USER","parts":[{"text":"hello"}]}}'
  else
    error("unknown kind " .. tostring(kind))
  end
end

function build(id)
  local body = '{"jsonrpc":"2.0","id":"' .. id .. '","method":"SendMessage","params":' ..
    params .. '}'
  return wrk.format("POST", "/a2a/jsonrpc", headers, body)
end

dofile(script_dir .. "common.lua")
