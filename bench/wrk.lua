-- wrk workloads of bench/wrk against the command side (or the bare baseline), one per wrk run.
--
--   wrk -t2 -c32 -d15s -s bench/wrk.lua URL -- WORKLOAD LABEL TOKEN SKU SKUS
--
-- WORKLOAD  liveness  GET /actuator/health/liveness (TOKEN, SKU, SKUS unused)
--           refusal   POST /api/reservations of one unit of SKU, a hot SKU that has sold out:
--                     expected 409 insufficient-stock
--           accepted  POST /api/reservations of one unit of SKU-1 .. SKU-<SKUS> in turn (SKUs with
--                     stock no run exhausts): expected 201
-- LABEL     names the run in the output, and prefixes the reservation ids: every id is
--           LABEL-t<thread>-<n>, so ids are unique across threads (each thread gets its own
--           number in setup(): wrk runs one Lua state per thread) and across runs (one label each).
--           The user id is the reservation id: no per-user limit is reached.
-- TOKEN     the bearer token (the local development client's)
--
-- At the end, done() prints one line for bench/wrk to read:
--   WRK <label> requests=<n> seconds=<s> rate=<n/s> p50=<ms> p99=<ms> p999=<ms>
--       errors=<connect+read+write+timeout> statuses=<status>:<count>,...
-- The statuses are counted in response() by each thread and summed over the threads; a status
-- other than the workload's expected one is the caller's to report (bench/wrk does).

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

function init(args)
  workload = args[1]
  label = args[2]
  sku = args[4]
  skus = tonumber(args[5] or "1")
  statuses = {}
  sent = 0
  if workload == "liveness" then
    fixed = wrk.format("GET", "/actuator/health/liveness")
  elseif workload == "refusal" or workload == "accepted" then
    wrk.headers["Authorization"] = "Bearer " .. args[3]
    wrk.headers["Content-Type"] = "application/json"
  else
    error("unknown workload " .. tostring(workload))
  end
end

function request()
  if fixed then
    return fixed
  end
  sent = sent + 1
  local id = label .. "-t" .. tid .. "-" .. sent
  local target = sku
  if workload == "accepted" then
    -- Threads start at different SKUs, so that they do not all queue on the same one.
    target = sku .. "-" .. ((sent + tid * 7919) % skus + 1)
  end
  return wrk.format("POST", "/api/reservations", nil,
    '{"reservationId":"' .. id .. '","userId":"' .. id .. '","lines":[{"skuId":"' .. target
      .. '","quantity":1}]}')
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + count
    end
  end
  local listed = {}
  for status, count in pairs(total) do
    table.insert(listed, status .. ":" .. count)
  end
  table.sort(listed)
  local errors = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "WRK %s requests=%d seconds=%.2f rate=%.0f p50=%.3f p99=%.3f p999=%.3f errors=%d statuses=%s\n",
    threads[1]:get("label"), summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000,
    errors.connect + errors.read + errors.write + errors.timeout, table.concat(listed, ",")))
end
