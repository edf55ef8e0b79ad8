-- ListTasks of one authenticated caller across all its contexts (bench/listing.py).
-- case args: expected body text, API key, pageSize [, pageToken]
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }

function case_init(a)
  expect_text = a[1]
  headers["X-API-Key"] = a[2]
  page_size, page_token = a[3], a[4]
end

function build(id)
  local params = '{"pageSize":' .. page_size
  if page_token and page_token ~= "" then params = params .. ',"pageToken":"' .. page_token .. '"' end
  local body = '{"jsonrpc":"2.0","id":"' .. id .. '","method":"ListTasks","params":' ..
    params .. '}}'
  return wrk.format("POST", "/a2a/jsonrpc", headers, body)
end

dofile(script_dir .. "common.lua")
