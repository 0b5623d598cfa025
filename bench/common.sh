# Shell functions shared by bench/http and bench/wrk (sourced, not run): the servers a run starts
# for itself, the command side as they both run it, and the exactness checks' counts.
#
# The caller sets DB_HOST, DB_PORT, DB_USER, DB_PASSWORD (MYSQL_PWD exported), and, for
# start_command_side, RATE_LIMIT_ENABLED and POOL_SIZE, and may set TX_TIMEOUT: the service's
# spring.transaction.default-timeout (30s here; its own default is 5s). On a heavily loaded machine
# the first transactions of a cold JVM can outlast 5 s (the event processors' have 30 s of their
# own, stockade.processing.transaction-timeout); a timeout that does not fire changes no request's
# work.

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
sql() { mariadb -h "$DB_HOST" -P "$DB_PORT" -u "$DB_USER" -N -B "$@"; }

# The service of a run accepts the tokens of the local development key (local-infra/dev/), as the
# quick start does (its public half is in the jar), so it listens on 127.0.0.1 only.
DEV_KEY=classpath:io/stockade/localinfra/local-dev-jwt.pub
# Rate limits no workload reaches (10^9 a second per user and for the one client the load comes
# from): the figures include the check, and no request is refused with 429.
UNREACHED=1000000000

# start_redis PORT LOG: a redis-server of the run's own on 127.0.0.1, nothing kept on disk; sets
# REDIS_PID and returns once it answers.
start_redis() {
  redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --logfile "$2" &
  REDIS_PID=$!
  for _ in $(seq 50); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "redis-server did not answer on port $1" >&2
  return 1
}

# start_command_side JAVA JAR PORT REDIS_PORT DATABASE LOG [JVM option...]: the command side
# (java -jar) on DATABASE of the MariaDB server and the given Redis, on 127.0.0.1:PORT with the
# development key; sets APP_PID.
start_command_side() {
  local java=$1 jar=$2 port=$3 redis=$4 database=$5 log=$6
  shift 6
  SPRING_DATASOURCE_URL="jdbc:mariadb://$DB_HOST:$DB_PORT/$database" \
    SPRING_DATASOURCE_USERNAME=$DB_USER SPRING_DATASOURCE_PASSWORD=$DB_PASSWORD \
    SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE=$POOL_SIZE \
    SPRING_DATA_REDIS_HOST=127.0.0.1 SPRING_DATA_REDIS_PORT=$redis SERVER_PORT=$port \
    SERVER_ADDRESS=127.0.0.1 STOCKADE_LOCAL_INFRA_ENABLED=false AXONIQ_UPDATE_CHECKER_DISABLED=true \
    STOCKADE_RATE_LIMIT_ENABLED=$RATE_LIMIT_ENABLED \
    STOCKADE_RATE_LIMIT_USER_CAPACITY=$UNREACHED STOCKADE_RATE_LIMIT_USER_REFILL_PER_SECOND=$UNREACHED \
    STOCKADE_RATE_LIMIT_CLIENT_CAPACITY=$UNREACHED \
    STOCKADE_RATE_LIMIT_CLIENT_REFILL_PER_SECOND=$UNREACHED \
    SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_PUBLIC_KEY_LOCATION=$DEV_KEY \
    SPRING_TRANSACTION_DEFAULT_TIMEOUT=${TX_TIMEOUT:-30s} \
    "$java" "$@" -Daxoniq.update-checker.disabled=true -jar "$jar" >"$log" 2>&1 &
  APP_PID=$!
}

# await_ready URL PID LOG [SECONDS]: waits until URL/actuator/health/readiness answers 200 (at most
# SECONDS, 300); fails, with the log's end, when the process dies or the time is up.
await_ready() {
  local deadline=$((SECONDS + ${4:-300}))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$1/actuator/health/readiness")" = 200 ]; do
    if ! kill -0 "$2" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      echo "the command side was not ready at $1 (log $3):" >&2
      tail -40 "$3" >&2
      return 1
    fi
    sleep 0.1
  done
}

# stop_process PID: SIGTERM, then waits for it to end.
stop_process() {
  [ -z "$1" ] || { kill "$1" 2>/dev/null && wait "$1" 2>/dev/null || true; }
}

# cpu_ticks PID: its user + system CPU time so far, in clock ticks (getconf CLK_TCK); 0 when gone.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# gate_counters REDIS_PORT SKU: the SKU's counters in the gate, "reserved available", whatever
# partition (hash tag) the SKU lies in; empty when Redis holds none.
gate_counters() {
  local key
  key=$(redis-cli -p "$1" --scan --pattern "stockade:{*}:sku:$2" | head -1)
  [ -z "$key" ] || redis-cli -p "$1" HMGET "$key" reserved available | paste -sd' '
}

# stored_reserved DATABASE PATTERN: StockReserved events stored for the reservations whose ids
# match the SQL LIKE pattern (a reservation's stream id is its id behind a prefix).
stored_reserved() {
  sql "$1" -e "SELECT COUNT(*) FROM domain_event_entry
    WHERE aggregate_identifier LIKE '%$2' AND payload_type LIKE '%.StockReserved'"
}
