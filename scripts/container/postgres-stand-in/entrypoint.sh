#!/bin/sh
# The official postgres image's essentials, for the stand-in (see make-postgres-base.sh): on first start an
# empty PGDATA gets a cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD (password logins over
# the network), and POSTGRES_DB; then PostgreSQL runs in the foreground as the postgres user.
set -e
PATH="/usr/lib/postgresql/15/bin:$PATH"
export PGDATA="${PGDATA:-/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -o "-c listen_addresses=''" -w start > /dev/null
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
    psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres -c "create database \"$POSTGRES_DB\"" > /dev/null
  fi
  pg_ctl -m fast -w stop > /dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
exec postgres -c listen_addresses='*' "$@"
