-- GetTask of one authenticated caller's task, signed in with its API key (bench/listing.py):
-- the reference for that caller's ListTasks, which pays the same authentication.
-- case args: expected body text, API key, task id
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }

function case_init(a)
  expect_text = a[1]
  headers["X-API-Key"] = a[2]
  task_id = a[3]
end

function build(id)
  local body = '{"jsonrpc":"2.0","id":"' .. id .. '","method":"GetTask","params":{"id":"' ..
    task_id .. '","historyLength":10}}'
  return wrk.format("POST", "/a2a/jsonrpc", headers, body)
end

dofile(script_dir .. "common.lua")
