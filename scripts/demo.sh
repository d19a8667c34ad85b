#!/usr/bin/env bash
# npm run demo — a real workflow end to end on simulated agents: `shop demo`, the command an
# installed Shop has too. It never calls Claude Code (nor spends money) unless you opt in with
# SHOP_DEMO_REAL=1, which runs the same steps here on real agents: makes a project in a temp
# folder, checks feature.lua on its fixture (shop test), runs it (architect → coder ⇄ reviewer
# → pause → deployer), answers the pause the way a script would, and shows the audit trail.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shop="$here/packages/cli/bin/shop"
[ -f "$here/packages/cli/dist/bundle/shop.cjs" ] || (cd "$here" && npm run build --silent)
if [ "${SHOP_DEMO_REAL:-}" = "1" ]; then
  if [ -z "${SHOP_CLAUDE_BIN:-}" ] && ! command -v claude >/dev/null 2>&1; then
    echo "SHOP_DEMO_REAL=1 needs Claude Code: install it (npm install -g @anthropic-ai/claude-code) and log in, or unset SHOP_DEMO_REAL" >&2
    exit 2
  fi
  echo "(SHOP_DEMO_REAL=1: real Claude Code agents — this spends money on your account)"
else
  echo "(SHOP_DEMO_REAL=1 npm run demo runs it on Claude Code)"
  exec "$shop" demo
fi
export SHOP_USER="${SHOP_USER:-demo}"
dir=$(mktemp -d -t shop-demo-XXXXXX)
cd "$dir"
echo "\$ cd $dir && shop init"
"$shop" init
echo
echo '$ shop test feature      # workflows/feature.test.json: no agent, nobody asked'
"$shop" test feature
echo
echo '$ shop run feature "add a login page"'
set +e
"$shop" run feature "add a login page"
code=$?
set -e
echo "(exit $code: 3 means it waits for a person)"
id=$("$shop" list --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].id))')
echo
echo "\$ shop inbox"
"$shop" inbox
echo
# Answer by the ask's handle (as the hints show it): it lands on that ask or is refused, never on a newer one.
handle=$("$shop" inbox --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].handle))')
echo "\$ shop approve $handle --message \"ship it\""
"$shop" approve "$handle" --message "ship it"
echo
echo "\$ shop status $id"
"$shop" status "$id"
echo
echo "\$ shop log $id"
"$shop" log "$id"
echo
echo "The project stays in $dir; try: cd $dir && $shop list"
echo "Answer from a browser: cd $dir && $shop serve   (then, in another terminal there: $shop access add you — open the link it prints)"
