-- wrk script of the throughput bench: optional method and body from the environment
-- (BENCH_METHOD, BENCH_BODY_FILE), and one machine-readable summary line on stdout.
local method = os.getenv("BENCH_METHOD")
local body_file = os.getenv("BENCH_BODY_FILE")
if method and method ~= "" then wrk.method = method end

-- wrk writes the headers in its Lua table's order, which changes from one wrk process to the next
-- (string hashes are seeded at random). A Node server builds each request's header object in the
-- order the lines arrive, so every new order is a new hidden class: the port's request path was
-- deoptimised and compiled again at the start of some runs and not others. Written here in one
-- fixed order instead, as Go's net/http (kubectl, client-go) writes them: Host first, the rest by name.
function wrk.format(method, path, headers, body)
  method = method or wrk.method
  path = path or wrk.path
  headers = headers or wrk.headers
  body = body or wrk.body
  if not headers["Host"] then headers["Host"] = wrk.headers["Host"] end
  headers["Content-Length"] = body and string.len(body)
  local names = {}
  for name in pairs(headers) do
    if name ~= "Host" then names[#names + 1] = name end
  end
  table.sort(names)
  local s = { string.format("%s %s HTTP/1.1", method, path), "Host: " .. headers["Host"] }
  for _, name in ipairs(names) do s[#s + 1] = string.format("%s: %s", name, headers[name]) end
  s[#s + 1] = ""
  s[#s + 1] = body or ""
  return table.concat(s, "\r\n")
end
if body_file and body_file ~= "" then
  local f = assert(io.open(body_file, "rb"))
  wrk.body = f:read("*a")
  f:close()
  wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH-JSON {"requests":%d,"durationUs":%d,"bytes":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,"statusErrors":%d,"timeouts":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,"meanUs":%.1f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
