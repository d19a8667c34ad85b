-- bugfix: reproduce, fix, verify. A failing verification goes back to the coder once.
function workflow(prompt)
  local repro = run("coder", "Reproduce this bug with a failing test, do not fix it yet: " .. prompt)
  local fix = run("coder", "Fix the bug so the test passes: " .. (repro.summary or prompt))
  local check = run("reviewer", {
    prompt = "Verify the fix and that no other test broke: " .. (fix.summary or ""),
    statuses = { "APPROVED", "CHANGES_REQUESTED" },
  })
  if check.status ~= "APPROVED" then
    fix = run("coder", "The reviewer found problems, address them: " .. (check.summary or ""))
  end
  return { fixed = true, summary = fix.summary }
end
