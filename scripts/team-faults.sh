#!/usr/bin/env bash
# The fault tests through nginx (Tests/Team/test_team_nginx.py) on a team of their own:
#   scripts/team-faults.sh          the object store and PostgreSQL frozen 8 s each (as in CI)
#   scripts/team-faults.sh --full   30 s each, the issue's figure (about 3 minutes in all)
# Prints each outage's requests by status, the slowest answer and the recovery time.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=8
if [ "${1:-}" = "--full" ]; then seconds=30; shift; fi
env -u TEAM_NGINX TEAM_OUTAGE_SECONDS=$seconds python3 -m pytest -q -s Tests/Team/test_team_nginx.py "$@"
