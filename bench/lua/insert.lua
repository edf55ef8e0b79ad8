-- POST a message-like JSON body to the baseline view that parses it and inserts a row.
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

expect_text = '"stored"'
local headers = { ["Content-Type"] = "application/json" }

function build(id)
  local body = '{"messageId":"' .. id .. '","role":"ROLE_USER","parts":[{"text":"hello"}]}'
  return wrk.format("POST", "/bench/insert", headers, body)
end

dofile(script_dir .. "common.lua")
