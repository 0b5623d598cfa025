# Run by the mysql image's entrypoint (sourced, as root, at the database's first start only) after
# it made MYSQL_USER: a shell script rather than a .sql file, because the user's name is a setting.
# PROCESS lets the query side's event feed read information_schema.innodb_trx and so tell a hole
# in the global index that a running transaction will fill from one that stays; without it the
# feed waits out stockade.event-feed.gap-timeout (60 s) at every hole.
docker_process_sql --database=mysql <<<"GRANT PROCESS ON *.* TO '${MYSQL_USER}'@'%';"
