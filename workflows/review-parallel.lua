-- review-parallel: the coder builds; three reviewers look at the change at once, each
-- through one lens; their notes go back to the coder together, for up to MAX_ROUNDS rounds.
local MAX_ROUNDS = 2
local LENSES = { "correctness", "security", "tests" }

local function reviewer(lens, change)
  return function()
    return run("reviewer", {
      prompt = "Review this change for " .. lens .. " only: " .. (change.summary or ""),
      statuses = { "APPROVED", "CHANGES_REQUESTED" },
    })
  end
end

function workflow(prompt)
  local change = run("coder", "Implement: " .. prompt)
  for round = 1, MAX_ROUNDS do
    local reviews = { parallel(reviewer(LENSES[1], change), reviewer(LENSES[2], change), reviewer(LENSES[3], change)) }
    local notes = {}
    for i, review in ipairs(reviews) do
      if review.status ~= "APPROVED" then
        notes[#notes + 1] = LENSES[i] .. ": " .. (review.summary or "changes requested")
      end
    end
    if #notes == 0 then
      return { approved = true, rounds = round }
    end
    log("round " .. round .. ": " .. #notes .. " of " .. #LENSES .. " reviewers asked for changes")
    change = run("coder", "Address the reviewers' notes:\n" .. table.concat(notes, "\n"))
  end
  return stuck("the reviewers did not all approve after " .. MAX_ROUNDS .. " rounds")
end
