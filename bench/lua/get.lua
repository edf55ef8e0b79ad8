-- GET a path. case args: path, expected status, expected body text ("-": none),
-- If-None-Match value (optional).
-- Used for the bare JsonResponse and the agent card (200 and 304).
local script_dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"

function case_init(a)
  path = a[1]
  expect_status = tonumber(a[2])
  if a[3] ~= "-" then expect_text = a[3] end
  headers = { ["Accept"] = "application/json" }
  if a[4] then headers["If-None-Match"] = a[4] end
end

function build(id)
  return wrk.format("GET", path, headers)
end

dofile(script_dir .. "common.lua")
