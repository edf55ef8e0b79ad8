-- One A2A JSON-RPC method per case. case args: operation, expected body text, params...
--   send <text>                   SendMessage, blocking (the inline skill answers at once)
--   send_bg <text>                SendMessage with returnImmediately (a background skill)
--   get <task id> <historyLength> GetTask
--   list <contextId> <pageSize> [pageToken]   ListTasks
--   limited                       GetExtendedAgentCard over its rate limit: 429 expected
-- Every request carries a unique JSON-RPC id and, for sends, a unique messageId.
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

local headers = { ["Content-Type"] = "application/json", ["A2A-Version"] = "1.0" }

function case_init(a)
  op = a[1]
  expect_text = a[2]
  p1, p2, p3 = a[3], a[4], a[5]
  if op == "limited" then
    expect_status, check_rpc_error = 429, false
  end
end

local function envelope(id, method, params)
  local body = '{"jsonrpc":"2.0","id":"' .. id .. '","method":"' .. method ..
    '","params":' .. params .. '}'
  return wrk.format("POST", "/a2a/jsonrpc", headers, body)
end

local function message(id, text)
  return '{"messageId":"' .. id .. '","role":"ROLE_USER","parts":[{"text":"' .. text .. '"}]}'
end

function build(id)
  if op == "send" then
    return envelope(id, "SendMessage", '{"message":' .. message(id, p1) .. '}')
  elseif op == "send_bg" then
    return envelope(id, "SendMessage", '{"message":' .. message(id, p1) ..
      ',"configuration":{"returnImmediately":true}}')
  elseif op == "get" then
    return envelope(id, "GetTask", '{"id":"' .. p1 .. '","historyLength":' .. p2 .. '}')
  elseif op == "list" then
    local params = '{"contextId":"' .. p1 .. '","pageSize":' .. p2
    if p3 and p3 ~= "" then params = params .. ',"pageToken":"' .. p3 .. '"' end
    return envelope(id, "ListTasks", params .. '}')
  elseif op == "limited" then
    return envelope(id, "GetExtendedAgentCard", '{}')
  end
  error("unknown operation " .. tostring(op))
end

dofile(script_dir .. "common.lua")
