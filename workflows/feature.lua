-- feature: the architect plans, the coder builds, the reviewer checks (up to MAX_ROUNDS
-- rounds, feeding its notes back to the coder), a person approves, the deployer ships.
local MAX_ROUNDS = 3

config{ human_escalation = true }

-- An agent that asked a person and was turned down (REJECTED, or WONT_DO for an escalation)
-- did not do its part: the feature stops there, nothing is reviewed or deployed.
local function turned_down(step, who)
  if step.status == "DONE" then return nil end
  return who .. " stopped: " .. step.status .. (step.reason and (": " .. step.reason) or "")
end

function workflow(prompt)
  local plan = run("architect", "Plan this feature: " .. prompt)
  local no = turned_down(plan, "the architect")
  if no then return stuck(no) end
  local notes = ""
  for round = 1, MAX_ROUNDS do
    local change = run("coder", "Implement this plan:\n" .. (plan.summary or prompt) .. notes)
    no = turned_down(change, "the coder")
    if no then return stuck(no) end
    local review = run("reviewer", {
      prompt = "Review this change: " .. (change.summary or ""),
      statuses = { "APPROVED", "CHANGES_REQUESTED" },
    })
    if review.status == "APPROVED" then
      local approval = pause("Approve deployment?")
      if not approval.continue then
        return stuck(approval.reason)
      end
      local deploy = run("deployer", "Deploy: " .. prompt)
      return { shipped = true, rounds = round, deploy = deploy.summary }
    end
    log("review round " .. round .. ": changes requested")
    notes = "\n\nReviewer notes (round " .. round .. "): " .. (review.summary or "")
  end
  return stuck("the reviewer did not approve after " .. MAX_ROUNDS .. " rounds")
end
