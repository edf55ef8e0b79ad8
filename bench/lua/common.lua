-- Shared by every case script: unique ids, response checks, one result line.
--
-- A case script sets `expect_status` (default 200), `expect_text` (strings every
-- response body must contain, joined by "&&"; nil for none) and `check_rpc_error`
-- (bodies must not contain '"error"'; default true), defines `build(id)` returning the
-- request for unique id `id` (and optionally `case_init(args)`), then runs this file.
-- Arguments after `--` on the wrk command line reach `init(args)` in every thread:
-- args[1] is the run id that makes ids unique across runs, the rest go to `case_init`.
-- `done()` prints one line, "BENCH_RESULT {json}", that bench/run.py reads.

local threads = {}

expect_status = expect_status or 200
check_rpc_error = check_rpc_error ~= false

counter = 0
bad_status = 0
rpc_error = 0
bad_body = 0
sample = ""

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  run_id = args[1] or "run"
  case_args = {}
  for i = 2, #args do case_args[i - 1] = args[i] end
  if case_init then case_init(case_args) end
  expect_texts = {}
  for piece in string.gmatch(expect_text or "", "[^&]+") do
    table.insert(expect_texts, piece)
  end
end

function request()
  counter = counter + 1
  return build(string.format("%s-%d-%d", run_id, tid, counter))
end

local function keep(kind, status, body)
  if sample == "" then
    sample = string.format("%s: HTTP %d %s", kind, status, string.sub(body or "", 1, 300))
  end
end

function response(status, headers, body)
  if status ~= expect_status then
    bad_status = bad_status + 1
    keep("status", status, body)
  elseif check_rpc_error and body and string.find(body, '"error"', 1, true) then
    rpc_error = rpc_error + 1
    keep("error", status, body)
  else
    for _, text in ipairs(expect_texts) do
      if not (body and string.find(body, text, 1, true)) then
        bad_body = bad_body + 1
        keep("missing " .. text, status, body)
        return
      end
    end
  end
end

local function json_string(s)
  s = string.gsub(s, '\\', '\\\\')
  s = string.gsub(s, '"', '\\"')
  s = string.gsub(s, '%c', ' ')
  return '"' .. s .. '"'
end

function done(summary, latency, requests)
  local checked = { bad_status = 0, rpc_error = 0, bad_body = 0 }
  local first = ""
  for _, thread in ipairs(threads) do
    for name, _ in pairs(checked) do
      checked[name] = checked[name] + (thread:get(name) or 0)
    end
    local s = thread:get("sample")
    if first == "" and s and s ~= "" then first = s end
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d,"mean_us":%.1f,' ..
    '"connect_errors":%d,"read_errors":%d,"write_errors":%d,"http_errors":%d,' ..
    '"timeouts":%d,"bad_status":%d,"rpc_error":%d,"bad_body":%d,"sample":%s}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    latency.mean, e.connect, e.read, e.write, e.status, e.timeout,
    checked.bad_status, checked.rpc_error, checked.bad_body, json_string(first)))
end
