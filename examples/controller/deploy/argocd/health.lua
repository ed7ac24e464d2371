-- Argo CD health check for apps/DaemonSet, aware of the daemonplan
-- companion (examples/controller --mode=companion).
--
-- Under updateStrategy OnDelete, Argo CD's built-in check calls a DaemonSet
-- Healthy while its pods are still old. For a DaemonSet with rollout
-- annotations (rollout.daemonplan.io/...) this check reads the companion's
-- status conditions instead: Healthy when RolloutProgressing says
-- RolloutComplete for the current generation; Degraded when the change was
-- rolled back (RolloutProgressing RolledBack: on-failure: rollback or
-- kubectl dsplan rollout undo wrote an earlier template back; until a new
-- template or kubectl dsplan rollout resume acknowledges it), when RolloutBlocked
-- (stopped at its progress deadline, or by a health gate: a new-revision pod
-- crash-looping, OOMKilled, failing to pull or start, restarting too often or
-- not Ready in time) or the annotations are refused; Suspended while
-- RolloutPaused, or while it waits for an approval after a wave named in
-- pause-after (RolloutProgressing WaitingForApproval: a person must act, with
-- kubectl dsplan rollout approve); Progressing otherwise, outside a
-- maintenance window too (RolloutProgressing OutsideWindow: it goes on by
-- itself when the next window opens). Other DaemonSets get the built-in
-- rules.
--
-- Install it as resource.customizations.health.apps_DaemonSet in argocd-cm
-- (see argocd-cm.yaml beside this file).

local hs = {}

local function condition(t)
  if obj.status == nil or obj.status.conditions == nil then
    return nil
  end
  for _, c in ipairs(obj.status.conditions) do
    if c.type == t then
      return c
    end
  end
  return nil
end

local function optedIn()
  if obj.metadata.annotations == nil then
    return false
  end
  for k, _ in pairs(obj.metadata.annotations) do
    if string.sub(k, 1, 22) == "rollout.daemonplan.io/" then
      return true
    end
  end
  return false
end

local generation = obj.metadata.generation or 0
local status = obj.status or {}
if (status.observedGeneration or 0) < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the DaemonSet controller to observe generation " .. generation
  return hs
end

local strategy = "RollingUpdate"
if obj.spec.updateStrategy ~= nil and obj.spec.updateStrategy.type ~= nil then
  strategy = obj.spec.updateStrategy.type
end

if strategy ~= "OnDelete" or not optedIn() then
  local desired = status.desiredNumberScheduled or 0
  if strategy == "RollingUpdate" and (status.updatedNumberScheduled or 0) < desired then
    hs.status = "Progressing"
    hs.message = "Waiting for rollout to finish: " .. (status.updatedNumberScheduled or 0) .. " out of " .. desired .. " new pods have been updated"
    return hs
  end
  if (status.numberAvailable or 0) < desired then
    hs.status = "Progressing"
    hs.message = "Waiting for rollout to finish: " .. (status.numberAvailable or 0) .. " of " .. desired .. " updated pods are available"
    return hs
  end
  hs.status = "Healthy"
  hs.message = ""
  return hs
end

local progressing = condition("RolloutProgressing")
if progressing == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for the daemonplan companion to report the rollout"
  return hs
end
local seen = tonumber(string.match(progressing.message or "", "%(generation (%d+)%)$"))
if seen == nil or seen < generation then
  hs.status = "Progressing"
  hs.message = "Waiting for the daemonplan companion to observe generation " .. generation
  return hs
end

local blocked = condition("RolloutBlocked")
if blocked ~= nil and blocked.status == "True" then
  hs.status = "Degraded"
  hs.message = "Rollout blocked (" .. (blocked.reason or "") .. "): " .. (blocked.message or "")
  return hs
end
if progressing.reason == "RolledBack" then
  hs.status = "Degraded"
  hs.message = progressing.message or "Rolled back"
  return hs
end
if progressing.reason == "InvalidAnnotations" or progressing.reason == "SurgeUnsupported" then
  hs.status = "Degraded"
  hs.message = progressing.message or ""
  return hs
end
local paused = condition("RolloutPaused")
if paused ~= nil and paused.status == "True" then
  hs.status = "Suspended"
  hs.message = paused.message or "Rollout paused"
  return hs
end
if progressing.reason == "WaitingForApproval" then
  hs.status = "Suspended"
  hs.message = progressing.message or "Waiting for approval"
  return hs
end
-- OutsideWindow stays Progressing: nobody needs to act, the rollout goes on
-- when the next maintenance window opens (the message says when).
if progressing.status == "True" and progressing.reason == "RolloutComplete" then
  hs.status = "Healthy"
  hs.message = progressing.message or ""
  return hs
end
hs.status = "Progressing"
hs.message = progressing.message or ""
return hs
