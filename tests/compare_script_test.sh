#!/usr/bin/env bash
# Test of scripts/compare.sh (a few seconds): its memplan-only path with both peers absent,
# and its peer path with stand-in peers (tiny scripts that print what the real CLIs print),
# so the parsing of the peers' output and the re-check of MiniMalloc's plan are exercised on
# a machine without the peers. Usage: compare_script_test.sh MEMPLAN_CLI
set -uo pipefail
MEMPLAN_CLI=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail=0
expect() {  # expect NAME FILE REGEX: FILE must contain a line matching REGEX
  if ! grep -E -q -- "$3" "$2"; then
    echo "FAIL [$1]: no line matching /$3/ in:"; cat "$2"; fail=1
  fi
}
run() {  # run OUT ENV...: compare.sh on A, one run, 200 iterations
  local out=$1; shift
  env MEMPLAN="$MEMPLAN_CLI" "$@" bash "$ROOT/scripts/compare.sh" --runs 1 --only A --iterations 200 >"$out" 2>&1
  echo "exit=$?" >>"$out"
}

# 1. Peers absent: memplan's side is measured, the peers' columns say "absent".
run "$W/absent" MINIMALLOC_BIN=/nonexistent/minimalloc IDEALLOC_BIN=/nonexistent/idealloc
expect absent "$W/absent" '^exit=0$'
expect absent "$W/absent" 'MiniMalloc: \*\*absent\*\*: MINIMALLOC_BIN=/nonexistent/minimalloc is not an executable'
expect absent "$W/absent" 'idealloc: \*\*absent\*\*'
# A is solved at capacity 1048576 = LOAD: memplan's peak is 1048576; peer columns absent.
expect absent "$W/absent" '^\| A \| [0-9]+\.[0-9]{3} \| absent \| absent \| [0-9.]+ \| absent \| absent \| 1048576 \| absent \| absent \| 4\.09 \| [0-9.]+x \|$'
# idealloc on 1 and on 2 threads: a valid peak/LOAD above 1 and a time per iteration.
[ "$(grep -c -E '^\| A \| 1\.[0-9]{4} \| absent \| [0-9]+\.[0-9]{3} \| absent \|' "$W/absent")" = 2 ] ||
  { echo "FAIL [absent]: expected two idealloc rows for A (1 and 2 threads)"; cat "$W/absent"; fail=1; }

# 2. Stand-in peers: MiniMalloc writes a valid plan (memplan's own) and reports 1.234 s;
#    idealloc reports Makespan 1300000 over LOAD 1048576 (1.2398).
cat >"$W/minimalloc" <<EOF
#!/usr/bin/env bash
for a in "\$@"; do case "\$a" in --capacity=*) C=\${a#*=};; --input=*) I=\${a#*=};; --output=*) O=\${a#*=};; esac; done
"$MEMPLAN_CLI" solve "\$I" -a exact --capacity "\$C" -o "\$O.tmp" >/dev/null
if [ -n "\${BAD_PLAN:-}" ]; then awk -F, 'NR == 1 { print; next } { \$NF = 0; print }' OFS=, "\$O.tmp" >"\$O"; else mv "\$O.tmp" "\$O"; fi
echo "Elapsed time 1.234s" >&2
EOF
cat >"$W/idealloc" <<'EOF'
#!/usr/bin/env bash
echo "Makespan: 1300000"
echo "LOAD: 1048576"
EOF
chmod +x "$W/minimalloc" "$W/idealloc"
run "$W/peers" MINIMALLOC_BIN="$W/minimalloc" IDEALLOC_BIN="$W/idealloc"
expect peers "$W/peers" '^exit=0$'
expect peers "$W/peers" "MiniMalloc: \`$W/minimalloc\`"
expect peers "$W/peers" '^\| A \| [0-9]+\.[0-9]{3} \| 1\.234 \| [0-9.]+x \| [0-9.]+ \| [0-9.]+ \| [0-9.]+x \| 1048576 \| [0-9]+ \| yes \|'
[ "$(grep -c -E '^\| A \| 1\.[0-9]{4} \| 1\.2398 \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \| [0-9.]+x \|' "$W/peers")" = 2 ] ||
  { echo "FAIL [peers]: expected two idealloc rows for A with the peer's 1.2398"; cat "$W/peers"; fail=1; }

# 3. A peer plan that overlaps (every offset 0) is reported as not valid.
run "$W/bad" MINIMALLOC_BIN="$W/minimalloc" IDEALLOC_BIN=/nonexistent/idealloc BAD_PLAN=1
expect bad "$W/bad" '^\| A \| .* \| NO '

[ "$fail" = 0 ] && echo "compare.sh: all checks passed"
exit "$fail"
